"""`imported`: the history import's cursor, one row per source file or conversation copied
into Raw/ (and per ChatGPT export read to its end).

A row is written only once its copy is in place, so an import stopped at any point
resumes by skipping what a row matches and copying the rest again to the same target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dreaming.ledger.connection import Ledger

ImportKind = Literal["file", "conversation", "export"]
"""file: a source file copied as it is; conversation: one conversation of a ChatGPT export,
written as a file of its own; export: a ChatGPT export read to its end."""


@dataclass(frozen=True, slots=True)
class Imported:
    origin: str
    """A source file's absolute path, `chatgpt:<conversation id>` or `export:<path>`."""
    kind: ImportKind
    source: str
    """The reader the copy needs (claude-code, codex, pi, chatgpt, …)."""
    size: int
    mtime_ns: int
    """The source file's mtime when copied; 0 for a conversation."""
    digest: str | None
    """sha256 of a conversation's bytes; None for a file."""
    target: str
    """The vault-relative Raw/ path of the copy; "" for an export."""


_COLUMNS = "origin, kind, source, size, mtime_ns, digest, target"


def get(ledger: Ledger, origin: str) -> Imported | None:
    row = ledger.db.execute(
        f"SELECT {_COLUMNS} FROM imported WHERE origin = ?", (origin,)
    ).fetchone()
    return None if row is None else Imported(*row)


def owner(ledger: Ledger, target: str) -> str | None:
    """The origin of the copy at `target`, if an import made it."""
    row = ledger.db.execute("SELECT origin FROM imported WHERE target = ?", (target,)).fetchone()
    return None if row is None else str(row[0])


def put(ledger: Ledger, rows: Sequence[Imported], now: str) -> None:
    ledger.db.executemany(
        f"INSERT INTO imported({_COLUMNS}, imported_at) VALUES (?,?,?,?,?,?,?,?) "
        "ON CONFLICT(origin) DO UPDATE SET kind = excluded.kind, source = excluded.source, "
        "size = excluded.size, mtime_ns = excluded.mtime_ns, digest = excluded.digest, "
        "target = excluded.target, imported_at = excluded.imported_at",
        [(r.origin, r.kind, r.source, r.size, r.mtime_ns, r.digest, r.target, now) for r in rows],
    )
