"""SQL is written in dreaming/ledger/ and nowhere else in the code that ships."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("dreaming", "stages", "watcher")
LEDGER = ROOT / "dreaming" / "ledger"

_STATEMENT = re.compile(
    r"\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE|REPLACE)\b.{0,300}?\b(?:FROM|INTO|SET|TABLE|INDEX)\b",
    re.DOTALL,
)
_CURSOR_CALLS = {"execute", "executemany", "executescript"}


def sql_offences(source: str) -> list[str]:
    """Where `source` runs SQL itself or holds an SQL statement, one line each."""
    found = [
        f"line {_line(source, m.start())}: {m.group(0)[:60]!r}" for m in _STATEMENT.finditer(source)
    ]
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        # A command list (git's `execute([...])`) is not SQL; anything else handed to
        # execute is.
        takes_argv = node.args and isinstance(node.args[0], ast.List | ast.Tuple)
        if (name in _CURSOR_CALLS and not takes_argv) or (
            name == "connect" and ast.unparse(node.func.value) == "sqlite3"
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}(...)")
    return found


def _line(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def shipped_modules() -> list[Path]:
    return sorted(
        p for top in CHECKED for p in (ROOT / top).rglob("*.py") if not p.is_relative_to(LEDGER)
    )


def test_no_module_outside_the_ledger_writes_sql() -> None:
    offences = {
        str(p.relative_to(ROOT)): found
        for p in shipped_modules()
        if (found := sql_offences(p.read_text(encoding="utf-8")))
    }
    assert offences == {}


@pytest.mark.parametrize(
    "source",
    [
        'db.execute("PRAGMA user_version")',
        "ledger.db.executemany(query, rows)",
        "con.executescript(script)",
        "db = sqlite3.connect(path)",
        'Q = "SELECT path, size FROM raw_files"',
        'Q = ("UPDATE raw_files "\n     "SET size = ?")',
        "Q = '''\nINSERT INTO runs(id)\nVALUES (?)'''",
        'Q = f"DELETE FROM {table}"',
    ],
)
def test_the_check_finds_sql(source: str) -> None:
    assert sql_offences(source) != []


@pytest.mark.parametrize(
    "source",
    [
        'repo.git.execute(["git", "check-ignore", "-q", path])',
        '"""Select the file from the list, then update the set of tables."""',
        'text = "CREATE a note for each subject"',
    ],
)
def test_the_check_lets_other_code_be(source: str) -> None:
    assert sql_offences(source) == []
