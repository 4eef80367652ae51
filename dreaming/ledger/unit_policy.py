"""`unit_policy`: the version of each Meta page a stage's unit was last done under.

A unit's input hash says whether it must be done again; this says which policy it
was done under, so `synthesize --since-policy PAGE` can pick exactly the units an
edited page has not yet been applied to.
"""

from __future__ import annotations

from collections.abc import Mapping

from dreaming.ledger.connection import Ledger


def record(ledger: Ledger, stage: str, unit: str, pages: Mapping[str, str]) -> None:
    """`unit` of `stage` was just done under these pages (name -> checksum)."""
    ledger.db.executemany(
        "INSERT INTO unit_policy(stage, unit, page, checksum) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(stage, unit, page) DO UPDATE SET checksum = excluded.checksum",
        [(stage, unit, page, digest) for page, digest in pages.items()],
    )


def ran_under(ledger: Ledger, stage: str, page: str) -> dict[str, str]:
    """unit -> the checksum of `page` the unit was last done under (units never done
    under a recorded version are absent)."""
    rows = ledger.db.execute(
        "SELECT unit, checksum FROM unit_policy WHERE stage = ? AND page = ?", (stage, page)
    ).fetchall()
    return {unit: digest for unit, digest in rows}
