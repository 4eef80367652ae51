"""`raw_files`: one row per file in Raw/, its watermark (size, mtime) and how reading it went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from dreaming.ledger.connection import Ledger

FileState = Literal["ok", "empty", "failed", "pending"]
"""ok: conversations stored; empty: none in it; failed: unreadable (a reason says why);
pending: still being written, read again next pass."""
FILE_STATES: tuple[FileState, ...] = get_args(FileState)


@dataclass(frozen=True, slots=True)
class RawFile:
    path: str
    """Vault-relative POSIX path."""
    size: int
    mtime_ns: int
    sha256: str
    source: str | None
    status: FileState
    reason: str | None
    conversations: int = 0
    redactions: int = 0
    controls: int = 0
    """Control characters removed from its text (dreaming.raw.controls)."""


def unread_since(row: RawFile | None, size: int, mtime_ns: int) -> bool:
    """The Raw watermark: whether a file of this size and mtime is to be read (again):
    new, changed since it was last read, or still pending. Ingest and the night's
    dry run ask the same question."""
    return row is None or row.status == "pending" or (row.size, row.mtime_ns) != (size, mtime_ns)


_COLUMNS = (
    "path, size, mtime_ns, sha256, source, status, reason, conversations, redactions, controls"
)


def every(ledger: Ledger) -> list[RawFile]:
    return [RawFile(*row) for row in ledger.db.execute(f"SELECT {_COLUMNS} FROM raw_files")]


def get(ledger: Ledger, path: str) -> RawFile | None:
    row = ledger.db.execute(f"SELECT {_COLUMNS} FROM raw_files WHERE path = ?", (path,)).fetchone()
    return None if row is None else RawFile(*row)


def put(ledger: Ledger, f: RawFile, now: str) -> None:
    ledger.db.execute(
        f"INSERT INTO raw_files({_COLUMNS}, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns, "
        "sha256=excluded.sha256, source=excluded.source, status=excluded.status, "
        "reason=excluded.reason, conversations=excluded.conversations, "
        "redactions=excluded.redactions, controls=excluded.controls, "
        "ingested_at=excluded.ingested_at",
        (
            f.path,
            f.size,
            f.mtime_ns,
            f.sha256,
            f.source,
            f.status,
            f.reason,
            f.conversations,
            f.redactions,
            f.controls,
            now,
        ),
    )


def move_watermark(ledger: Ledger, path: str, size: int, mtime_ns: int) -> None:
    """A touched but unchanged file: remember its new size and mtime, nothing else."""
    ledger.db.execute(
        "UPDATE raw_files SET mtime_ns = ?, size = ? WHERE path = ?", (mtime_ns, size, path)
    )


def delete(ledger: Ledger, path: str) -> None:
    ledger.db.execute("DELETE FROM raw_files WHERE path = ?", (path,))


def counts(ledger: Ledger) -> dict[FileState, int]:
    """How many files are in each state (states with none are absent)."""
    return {
        row[0]: row[1]
        for row in ledger.db.execute("SELECT status, COUNT(*) FROM raw_files GROUP BY status")
    }


def in_state(ledger: Ledger, state: FileState) -> list[RawFile]:
    """The files in `state`, by path."""
    return [
        RawFile(*row)
        for row in ledger.db.execute(
            f"SELECT {_COLUMNS} FROM raw_files WHERE status = ? ORDER BY path", (state,)
        )
    ]


def redactions(ledger: Ledger) -> int:
    """Secrets redacted across every file."""
    return int(
        ledger.db.execute("SELECT COALESCE(SUM(redactions), 0) FROM raw_files").fetchone()[0]
    )


def controls(ledger: Ledger) -> int:
    """Control characters removed across every file."""
    return int(ledger.db.execute("SELECT COALESCE(SUM(controls), 0) FROM raw_files").fetchone()[0])
