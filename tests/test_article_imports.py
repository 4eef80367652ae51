"""dreaming.article is the grammar: it reads text and nothing else.

It may import the standard library, dreaming.errors and its own modules;
anything more (the ledger, the vault, a model, a third-party package) would
let I/O or state leak into what must stay pure functions.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ARTICLE = Path(__file__).resolve().parent.parent / "dreaming" / "article"
ALLOWED = ("dreaming.errors", "dreaming.article")


def _allowed(name: str) -> bool:
    top = name.partition(".")[0]
    if top in sys.stdlib_module_names:
        return True
    return any(name == a or name.startswith(a + ".") for a in ALLOWED)


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module a `from … import` names, relative levels resolved against `module`."""
    if not node.level:
        return node.module or ""
    package = module.split(".")[: -node.level]
    return ".".join([*package, *([node.module] if node.module else [])])


def forbidden_imports(module: str, source: str) -> list[str]:
    """The modules `source` (the text of module `module`) imports outside what is allowed.

    A package's own `__init__` is named `package.__init__`, so that its relative
    imports resolve inside the package.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if not _allowed(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            if _allowed(base):
                continue
            for alias in node.names:
                # `from dreaming import errors` imports dreaming.errors, which is allowed.
                full = f"{base}.{alias.name}" if base else alias.name
                if not _allowed(full):
                    within = any(a.startswith(base + ".") for a in ALLOWED)
                    found.append(full if within else base)
    return list(dict.fromkeys(found))


def _modules() -> list[Path]:
    return sorted(ARTICLE.glob("*.py"))


def test_the_article_package_has_modules_to_check() -> None:
    assert {p.stem for p in _modules()} >= {"__init__", "document", "fences", "gate"}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.stem)
def test_an_article_module_imports_only_the_standard_library_and_errors(path: Path) -> None:
    module = f"dreaming.article.{path.stem}"
    assert forbidden_imports(module, path.read_text(encoding="utf-8")) == []


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
def test_the_checker_catches_an_import_from_outside_the_grammar(source: str) -> None:
    assert forbidden_imports("dreaming.article.gate", source) != []


def test_the_checker_names_the_forbidden_module() -> None:
    source = "import re\nfrom dreaming.ledger import connect\n"
    assert forbidden_imports("dreaming.article.gate", source) == ["dreaming.ledger"]


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
def test_the_checker_allows_the_standard_library_errors_and_the_grammar(source: str) -> None:
    assert forbidden_imports("dreaming.article.gate", source) == []
