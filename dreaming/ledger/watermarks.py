"""Named watermarks: how far a source or stage has got."""

from __future__ import annotations

from dreaming.ledger.connection import Ledger


def get(ledger: Ledger, name: str) -> str | None:
    row = ledger.db.execute("SELECT value FROM watermarks WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def put(ledger: Ledger, name: str, value: str, now: str) -> None:
    ledger.db.execute(
        "INSERT INTO watermarks(name, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET value = excluded.value, "
        "updated_at = excluded.updated_at",
        (name, value, now),
    )
