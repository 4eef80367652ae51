"""`write_journal`: files dreaming is about to write and has not committed yet.

An entry is made before the bytes reach disk and cleared by the commit that carries
them, so one still here after a process died names bytes of dreaming's that no commit
holds: the next night or watcher start commits them as dreaming's
(`dreaming.vault.unfinished`), never as the person's edit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dreaming.errors import LedgerError
from dreaming.ledger.connection import SYNCHRONOUS, Ledger


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    """Vault-relative, POSIX."""
    sha256: str
    """Of the exact bytes about to be written there."""
    run_id: str
    """The run whose commit will carry them (`init` for `dreaming init`)."""
    at: str


def record(ledger: Ledger, entries: Iterable[Entry]) -> None:
    """Journal `entries`, on disk when this returns: a power cut right after the write
    that follows must not find the file changed and no entry saying it is ours.

    Its own transaction, synced to disk (SQLite's `synchronous = FULL` for it), so it
    is never called inside another one, whose commit could come after the write."""
    rows = [(e.path, e.sha256, e.run_id, e.at) for e in entries]
    if not rows:
        return
    if ledger.db.in_transaction:
        raise LedgerError(
            f"{ledger.path}: a write was journaled inside a transaction; please report this"
        )
    ledger.db.execute("PRAGMA synchronous = FULL")
    try:
        with ledger.transaction():
            ledger.db.executemany(
                "INSERT OR REPLACE INTO write_journal(path, sha256, run_id, written_at) "
                "VALUES (?, ?, ?, ?)",
                rows,
            )
    finally:
        ledger.db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")


def pending(ledger: Ledger) -> list[Entry]:
    """Every entry no commit has cleared, by path, oldest first."""
    return [
        Entry(*row)
        for row in ledger.db.execute(
            "SELECT path, sha256, run_id, written_at FROM write_journal "
            "ORDER BY path, written_at, sha256"
        )
    ]


def clear(ledger: Ledger, paths: Iterable[str], *, run_id: str | None = None) -> None:
    """Forget the entries of `paths` (vault-relative), only `run_id`'s when given."""
    with ledger.transaction():
        if run_id is None:
            ledger.db.executemany(
                "DELETE FROM write_journal WHERE path = ?", [(rel,) for rel in paths]
            )
        else:
            ledger.db.executemany(
                "DELETE FROM write_journal WHERE path = ? AND run_id = ?",
                [(rel, run_id) for rel in paths],
            )
