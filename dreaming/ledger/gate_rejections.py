"""`gate_rejections`: every edit the write gate refused, with its code, for the run report."""

from __future__ import annotations

from dataclasses import dataclass

from dreaming.ledger.connection import Ledger


@dataclass(frozen=True, slots=True)
class GateRejection:
    run_id: str
    stage: str
    unit: str
    stem: str
    """The article the edit was for."""
    code: str
    """The gate's machine-readable reason."""
    detail: str
    at: str


def record(ledger: Ledger, r: GateRejection) -> None:
    ledger.db.execute(
        "INSERT INTO gate_rejections(run_id, stage, unit, stem, code, detail, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (r.run_id, r.stage, r.unit, r.stem, r.code, r.detail, r.at),
    )


def of_run(ledger: Ledger, run_id: str) -> list[GateRejection]:
    """The run's rejections, in the order they happened."""
    return [
        GateRejection(*row)
        for row in ledger.db.execute(
            "SELECT run_id, stage, unit, stem, code, detail, at FROM gate_rejections "
            "WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
    ]
