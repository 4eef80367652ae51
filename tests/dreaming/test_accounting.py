from __future__ import annotations

import pytest

from dreaming.accounting import metered
from dreaming.checks.status import status
from dreaming.config import load_settings
from dreaming.errors import LedgerError, ModelError
from dreaming.ledger import Ledger, runs
from dreaming.model import BudgetExhausted
from dreaming.vault import Vault
from tests.support import Answer, ScriptedModelFactory


def extract(user: str, text: str) -> Answer:
    return Answer("extract", user, text, system="S")


@pytest.fixture
def run1(ledger: Ledger) -> str:
    runs.put(ledger, runs.Run("run1", "night", "2026-01-01T03:00:00+00:00", None, "running"))
    return "run1"


def test_every_call_is_recorded_against_its_run_and_stage(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, run1: str
) -> None:
    answers = scripted_model([extract("a", "Alpha"), extract("b", "Beta")])
    model = metered(answers, load_settings(vault.root), ledger, run1)
    model.complete("extract", "S", "a", unit="chunk-1")
    model.complete("extract", "S", "b", unit="chunk-2")
    rows = ledger.db.execute("SELECT run_id, stage, unit FROM model_calls ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [
        ("run1", "extract", "chunk-1"),
        ("run1", "extract", "chunk-2"),
    ]
    assert status(ledger)["model_usage"]["extract"]["calls"] == 2


def test_a_failed_call_is_recorded_with_its_error(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, run1: str
) -> None:
    model = metered(scripted_model([]), load_settings(vault.root), ledger, run1)
    with pytest.raises(ModelError, match="extract"):
        model.complete("extract", "S", "never recorded")
    error = ledger.db.execute("SELECT error FROM model_calls").fetchone()[0]
    assert "extract" in error
    assert status(ledger)["model_usage"]["extract"]["errors"] == 1


def test_the_budget_from_the_settings_stops_the_next_call(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, run1: str
) -> None:
    answers = scripted_model([extract("a", "Alpha"), extract("b", "Beta")])
    settings = load_settings(vault.root, max_model_calls=1)
    model = metered(answers, settings, ledger, run1)
    model.complete("extract", "S", "a")
    with pytest.raises(BudgetExhausted, match="max_model_calls"):
        model.complete("extract", "S", "b")
    assert ledger.db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0] == 1


def test_a_call_against_a_run_not_in_the_ledger_is_refused(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    answers = scripted_model([extract("a", "A")])
    model = metered(answers, load_settings(vault.root), ledger, "nope")
    with pytest.raises(LedgerError, match="FOREIGN KEY"):
        model.complete("extract", "S", "a")
