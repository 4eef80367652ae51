"""The seam's layers: backends run models, the store installs them, neither reaches into
the other; what both need lives in the seam's base (and the constraints beside it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dreaming.model

PACKAGE = Path(dreaming.model.__file__).parent


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def modules_of(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).glob("*.py"))


@pytest.mark.parametrize("path", modules_of("backends"), ids=lambda p: p.name)
def test_a_backend_imports_neither_the_store_nor_a_sibling_backend(path: Path) -> None:
    # The seam's contract (base, constraint), mlx's one import path, and the gguf
    # backend's second engine, which is part of that backend rather than a sibling.
    allowed = {"dreaming.model.base", "dreaming.model.constraint", "dreaming.model.backends.blas"}
    allowed |= {"dreaming.model.backends.ik"} if path.name == "gguf.py" else set()
    reached = {m for m in imported_modules(path) if m.startswith("dreaming.model.")}
    assert reached <= allowed, f"{path.name} imports {sorted(reached - allowed)}"


@pytest.mark.parametrize("path", modules_of("store"), ids=lambda p: p.name)
def test_the_store_imports_no_backend(path: Path) -> None:
    reached = {m for m in imported_modules(path) if m.startswith("dreaming.model.backends")}
    assert not reached, f"{path.name} imports {sorted(reached)}"
