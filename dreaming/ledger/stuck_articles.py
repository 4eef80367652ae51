"""`stuck_articles`: articles no edit can pass the write gate on, each reported once.

A row says which bytes of the article were found stuck and which run told the person
what to fix: the nights after it neither ask the model about the article nor report it
again until its bytes change.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreaming.ledger.connection import Ledger


@dataclass(frozen=True, slots=True)
class Stuck:
    stem: str
    checksum: str
    """Of the article's bytes as found."""
    reason: str
    """One line for the person: why, and what to fix."""
    run_id: str
    at: str


def note(ledger: Ledger, stuck: Stuck) -> bool:
    """Remember `stuck`; True when these bytes of the article were not noted before
    (the run then reports it), False when an earlier run already did."""
    row = ledger.db.execute(
        "SELECT checksum FROM stuck_articles WHERE stem = ?", (stuck.stem,)
    ).fetchone()
    if row is not None and row[0] == stuck.checksum:
        return False
    ledger.db.execute(
        "INSERT INTO stuck_articles(stem, checksum, reason, run_id, noted_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(stem) DO UPDATE SET checksum = excluded.checksum, "
        "reason = excluded.reason, run_id = excluded.run_id, noted_at = excluded.noted_at",
        (stuck.stem, stuck.checksum, stuck.reason, stuck.run_id, stuck.at),
    )
    return True


def noted(ledger: Ledger, stem: str) -> bool:
    """Whether `stem` is remembered as stuck (a read: most articles never are)."""
    row = ledger.db.execute("SELECT 1 FROM stuck_articles WHERE stem = ?", (stem,)).fetchone()
    return row is not None


def clear(ledger: Ledger, stem: str) -> None:
    """Forget `stem`: an edit can pass the gate on it now."""
    ledger.db.execute("DELETE FROM stuck_articles WHERE stem = ?", (stem,))


def of_run(ledger: Ledger, run_id: str) -> list[Stuck]:
    """The articles `run_id` found stuck and reported, by stem."""
    return [
        Stuck(*row)
        for row in ledger.db.execute(
            "SELECT stem, checksum, reason, run_id, noted_at FROM stuck_articles "
            "WHERE run_id = ? ORDER BY stem",
            (run_id,),
        )
    ]
