"""The import contract: arrows point one way, watcher -> stages -> dreaming, no module
imports itself back through a circle, and dreaming.article, the grammar, reads text and
nothing else. Inside `dreaming`, the ledger and the vault never import a transcript
reader, and no stage imports a command's module. Every module has its line in
docs/architecture.md.

The grammar may import the standard library, dreaming.errors and its own
modules; anything more (the ledger, the vault, a model, a third-party package)
would let I/O or state leak into what must stay pure functions.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# What each layer must never import: the layers above it.
ABOVE = {"dreaming": ("stages", "watcher"), "stages": ("watcher",), "watcher": ()}
# Substrates below the readers: what they store and where, never how a format is read.
SUBSTRATES = ("dreaming.ledger", "dreaming.vault")
READERS = ("dreaming.raw", "dreaming.importing", "dreaming.capture")
# A command's module (audit, status, the evals) reads a vault and reports; a stage that
# needs one of its pieces needs that piece moved below both. The one exception: the
# night's run report carries the wiki scorecard's gold-free part.
COMMANDS = ("dreaming.checks",)
REPORT_MEASURE = "dreaming.checks.wiki"
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


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def sideways_imports(module: str, source: str) -> list[str]:
    """`module imports name` for each import a substrate makes of a reader, or a stage of
    a command's module."""
    forbidden: tuple[str, ...]
    if _within(module, SUBSTRATES):
        forbidden = READERS
    elif _within(module, ("stages",)):
        forbidden = COMMANDS
    else:
        return []
    found = [
        base
        for base, full in imports(module, source)
        if _within(full, forbidden) and not _within(full, (REPORT_MEASURE,))
    ]
    return [f"{module} imports {name}" for name in dict.fromkeys(found)]


def _target(name: str, known: set[str]) -> str | None:
    """The module of ours an imported name is: itself, its package's `__init__`, or the
    module a `from package import name` names."""
    for candidate in (name, f"{name}.__init__"):
        if candidate in known:
            return candidate
    return None


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports (typing-only and function-local ones too)."""
    found = modules()
    known = set(found)
    graph: dict[str, set[str]] = {}
    for module, path in found.items():
        edges = set()
        for base, full in imports(module, path.read_text(encoding="utf-8")):
            target = _target(full, known) or _target(base, known)
            if target and target != module:
                edges.add(target)
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


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
        "    import stages.runner.pipeline as pipeline\n"
    )
    assert upward_imports("dreaming.ingest", source) == [
        "dreaming.ingest imports watcher.app",
        "dreaming.ingest imports stages.runner.pipeline",
    ]
    assert upward_imports("stages.runner.write", source) == [
        "stages.runner.write imports watcher.app"
    ]
    assert upward_imports("watcher.cli", source) == []


def test_no_substrate_imports_a_reader_and_no_stage_imports_a_command() -> None:
    violations = [
        v
        for module, path in modules().items()
        for v in sideways_imports(module, path.read_text(encoding="utf-8"))
    ]
    assert violations == []


def test_the_sideways_check_catches_each_forbidden_arrow() -> None:
    assert sideways_imports("dreaming.ledger.conversations", "from dreaming.raw import x") == [
        "dreaming.ledger.conversations imports dreaming.raw"
    ]
    assert sideways_imports("dreaming.vault.paths", "from dreaming import capture") == [
        "dreaming.vault.paths imports dreaming"
    ]
    assert sideways_imports("stages.synthesize.stage", "import dreaming.checks.audit") == [
        "stages.synthesize.stage imports dreaming.checks.audit"
    ]
    assert sideways_imports("dreaming.raw.folder", "from dreaming.vault import Vault") == []
    assert sideways_imports("stages.runner.pipeline", "from dreaming.checks.wiki import x") == []


def test_callers_of_the_model_seam_import_only_its_package() -> None:
    deeper = [
        f"{module} imports {full}"
        for module, path in modules().items()
        if not _within(module, ("dreaming.model",))
        for base, full in imports(module, path.read_text(encoding="utf-8"))
        if base.startswith("dreaming.model.")
    ]
    assert deeper == []


def test_no_module_imports_itself_back_through_a_circle() -> None:
    assert circles(import_graph()) == []


def test_the_circle_check_finds_a_circle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def documented(doc: str) -> dict[str, set[str]]:
    """Section folder (`dreaming/query/`) → the names in the first cell of its table rows."""
    listed: dict[str, set[str]] = {}
    folder = ""
    for line in doc.splitlines():
        heading = re.match(r"#+ `([\w/]+/)`", line)
        if heading:
            folder = heading.group(1)
        elif line.startswith("| `") and folder:
            cell = line.split("|")[1]
            listed.setdefault(folder, set()).update(re.findall(r"`([\w/.]+)`", cell))
    return listed


def undocumented(paths: list[str], doc: str) -> list[str]:
    """The module paths no row of docs/architecture.md names: a row names a module by its
    path from the deepest section folder holding it, by its file name, or by a folder
    above it (`prompts/`)."""
    listed = documented(doc)
    missing = []
    for path in paths:
        folders = [f for f in listed if path.startswith(f)]
        if not folders:
            missing.append(path)
            continue
        folder = max(folders, key=len)
        rel = path[len(folder) :]
        names = listed[folder]
        parents = {rel[: i + 1] for i, ch in enumerate(rel) if ch == "/"}
        if not ({rel, rel.rpartition("/")[2]} | parents) & names:
            missing.append(path)
    return missing


def test_every_module_has_its_line_in_the_architecture_page() -> None:
    paths = [
        str(path.relative_to(REPO)) for path in modules().values() if path.name != "__init__.py"
    ]
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert undocumented(paths, doc) == []


def test_the_documentation_check_finds_a_module_without_a_line() -> None:
    doc = "## `dreaming/`\n| `errors.py` | errors |\n### `stages/`\n| `prompts/` | prompts |\n"
    assert undocumented(["dreaming/errors.py", "stages/prompts/segment.py"], doc) == []
    assert undocumented(["dreaming/config.py", "watcher/cli.py"], doc) == [
        "dreaming/config.py",
        "watcher/cli.py",
    ]


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
