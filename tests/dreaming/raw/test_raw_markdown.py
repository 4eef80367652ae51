"""Plain Markdown chat logs: role labels in several styles, or blockquoted prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.raw import read_transcript
from dreaming.transcript import content_id
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "markdown"


def test_blockquoted_prompt_log() -> None:
    result = read_transcript(FIX / "prompt-log.md")
    assert result.source == "markdown"
    [conv] = result.conversations
    roles = [m.role for m in conv.messages]
    assert roles == ["user", "assistant"] * 4
    texts = [m.text for m in conv.messages]
    # The example quote in the overview is before "## Log" and is not a turn.
    assert texts[0].endswith("how do I keep a file watcher from reading half-copied files?")
    # A lazy continuation line belongs to the quoted prompt.
    assert texts[2] == "the sleep blocks the loop.\nwhat about asyncio?"
    # A reply cut off inside an unclosed fence does not swallow the next prompt.
    assert texts[6] == "thanks"
    assert conv.title == "how do I keep a file watcher from reading half-copied files?"
    assert conv.source_id == content_id("markdown", conv.created_at or "", texts[0])


@pytest.mark.parametrize(
    ("name", "first_user", "last_assistant"),
    [
        ("headings.md", "Should the ledger be SQLite or plain JSON files?",
         "Keep it in `PRAGMA user_version`."),
        ("bold.md", "What does `git gc --auto` do?", "Yes, git takes a lock."),
        ("plain.txt", "what is the default schedule?", "Yes, in Meta/schedule.md."),
    ],
)  # fmt: skip
def test_role_label_styles(name: str, first_user: str, last_assistant: str) -> None:
    result = read_transcript(FIX / name)
    assert result.source == "markdown"
    [conv] = result.conversations
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    assert conv.messages[0].text == first_user
    assert conv.messages[-1].text == last_assistant


def test_deeper_role_heading_stays_inside_the_reply() -> None:
    [conv] = read_transcript(FIX / "headings.md").conversations
    assert "#### User stories" in conv.messages[1].text


def test_growing_log_keeps_its_id(tmp_path: Path) -> None:
    text = (FIX / "bold.md").read_text()
    short = text.split("**User:** Is it safe")[0]
    a = read_transcript(tmp_path / "log.md", short.encode()).conversations[0]
    b = read_transcript(tmp_path / "log.md", text.encode()).conversations[0]
    assert a.source_id == b.source_id
    assert len(a.messages) == 2
    assert len(b.messages) == 4
