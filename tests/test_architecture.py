"""The import contract: arrows point one way, watcher -> stages -> dreaming, and
dreaming.article, the grammar, reads text and nothing else.

The grammar may import the standard library, dreaming.errors and its own
modules; anything more (the ledger, the vault, a model, a third-party package)
would let I/O or state leak into what must stay pure functions.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# What each layer must never import: the layers above it.
ABOVE = {"dreaming": ("stages", "watcher"), "stages": ("watcher",), "watcher": ()}
GRAMMAR = "dreaming.article"
GRAMMAR_MAY_IMPORT = ("dreaming.errors", GRAMMAR)


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module a `from … import` names, relative levels resolved against `module`.

    A package's own `__init__` is named `package.__init__`, so that its relative
    imports resolve inside the package.
    """
    if not node.level:
        return node.module or ""
    package = module.split(".")[: -node.level]
    return ".".join([*package, *([node.module] if node.module else [])])


def imports(module: str, source: str) -> Iterator[tuple[str, str]]:
    """(module named, name imported) for every import in `source`, typing-only and
    function-local ones too: `from a import b` gives ("a", "a.b"), `import a.b` ("a.b", "a.b")."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((a.name, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            yield from ((base, f"{base}.{a.name}" if base else a.name) for a in node.names)


def upward_imports(module: str, source: str) -> list[str]:
    """`module imports name` for each import of `module` that points up the stack."""
    forbidden = ABOVE[module.split(".")[0]]
    found = [base for base, _ in imports(module, source) if base.split(".")[0] in forbidden]
    return [f"{module} imports {name}" for name in dict.fromkeys(found)]


def _grammar_may_import(name: str) -> bool:
    if name.partition(".")[0] in sys.stdlib_module_names:
        return True
    return any(name == a or name.startswith(a + ".") for a in GRAMMAR_MAY_IMPORT)


def grammar_violations(module: str, source: str) -> list[str]:
    """The modules a grammar module imports from outside the standard library and errors."""
    found = []
    for base, full in imports(module, source):
        if _grammar_may_import(base) or _grammar_may_import(full):
            # `from dreaming import errors` imports dreaming.errors, which is allowed.
            continue
        within = any(a.startswith(base + ".") for a in GRAMMAR_MAY_IMPORT)
        found.append(full if within else base)
    return list(dict.fromkeys(found))


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in ABOVE:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts)] = path
    return found


def test_no_module_imports_a_layer_above_its_own() -> None:
    found = modules()
    assert {"dreaming.vault.__init__", "watcher.cli", "stages.__init__"} <= set(found)
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


def _grammar_modules() -> list[str]:
    return [m for m in modules() if m.startswith(GRAMMAR + ".")]


def test_the_grammar_has_modules_to_check() -> None:
    stems = {m.rpartition(".")[2] for m in _grammar_modules()}
    assert stems >= {"__init__", "document", "fences", "gate"}


@pytest.mark.parametrize("module", _grammar_modules())
def test_a_grammar_module_imports_only_the_standard_library_and_errors(module: str) -> None:
    source = modules()[module].read_text(encoding="utf-8")
    assert grammar_violations(module, source) == []


@pytest.mark.parametrize(
    "source",
    [
        "from dreaming.ledger import connect",
        "import dreaming.ledger",
        "from dreaming import ledger",
        "from ..ledger import connect",
        "def f():\n    import yaml\n",
        "import dreaming",
    ],
)
def test_the_grammar_check_catches_an_import_from_outside(source: str) -> None:
    assert grammar_violations("dreaming.article.gate", source) != []


def test_the_grammar_check_names_the_forbidden_module() -> None:
    source = "import re\nfrom dreaming.ledger import connect\n"
    assert grammar_violations("dreaming.article.gate", source) == ["dreaming.ledger"]


@pytest.mark.parametrize(
    "source",
    [
        "import re\nfrom collections.abc import Iterator",
        "from dreaming.errors import DreamingError",
        "from dreaming import errors",
        "from dreaming.article.fences import split_lines",
        "from .fences import split_lines",
        "from . import fences",
        "from .. import errors",
        "from __future__ import annotations",
    ],
)
def test_the_grammar_check_allows_the_standard_library_errors_and_itself(source: str) -> None:
    assert grammar_violations("dreaming.article.gate", source) == []
