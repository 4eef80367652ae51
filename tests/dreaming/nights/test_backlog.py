"""The backlog as `status` and the run report say it: read from a real ledger."""

from __future__ import annotations

from dataclasses import replace

from dreaming.config import Settings
from dreaming.ledger import Ledger, conversations, runs, work
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.runs import Run, RunPace
from dreaming.nights.backlog import backlog, described
from dreaming.vault import Vault

NOW = "2026-03-02T03:00:00+00:00"


def conversation(ledger: Ledger, conv_id: str, updated: str, messages: int) -> None:
    conversations.put(
        ledger,
        NewConversation(conv_id, conv_id[:8], "raw", "Raw/a.md", None, None, None, updated,
                        messages, "sha"),
        NOW,
    )  # fmt: skip


def a_night(ledger: Ledger, run_id: str, pace: RunPace) -> None:
    runs.put(ledger, Run(run_id, "night", NOW, None, "running"))
    runs.record_pace(ledger, run_id, pace)


def test_with_no_measured_night_the_backlog_is_counted_and_the_estimate_refused(
    vault: Vault, ledger: Ledger
) -> None:
    conversation(ledger, "a", "2025-01-01T00:00:00Z", 10)
    conversation(ledger, "b", "2025-06-01T00:00:00Z", 30)
    found = backlog(ledger, Settings(vault=vault.root))
    assert (found.conversations, found.messages, found.held) == (2, 40, 0)
    assert found.estimate.nights is None
    text = described(found)
    assert "2 conversations not yet synthesized (40 messages), newest first" in text
    assert "no estimate yet" in text


def test_at_the_measured_pace_the_backlog_is_hours_of_model_time_and_nights(
    vault: Vault, ledger: Ledger
) -> None:
    for i in range(6):
        conversation(ledger, f"c{i}", f"2025-0{i + 1}-01T00:00:00Z", 100)
    # Two nights took 10 conversations, 400 messages, in 1,800 s of model time.
    a_night(ledger, "n1", RunPace(4, 100, 450.0, 500.0, 40))
    a_night(ledger, "n2", RunPace(6, 300, 1350.0, 1500.0, 120))
    settings = replace(Settings(vault=vault.root), schedule="03:00", night_ends="03:30")
    found = backlog(ledger, settings)
    # 600 messages at 4.5 s: 2,700 s of model time; at 5 s on the clock, 3,000 s: two
    # nights of 30 minutes.
    assert found.estimate.model_seconds == 2700.0
    assert found.estimate.nights == 2
    text = described(found)
    assert "about 45 min of model time" in text
    assert "about 2 nights of 03:00-03:30" in text
    assert "the last 2 nights" in text
    assert "180 s a conversation" in text


def test_since_a_date_the_older_conversations_wait_and_are_not_estimated(
    vault: Vault, ledger: Ledger
) -> None:
    conversation(ledger, "old", "2024-01-01T00:00:00Z", 50)
    conversation(ledger, "new", "2025-06-01T00:00:00Z", 10)
    a_night(ledger, "n1", RunPace(1, 10, 10.0, 10.0, 3))
    settings = replace(Settings(vault=vault.root), backlog_since="2025-01-01")
    found = backlog(ledger, settings)
    assert (found.conversations, found.messages, found.held) == (1, 10, 1)
    assert found.estimate.model_seconds == 10.0
    assert "1 older conversation waits until backlog_since (2025-01-01)" in described(found)


def test_an_empty_backlog_says_nothing(vault: Vault, ledger: Ledger) -> None:
    found = backlog(ledger, Settings(vault=vault.root))
    assert found.conversations == 0
    assert described(found) == ""
    assert work.backlog(ledger) == 0
