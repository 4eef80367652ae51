"""Model calls into the ledger, and the per-run budget from the settings.

Every call the pipeline makes goes through `metered(...)`: the budget is
checked before a call starts, and each finished or failed call becomes one
`model_calls` row (run, stage, unit, tokens, seconds, cache hits, error),
which `dreaming status` and the run report total per stage.
"""

from __future__ import annotations

from collections.abc import Callable

from dreaming.clock import utc_now
from dreaming.config import Settings
from dreaming.ledger import Ledger, model_calls
from dreaming.model import Budget, CallRecord, MeteredModel, TextModel


def ledger_recorder(ledger: Ledger, run_id: str | None) -> Callable[[CallRecord], None]:
    def record(call: CallRecord) -> None:
        u = call.usage
        model_calls.put(
            ledger,
            model_calls.Call(
                run_id=run_id,
                stage=call.stage,
                unit=call.unit,
                model=call.model,
                prompt_tokens=u.prompt_tokens,
                cached_tokens=u.cached_tokens,
                generated_tokens=u.generated_tokens,
                seconds=u.seconds,
                error=call.error,
                at=utc_now(),
            ),
        )

    return record


def metered(model: TextModel, settings: Settings, ledger: Ledger, run_id: str) -> MeteredModel:
    """`model` with this run's budget; every call is recorded against `run_id` (in `runs`)."""
    budget = Budget(max_calls=settings.max_model_calls, max_seconds=settings.max_model_seconds)
    return MeteredModel(model, budget=budget, on_call=ledger_recorder(ledger, run_id))
