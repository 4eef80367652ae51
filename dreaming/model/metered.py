"""Accounting and budgets around any TextModel.

The ledger is the pipeline's; this module hands it one `CallRecord` per call through
`on_call` and refuses to *start* a call once the run's budget is spent, by raising
`BudgetExhausted` that the pipeline catches at a unit boundary (the rest resumes
next run). A call already running is never cut short: its answer is paid for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dreaming.errors import ModelError
from dreaming.model.base import Completion, ModelCallError, TextModel, Usage, WrappedModel
from dreaming.model.constraint import Constraint


class BudgetExhausted(ModelError):
    """This run may start no more model calls; not a failure of the unit."""


@dataclass(frozen=True)
class Budget:
    max_calls: int | None = None
    max_seconds: float | None = None
    """Model seconds (summed call durations), not wall time: idle time is free."""

    def check(self, calls: int, seconds: float) -> None:
        if self.max_calls is not None and calls >= self.max_calls:
            raise BudgetExhausted(
                f"model budget spent: {calls} of {self.max_calls} calls this run; "
                "the remaining units run next time (raise max_model_calls to do more)"
            )
        if self.max_seconds is not None and seconds >= self.max_seconds:
            raise BudgetExhausted(
                f"model budget spent: {seconds:.0f} of {self.max_seconds:.0f} model seconds "
                "this run; the remaining units run next time (raise max_model_seconds)"
            )


@dataclass(frozen=True)
class CallRecord:
    stage: str
    usage: Usage
    ok: bool
    error: str | None = None
    unit: str | None = None
    model: str = ""


@dataclass
class StageTotals:
    calls: int = 0
    failures: int = 0
    usage: Usage = field(default_factory=Usage)


class MeteredModel(WrappedModel):
    """Wraps a TextModel: budget check before, `on_call(CallRecord)` after every call."""

    def __init__(
        self,
        inner: TextModel,
        *,
        budget: Budget | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
    ) -> None:
        super().__init__(inner)
        self.budget = budget or Budget()
        self.on_call = on_call
        self.calls = 0
        self.seconds = 0.0
        self.totals: dict[str, StageTotals] = {}
        self._lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self.inner.spec

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        with self._lock:
            self.budget.check(self.calls, self.seconds)
            self.calls += 1
        started = time.perf_counter()
        try:
            completion = self.inner.complete(stage, system, user, unit=unit, constraint=constraint)
        except ModelError as e:
            usage = e.usage if isinstance(e, ModelCallError) and e.usage else None
            # A failed call still spent time (a timeout, a hung server): charge it.
            usage = usage or Usage(seconds=time.perf_counter() - started)
            self._record(CallRecord(stage, usage, False, str(e), unit, self.spec))
            raise
        self._record(CallRecord(stage, completion.usage, True, None, unit, self.spec))
        return completion

    def _record(self, record: CallRecord) -> None:
        with self._lock:
            self.seconds += record.usage.seconds
            totals = self.totals.setdefault(record.stage, StageTotals())
            totals.calls += 1
            totals.failures += 0 if record.ok else 1
            totals.usage = totals.usage + record.usage
        if self.on_call is not None:
            self.on_call(record)
