"""Format detection: by content, with the file name only as a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.raw import SOURCES, detect, read_transcript
from tests.support import FIXTURES

FIX = FIXTURES / "raw"

CASES = [
    ("claude-code/7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b.jsonl", "claude-code"),
    ("claude-code/summary-only.jsonl", "claude-code"),
    ("claude-code/snapshot-only.jsonl", "claude-code"),
    ("chatgpt/conversations.json", "chatgpt"),
    ("pi/legacy.jsonl", "pi"),
    ("pi/tree.jsonl", "pi"),
    ("codex/rollout-2025-12-28T12-18-30-019b64e5.jsonl", "codex"),
    ("aider/aider.chat.history.md", "aider"),
    ("markdown/prompt-log.md", "markdown"),
    ("markdown/headings.md", "markdown"),
    ("markdown/bold.md", "markdown"),
    ("markdown/plain.txt", "markdown"),
    ("cortexes/2025/03/14/091245_session_dreaming.md", "cortexes"),
    ("cortexes/2025/03/15/180003_session_notes.md", "cortexes"),
    ("raw/debounce-note.md", "raw"),
    ("raw/no-frontmatter.md", "raw"),
]


def test_every_source_has_a_fixture() -> None:
    assert set(SOURCES) == {source for _, source in CASES}


@pytest.mark.parametrize(("rel", "source"), CASES)
def test_detect_by_content_whatever_the_name(rel: str, source: str) -> None:
    head = (FIX / rel).read_bytes()[:65536]
    assert detect(FIX / rel, head) == source
    assert detect(Path("Raw/renamed.bin.txt"), head) == source


def test_detect_rejects_binary_and_empty() -> None:
    assert detect(Path("a.png"), b"\x89PNG\r\n\x1a\n\x00\x00") is None
    assert detect(Path("a.md"), b"") is None
    assert detect(Path("a.json"), b'{"hello": "world"}\n') is None


def test_cortexes_needs_no_audit_line_when_frontmatter_says_session(tmp_path: Path) -> None:
    text = "---\ndate: 2025-01-02\ntype: session\nrepo: r\n---\n### User\nq\n### Claude\na\n"
    result = read_transcript(tmp_path / "note.md", text.encode())
    assert result.source == "cortexes"
    assert [m.role for m in result.conversations[0].messages] == ["user", "assistant"]


def test_utf16_with_bom_is_text(tmp_path: Path) -> None:
    data = "## user\nhé\n## assistant\nok\n".encode("utf-16")
    result = read_transcript(tmp_path / "w.md", data)
    assert result.source == "raw"
    assert result.conversations[0].messages[0].text == "hé"


def test_turns_past_the_detection_head_are_still_found(tmp_path: Path) -> None:
    preamble = ("Notes without any turns. " * 40 + "\n\n") * 80  # > 64 KB before the first turn
    text = preamble + "Human: late question\n\nAssistant: late answer\n"
    result = read_transcript(tmp_path / "late.md", text.encode())
    assert result.source == "markdown"
    assert [m.text for m in result.conversations[0].messages] == ["late question", "late answer"]
