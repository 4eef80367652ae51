"""pi coding agent sessions: legacy linear files and v2+ tree files."""

from __future__ import annotations

import json
from pathlib import Path

from dreaming.raw import read_transcript
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "pi"


def test_legacy_linear_session() -> None:
    result = read_transcript(FIX / "legacy.jsonl")
    assert result.source == "pi"
    [conv] = result.conversations
    assert conv.source_id == "d1e2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a"
    assert [m.role for m in conv.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "user", "user", "assistant",
    ]  # fmt: skip
    texts = [m.text for m in conv.messages]
    assert texts[1] == "Reading it.\n[tool: read — watcher/loop.py]"  # thinking dropped
    assert texts[2] == "[tool result: 3 lines]"
    assert texts[4] == "[bash: ls watcher → 4 lines]"
    assert texts[5] == "[image]\nwhy does this trace show two reads?"
    # The aborted empty reply and the compaction recap are not messages.
    assert not any("Context Checkpoint" in t for t in texts)
    assert conv.title == "read watcher/loop.py and explain the debounce"
    assert conv.created_at == "2025-12-01T10:00:05.000Z"
    assert conv.updated_at == "2025-12-01T10:02:20.000Z"
    assert conv.meta["cwd"] == "/home/ada/src/dreaming"


def test_tree_session_follows_branch_ending_at_last_entry() -> None:
    [conv] = read_transcript(FIX / "tree.jsonl").conversations
    assert conv.source_id == "f0e1d2c3-b4a5-4968-8776-655443322110"
    texts = [m.text for m in conv.messages]
    assert texts == [
        "name three ways to detect a half-copied file",
        "Size stable over time, a trailing newline, or a lock file.",
        "go with size-stable instead",
        "Poll the size twice, 500 ms apart; equal sizes mean done.\n[tool: edit — watcher/loop.py]",
        "[tool result: error — Edit failed: oldText not found]",
    ]
    assert conv.title == "Detecting half-copied files"  # from session_info


def test_tree_without_header_id_gets_content_id(tmp_path: Path) -> None:
    lines = (FIX / "tree.jsonl").read_text().splitlines()[1:]
    data = ("\n".join(lines) + "\n").encode()
    a = read_transcript(tmp_path / "s.jsonl", data).conversations[0]
    b = read_transcript(tmp_path / "t.jsonl", data).conversations[0]
    assert a.source_id == b.source_id
    assert len(a.source_id) == 32


def test_an_epoch_time_past_a_float_is_no_time(tmp_path: Path) -> None:
    entry = {"type": "message", "message": {"role": "user", "content": "hi", "timestamp": 10**400}}
    data = (json.dumps({"type": "session", "id": "s1"}) + "\n" + json.dumps(entry) + "\n").encode()
    [conv] = read_transcript(tmp_path / "s.jsonl", data).conversations
    assert conv.messages[0].text == "hi"
    assert conv.messages[0].timestamp is None
