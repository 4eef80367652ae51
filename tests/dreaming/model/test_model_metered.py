"""Accounting (one CallRecord per call, per-stage totals) and budgets that stop cleanly."""

from __future__ import annotations

import pytest

from dreaming.errors import ModelError
from dreaming.model import (
    Budget,
    BudgetExhausted,
    CallRecord,
    Completion,
    MeteredModel,
    ModelCallError,
    TextModel,
    Usage,
)
from dreaming.model.constraint import Choice, Constraint


class FakeModel:
    spec = "fake:1"
    load_seconds: float | None = 2.5

    def __init__(self, seconds: float = 1.0, fail_on: str | None = None) -> None:
        self.seconds = seconds
        self.fail_on = fail_on
        self.calls: list[str] = []
        self.constraints: list[Constraint | None] = []

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        self.calls.append(user)
        self.constraints.append(constraint)
        if user == self.fail_on:
            raise ModelCallError(f"model returned nothing for stage {stage}", Usage(10, 0, 0.5))
        if user == "crash":
            raise ModelError("no model server at http://x")
        return Completion(
            "ok", Usage(prompt_tokens=10, generated_tokens=2, seconds=self.seconds, cached_tokens=4)
        )

    def unload(self) -> None:
        pass


def test_every_call_is_recorded_with_stage_unit_and_usage() -> None:
    records: list[CallRecord] = []
    model = MeteredModel(FakeModel(), on_call=records.append)
    model.complete("extract", "S", "a", unit="chunk:1")
    model.complete("judge", None, "b")
    assert [(r.stage, r.unit, r.ok, r.model) for r in records] == [
        ("extract", "chunk:1", True, "fake:1"),
        ("judge", None, True, "fake:1"),
    ]
    assert records[0].usage == Usage(10, 2, 1.0, 4)
    assert model.totals["extract"].usage.cached_tokens == 4
    assert model.calls == 2


def test_a_metered_model_is_a_text_model_that_passes_on_the_load_time() -> None:
    model: TextModel = MeteredModel(FakeModel())
    assert isinstance(model, TextModel)
    assert model.load_seconds == 2.5
    assert model.complete("extract", None, "a", unit="chunk:1").text == "ok"


def test_failures_are_recorded_then_raised() -> None:
    records: list[CallRecord] = []
    model = MeteredModel(FakeModel(fail_on="empty"), on_call=records.append)
    with pytest.raises(ModelError, match="nothing"):
        model.complete("extract", None, "empty", unit="u7")
    with pytest.raises(ModelError, match="no model server"):
        model.complete("extract", None, "crash")
    assert [r.ok for r in records] == [False, False]
    assert records[0].error is not None
    assert "nothing" in records[0].error
    assert records[0].usage.prompt_tokens == 10
    assert records[1].usage.seconds >= 0.0
    assert model.totals["extract"].failures == 2


def test_call_budget_refuses_before_starting_the_call() -> None:
    inner = FakeModel()
    model = MeteredModel(inner, budget=Budget(max_calls=2))
    model.complete("s", None, "1")
    model.complete("s", None, "2")
    with pytest.raises(BudgetExhausted, match="2 of 2 calls"):
        model.complete("s", None, "3")
    assert inner.calls == ["1", "2"]  # the third never reached the model


def test_seconds_budget_counts_model_time() -> None:
    inner = FakeModel(seconds=4.0)
    model = MeteredModel(inner, budget=Budget(max_seconds=10))
    for i in range(3):
        model.complete("s", None, str(i))  # 0, 4, 8 seconds spent before each: all start
    with pytest.raises(BudgetExhausted, match="model seconds"):
        model.complete("s", None, "late")
    assert len(inner.calls) == 3


def test_budget_exhausted_is_a_model_error_and_not_a_call() -> None:
    records: list[CallRecord] = []
    model = MeteredModel(FakeModel(), budget=Budget(max_calls=0), on_call=records.append)
    with pytest.raises(ModelError):
        model.complete("s", None, "x")
    assert records == []


def test_no_budget_means_no_limit() -> None:
    model = MeteredModel(FakeModel(seconds=1000))
    for i in range(50):
        model.complete("s", None, str(i))
    assert model.totals["s"].calls == 50


def test_the_constraint_reaches_the_model() -> None:
    inner = FakeModel()
    MeteredModel(inner).complete("judge", None, "q", constraint=Choice(("ok", "no")))
    assert inner.constraints == [Choice(("ok", "no"))]
