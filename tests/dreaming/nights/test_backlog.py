"""The backlog as `status` and the run report say it: read from a real ledger."""

from __future__ import annotations

from dataclasses import replace

from dreaming.config import Settings
from dreaming.ledger import Ledger, conversations, model_calls, runs, work
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


def a_night(ledger: Ledger, run_id: str, pace: RunPace, **reading: float) -> None:
    """A night that took `pace` out of the backlog, its model calls spending `reading`
    seconds a stage (the rest of its model time went to the stages that write)."""
    runs.put(ledger, Run(run_id, "night", NOW, None, "running"))
    runs.record_pace(ledger, run_id, pace)
    for stage, seconds in reading.items():
        call = model_calls.Call(run_id, stage, "u", "m", 0, 0, 0, seconds, None, NOW)
        model_calls.put(ledger, call)


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
    # Two nights took 10 conversations, 400 messages, in 1,800 s of model time, 600 s of
    # it reading (SEGMENT, EXTRACT): 1.5 s a message read, 120 s a conversation written.
    a_night(ledger, "n1", RunPace(4, 100, 450.0, 500.0, 40), segment=100.0, extract=50.0)
    a_night(ledger, "n2", RunPace(6, 300, 1350.0, 1500.0, 120), segment=450.0)
    settings = replace(Settings(vault=vault.root), schedule="03:00", night_ends="03:20")
    found = backlog(ledger, settings)
    # 600 messages read and 6 conversations written: 900 + 720 s of model time; on the
    # clock at the nights' 2,000 s for 1,800: 1,800 s, two nights of 20 minutes.
    assert found.estimate.model_seconds == 1620.0
    assert found.estimate.wall_seconds == 1800.0
    assert found.estimate.nights == 2
    text = described(found)
    assert "about 27 min of model time" in text
    assert "about 2 nights of 03:00-03:20" in text
    assert "the last 2 nights" in text
    assert "1.5 s of model time to read a message, 120 s to write up a conversation" in text


def test_a_nights_reading_is_its_segment_and_extract_calls(vault: Vault, ledger: Ledger) -> None:
    a_night(ledger, "n1", RunPace(2, 50, 100.0, 110.0, 9), segment=20.0, extract=10.0,
            synthesize=70.0)  # fmt: skip
    assert [p.reading_seconds for p in runs.measured(ledger)] == [30.0]
    assert runs.pace_of(ledger, "n1") == RunPace(2, 50, 100.0, 110.0, 9, 30.0)


def test_long_conversations_weigh_by_their_messages_only_in_the_reading(
    vault: Vault, ledger: Ledger
) -> None:
    # A night that spent all its time writing: the length of what waits costs nothing.
    a_night(ledger, "n1", RunPace(2, 20, 100.0, 100.0, 9), synthesize=100.0)
    conversation(ledger, "long", "2025-01-01T00:00:00Z", 5_000)
    found = backlog(ledger, Settings(vault=vault.root))
    assert found.estimate.model_seconds == 50.0


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
