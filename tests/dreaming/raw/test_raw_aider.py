"""Aider `.aider.chat.history.md`."""

from __future__ import annotations

from pathlib import Path

from dreaming.raw import read_transcript
from dreaming.transcript import content_id
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "aider" / "aider.chat.history.md"


def test_sessions_inputs_and_replies() -> None:
    result = read_transcript(FIX)
    assert result.source == "aider"
    first, _second = result.conversations
    assert [m.role for m in first.messages] == ["user", "assistant", "user", "user", "assistant"]
    texts = [m.text for m in first.messages]
    assert texts[0] == "Add a debounce setting to the watcher."
    # The SEARCH/REPLACE block becomes one line; aider's `>` console lines are gone.
    assert (
        texts[1]
        == "I'll add a `debounce_ms` setting and use it in the loop.\n\n[edit: watcher/loop.py]"
    )
    assert texts[2] == "[command: /add docs/settings.md]"
    # Consecutive `####` lines are one input (an empty typed line included).
    assert texts[3] == "Document it in the settings page,\n\nwith the default value."
    # A `####` heading the assistant wrote (no trailing double space) stays in the reply.
    assert texts[4].startswith("#### Notes\n\nThe default is 500 ms")
    assert texts[4].endswith("[edit: docs/settings.md — 4 lines]")
    assert not any("Tokens:" in t or "Applied edit" in t for t in texts)


def test_ids_dates_and_commands() -> None:
    first, second = read_transcript(FIX).conversations
    assert first.created_at == first.updated_at == "2025-03-14T09:12:45"
    assert first.source_id == content_id(
        "aider", "2025-03-14 09:12:45", "Add a debounce setting to the watcher."
    )
    # `/ask` carries a prompt; a bare `/quit` is dropped.
    assert [m.text for m in second.messages] == [
        "why 500 ms and not 1 s?",
        "Half a second covers a local copy; one second only adds latency.",
    ]
    assert second.title == "why 500 ms and not 1 s?"


def test_growing_history_keeps_session_ids(tmp_path: Path) -> None:
    data = FIX.read_bytes()
    cut = data[: data.index(b"# aider chat started at 2025-03-15")]
    before = read_transcript(tmp_path / "h.md", cut).conversations
    after = read_transcript(tmp_path / "h.md", data).conversations
    assert before[0].source_id == after[0].source_id
    assert len(after) == 2


def test_trimmed_trailing_spaces_still_read(tmp_path: Path) -> None:
    text = "\n".join(ln.rstrip() for ln in FIX.read_text().splitlines())
    first = read_transcript(tmp_path / "history.md", text.encode()).conversations[0]
    assert first.messages[0].text == "Add a debounce setting to the watcher."
