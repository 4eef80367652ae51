"""Arrows point one way: watcher -> stages -> dreaming, never back."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# What each layer must never import: the layers above it.
ABOVE = {"dreaming": ("stages", "watcher"), "stages": ("watcher",), "watcher": ()}


def imported_modules(source: str) -> list[str]:
    """Every absolute module name an import statement in `source` names (typing-only too)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def upward_imports(module: str, source: str) -> list[str]:
    """`module imports name` for each import of `module` that points up the stack."""
    forbidden = ABOVE[module.split(".")[0]]
    return [
        f"{module} imports {name}"
        for name in imported_modules(source)
        if name.split(".")[0] in forbidden
    ]


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in ABOVE:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def test_no_module_imports_a_layer_above_its_own() -> None:
    found = modules()
    assert {"dreaming.vault", "watcher.cli", "stages"} <= set(found)
    violations = [
        v
        for module, path in found.items()
        for v in upward_imports(module, path.read_text(encoding="utf-8"))
    ]
    assert violations == []


def test_the_check_catches_an_import_that_points_up() -> None:
    source = (
        "from __future__ import annotations\n"
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "from dreaming.vault import Vault\n"
        "if TYPE_CHECKING:\n"
        "    from watcher.app import App\n"
        "def late():\n"
        "    import stages.pipeline as pipeline\n"
    )
    assert upward_imports("dreaming.ingest", source) == [
        "dreaming.ingest imports watcher.app",
        "dreaming.ingest imports stages.pipeline",
    ]
    assert upward_imports("stages.write", source) == ["stages.write imports watcher.app"]
    assert upward_imports("watcher.cli", source) == []
