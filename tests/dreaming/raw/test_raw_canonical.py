"""Raw Markdown (source "raw"): the format a person writes by hand."""

from __future__ import annotations

from pathlib import Path

from dreaming.raw import read_transcript
from dreaming.transcript import content_id
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "raw"


def test_frontmatter_turns_and_fenced_heading() -> None:
    result = read_transcript(FIX / "debounce-note.md")
    assert result.source == "raw"
    [conv] = result.conversations
    assert [m.role for m in conv.messages] == ["user", "assistant", "system"]
    assert conv.title == "Choosing a debounce window"
    assert conv.created_at == "2025-03-14"
    assert conv.meta == {"source": "claude.ai"}
    assert conv.messages[1].timestamp == "2025-03-14T09:13:00Z"
    # `## user` inside a code fence is text, not a turn; the preamble is ignored.
    assert "this heading is inside a code block" in conv.messages[1].text
    assert not any("my own note" in m.text for m in conv.messages)


def test_without_frontmatter_id_is_when_it_began_and_first_user_message(
    tmp_path: Path,
) -> None:
    [conv] = read_transcript(FIX / "no-frontmatter.md").conversations
    began = conv.created_at or ""
    assert conv.source_id == content_id("raw", began, "Can I write a Raw note by hand?")
    grown = (FIX / "no-frontmatter.md").read_text() + "\n## user\n\nThanks!\n"
    [again] = read_transcript(tmp_path / "n.md", grown.encode()).conversations
    assert again.source_id == conv.source_id
    assert len(again.messages) == 3


def test_frontmatter_id_wins(tmp_path: Path) -> None:
    text = "---\nid: my-chat-42\n---\n## user\nhello\n## assistant\nhi\n"
    [conv] = read_transcript(tmp_path / "x.md", text.encode()).conversations
    assert conv.source_id == "my-chat-42"


def test_times_in_frontmatter_stay_text(tmp_path: Path) -> None:
    # YAML 1.1 would read 14:05:30 as the integer 50730.
    text = "---\ntitle: 14:05:30\n---\n## user\nq\n## assistant\na\n"
    [conv] = read_transcript(tmp_path / "t.md", text.encode()).conversations
    assert conv.title == "14:05:30"
