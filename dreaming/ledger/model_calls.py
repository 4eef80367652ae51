"""`model_calls`: one row per model call (run, stage, unit, tokens, seconds, error)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from dreaming.ledger.connection import Ledger


@dataclass(frozen=True, slots=True)
class Call:
    run_id: str | None
    """A run already in `runs`, or None for a call outside any run."""
    stage: str
    unit: str | None
    model: str
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    seconds: float
    error: str | None
    at: str


class StageUsage(TypedDict):
    """One stage's model calls summed: the run report's table and, as is, the
    `model_usage` values of `dreaming status --json`."""

    calls: int
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    seconds: float
    errors: int


def put(ledger: Ledger, call: Call) -> None:
    ledger.db.execute(
        "INSERT INTO model_calls(run_id, stage, unit, model, prompt_tokens, cached_tokens, "
        "generated_tokens, seconds, error, at) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            call.run_id,
            call.stage,
            call.unit,
            call.model,
            call.prompt_tokens,
            call.cached_tokens,
            call.generated_tokens,
            call.seconds,
            call.error,
            call.at,
        ),
    )


def usage(ledger: Ledger, run_id: str | None = None) -> dict[str, StageUsage]:
    """Per-stage totals of model calls (of one run, or of all time), by stage name."""
    where, args = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
    return {
        row[0]: {
            "calls": row[1],
            "prompt_tokens": row[2] or 0,
            "cached_tokens": row[3] or 0,
            "generated_tokens": row[4] or 0,
            "seconds": round(row[5] or 0.0, 3),
            "errors": row[6] or 0,
        }
        for row in ledger.db.execute(
            "SELECT stage, COUNT(*), SUM(prompt_tokens), SUM(cached_tokens), "
            "SUM(generated_tokens), SUM(seconds), SUM(error IS NOT NULL) "
            f"FROM model_calls {where} GROUP BY stage ORDER BY stage",
            args,
        )
    }
