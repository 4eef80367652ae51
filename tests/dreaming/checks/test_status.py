"""`dreaming status --json` has exactly the keys its TypedDicts declare."""

from __future__ import annotations

import json
import os
from typing import Any

from click.testing import CliRunner

from dreaming.accounting import metered
from dreaming.checks.status import (
    BacklogDoc,
    FileNoteDoc,
    FilesDoc,
    ReclaimableDoc,
    RunDoc,
    SourceDoc,
    StatusDoc,
)
from dreaming.config import load_settings
from dreaming.ledger import Ledger, runs
from dreaming.ledger.model_calls import StageUsage
from dreaming.model import load
from dreaming.vault import Vault
from dreaming.vault.lock import run_lock
from stages.jobs.ingest import ingest
from tests.support import raw_note
from watcher.cli import cli


def keys(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


def busy_vault(vault: Vault, ledger: Ledger) -> None:
    """A vault where every part of the document has something in it."""
    talk = raw_note(("user", "How do I keep bread?"), ("assistant", "Freeze it."))
    (vault.raw / "old").mkdir()
    (vault.raw / "old" / "bread.md").write_text(talk)
    os.utime(vault.raw / "old" / "bread.md", (1_000_000_000, 1_000_000_000))  # reclaimable
    (vault.raw / "new").mkdir()
    (vault.raw / "new" / "bread.md").write_text(talk)  # kept: written moments ago
    (vault.raw / "bread.md").write_text(talk + "## user\n\nAnd rolls?\n\n")
    (vault.raw / "bad.json").write_text("{not json")
    ingest(vault, ledger)
    runs.put(ledger, runs.Run("n1", "night", "2026-01-01T03:00:00+00:00", None, "running"))
    answers = vault.root.parent / "answers.jsonl"
    answers.write_text(json.dumps({"stage": "extract", "system": "S", "user": "a", "text": "A"}))
    model = metered(load(f"scripted:{answers}"), load_settings(vault.root), ledger, "n1")
    model.complete("extract", "S", "a")


def test_the_status_document_has_the_declared_keys(vault: Vault, ledger: Ledger) -> None:
    busy_vault(vault, ledger)
    result = CliRunner().invoke(cli, ["status", "--vault", str(vault.root), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert set(doc) == keys(StatusDoc)
    assert set(doc["files"]) == keys(FilesDoc)
    assert {k for s in doc["sources"].values() for k in s} == keys(SourceDoc)
    assert {k for f in doc["failed"] for k in f} == keys(FileNoteDoc)
    assert {k for r in doc["reclaimable"] for k in r} == keys(ReclaimableDoc)
    assert {k for r in doc["reclaim_kept"] for k in r} == keys(FileNoteDoc)
    assert set(doc["last_run"]) == keys(RunDoc)
    assert {k for u in doc["model_usage"].values() for k in u} == keys(StageUsage)
    assert set(doc["backlog_estimate"]) == keys(BacklogDoc)


def test_only_what_the_command_reads_outside_the_ledger_is_optional() -> None:
    assert StatusDoc.__optional_keys__ == frozenset(
        {
            "vault",
            "policy_problems",
            "watcher",
            "reclaimable",
            "reclaim_kept",
            "backlog_estimate",
            "git_leaks",
        }
    )


def test_status_says_the_backlog_has_no_estimate_before_any_night_measured_one(
    vault: Vault, ledger: Ledger
) -> None:
    busy_vault(vault, ledger)
    result = CliRunner().invoke(cli, ["status", "--vault", str(vault.root)])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "Backlog: 1 conversation not yet synthesized (3 messages), newest first." in flat
    assert "No night has measured its pace yet, so there is no estimate yet" in flat
    doc = json.loads(
        CliRunner().invoke(cli, ["status", "--vault", str(vault.root), "--json"]).output
    )
    estimate = doc["backlog_estimate"]
    assert (estimate["conversations"], estimate["messages"]) == (1, 3)
    assert (estimate["model_seconds"], estimate["nights"]) == (None, None)


def test_status_estimates_the_backlog_in_model_time_and_nights_from_the_last_nights(
    vault: Vault, ledger: Ledger
) -> None:
    busy_vault(vault, ledger)
    # One night took 10 conversations of 100 messages in 900 s of model time (all of it
    # writing: no call of its read), 1,000 s on the clock.
    runs.record_pace(ledger, "n1", runs.RunPace(10, 100, 900.0, 1000.0, 300))
    (vault.state / "config.toml").write_text('schedule = "03:00"\nnight_ends = "03:01"\n')
    result = CliRunner().invoke(cli, ["status", "--vault", str(vault.root), "--json"])
    estimate = json.loads(result.output)["backlog_estimate"]
    assert estimate["model_seconds"] == 90.0, "1 conversation written at 90 s"
    assert estimate["nights"] == 2, "1,000 s on the clock for 900 s of model time: 100 s"
    assert estimate["seconds_a_conversation"] == 90.0
    assert estimate["measured_nights"] == 1
    shown = CliRunner().invoke(cli, ["status", "--vault", str(vault.root)]).output
    flat = " ".join(shown.split())
    assert (
        "At the pace of the last night (0.0 s of model time to read a message, 90 s to "
        "write up a conversation)" in flat
    )
    assert "about 90 s of model time, about 2 nights of 03:00-03:01." in flat


def test_a_night_killed_mid_run_is_said_to_have_stopped_not_to_run(
    vault: Vault, ledger: Ledger
) -> None:
    runs.put(ledger, runs.Run("killed", "night", "2026-03-02T03:00:00+00:00", None, "running"))
    shown = CliRunner().invoke(cli, ["status", "--vault", str(vault.root)]).output
    flat = " ".join(shown.split())
    assert "Last run: night killed at 2026-03-02T03:00:00+00:00: running" in flat
    assert "no dreaming process runs it any more" in flat
    assert json.loads(
        CliRunner().invoke(cli, ["status", "--vault", str(vault.root), "--json"]).output
    )["last_run"]["abandoned"]


def test_a_night_still_running_is_not_said_to_have_stopped(vault: Vault, ledger: Ledger) -> None:
    runs.put(ledger, runs.Run("live", "night", "2026-03-02T03:00:00+00:00", None, "running"))
    with run_lock(vault):
        shown = CliRunner().invoke(cli, ["status", "--vault", str(vault.root)]).output
    assert "no dreaming process runs it" not in " ".join(shown.split())
