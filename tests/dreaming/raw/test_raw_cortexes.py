"""Cortexes Raw Markdown captures."""

from __future__ import annotations

from pathlib import Path

from dreaming.raw import read_transcript
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "cortexes" / "2025" / "03"


def test_session_with_audit_before_frontmatter_and_distilled_marker() -> None:
    result = read_transcript(FIX / "14" / "091245_session_dreaming.md")
    assert result.source == "cortexes"
    [conv] = result.conversations
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]
    assert conv.messages[1].text == (
        "Let me check the current value.\n\n"
        "[tool: Bash — grep -rn DEBOUNCE watcher/]\n[tool result: 1 line]\n\n"
        "Half a second of quiet is enough."
    )
    assert conv.messages[3].text.startswith(
        "[tool: Edit — watcher/loop.py]\n[tool result: 2 lines]"
    )
    assert conv.meta["distilled"] == "2025-03-15 → articles/vault-watcher.md"
    assert conv.meta["repo"] == "dreaming"
    assert conv.created_at == "2025-03-14T09:12:45"
    assert not any("<!--" in m.text for m in conv.messages)


def test_audit_after_frontmatter_distilled_last_and_path_dates() -> None:
    [conv] = read_transcript(FIX / "15" / "180003_session_notes.md").conversations
    assert len(conv.messages) == 2
    assert (
        conv.messages[1].text == "The watcher now waits `debounce_ms` (default 500) before reading."
    )
    assert conv.meta["distilled"] == "2025-03-16 → skipped (already covered)"
    assert conv.created_at == "2025-03-15T18:00:03"  # from the folder and file name
    assert conv.meta["repo"] == "notes"


def test_distilled_marker_does_not_change_the_id(tmp_path: Path) -> None:
    src = FIX / "14" / "091245_session_dreaming.md"
    text = src.read_text()
    plain = text.replace("<!-- distilled: 2025-03-15 → articles/vault-watcher.md -->\n", "")
    dst = tmp_path / "2025" / "03" / "14" / src.name
    dst.parent.mkdir(parents=True)
    a = read_transcript(dst, plain.encode()).conversations[0]
    b = read_transcript(dst, text.encode()).conversations[0]
    assert a.source_id == b.source_id
    assert "distilled" not in a.meta
