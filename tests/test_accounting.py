from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from dreaming.accounting import metered
from dreaming.config import load_settings
from dreaming.ledger import Ledger, runs
from dreaming.model import BudgetExhausted, load
from dreaming.status import status
from dreaming.vault import Vault


def scripted(tmp_path: Path, *answers: tuple[str, str, str]) -> str:
    path = tmp_path / "answers.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for stage, user, text in answers:
            f.write(json.dumps({"stage": stage, "system": "S", "user": user, "text": text}) + "\n")
    return f"scripted:{path}"


@pytest.fixture
def run1(ledger: Ledger) -> str:
    runs.put(ledger, runs.Run("run1", "night", "2026-01-01T03:00:00+00:00", None, "running"))
    return "run1"


def test_every_call_is_recorded_against_its_run_and_stage(
    vault: Vault, ledger: Ledger, tmp_path: Path, run1: str
) -> None:
    spec = scripted(tmp_path, ("extract", "a", "Alpha"), ("extract", "b", "Beta"))
    model = metered(load(spec), load_settings(vault.root), ledger, run1)
    model.complete("extract", "S", "a", unit="chunk-1")
    model.complete("extract", "S", "b", unit="chunk-2")
    rows = ledger.db.execute("SELECT run_id, stage, unit FROM model_calls ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [
        ("run1", "extract", "chunk-1"),
        ("run1", "extract", "chunk-2"),
    ]
    assert status(ledger)["model_usage"]["extract"]["calls"] == 2


def test_a_failed_call_is_recorded_with_its_error(
    vault: Vault, ledger: Ledger, tmp_path: Path, run1: str
) -> None:
    model = metered(load(scripted(tmp_path)), load_settings(vault.root), ledger, run1)
    with pytest.raises(Exception, match="extract"):
        model.complete("extract", "S", "never recorded")
    error = ledger.db.execute("SELECT error FROM model_calls").fetchone()[0]
    assert "extract" in error
    assert status(ledger)["model_usage"]["extract"]["errors"] == 1


def test_the_budget_from_the_settings_stops_the_next_call(
    vault: Vault, ledger: Ledger, tmp_path: Path, run1: str
) -> None:
    spec = scripted(tmp_path, ("extract", "a", "Alpha"), ("extract", "b", "Beta"))
    settings = load_settings(vault.root, max_model_calls=1)
    model = metered(load(spec), settings, ledger, run1)
    model.complete("extract", "S", "a")
    with pytest.raises(BudgetExhausted, match="max_model_calls"):
        model.complete("extract", "S", "b")
    assert ledger.db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0] == 1


def test_a_call_against_a_run_not_in_the_ledger_is_refused(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    model = metered(
        load(scripted(tmp_path, ("extract", "a", "A"))), load_settings(vault.root), ledger, "nope"
    )
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        model.complete("extract", "S", "a")
