"""ChatGPT export (conversations.json)."""

from __future__ import annotations

import json
from pathlib import Path

from dreaming.raw import read_transcript
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "chatgpt" / "conversations.json"


def test_live_branch_only_with_placeholders() -> None:
    result = read_transcript(FIX)
    assert result.source == "chatgpt"
    first, _second = result.conversations
    assert first.source_id == "65f2a1b0-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
    assert first.title == "Sourdough hydration"
    assert [m.role for m in first.messages] == [
        "user", "assistant", "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
    texts = [m.text for m in first.messages]
    assert texts[1].startswith("Start around 70\u201375%")  # not the regenerated-away answer
    assert not any("Around 90%" in t for t in texts)
    assert texts[2] == "[image]\nAnd for this rye loaf?"
    assert texts[3] == "[tool: python — flour = 500]"
    assert texts[4] == "[tool result: 1 line]"
    # Thoughts dropped, citation marker removed.
    assert texts[5] == "Rye drinks more water: about 80%, so 400 g for 500 g flour."
    assert first.messages[0].timestamp == "2024-03-14T08:52:45.000Z"
    assert first.created_at == "2024-03-14T08:52:45.100Z"
    assert first.updated_at == "2024-03-14T08:55:15.900Z"
    assert first.meta == {"model": "gpt-4o"}


def test_missing_current_node_falls_back_to_latest_leaf() -> None:
    second = read_transcript(FIX).conversations[1]
    assert second.source_id == "65f3b2c1-2d3e-4f5a-9b0c-1d2e3f4a5b6c"
    assert [m.role for m in second.messages] == ["user", "assistant"]


def test_single_conversation_object_and_hidden_system(tmp_path: Path) -> None:
    conv = json.loads(FIX.read_text())[0]
    data = json.dumps(conv, indent=2).encode()
    result = read_transcript(tmp_path / "one.json", data)
    assert result.source == "chatgpt"
    assert len(result.conversations) == 1
    assert all(m.role != "system" for m in result.conversations[0].messages)


def test_empty_export_list_reads_as_no_conversations(tmp_path: Path) -> None:
    data = b'[{"title": "t", "mapping": {}, "current_node": null}]'
    result = read_transcript(tmp_path / "conversations.json", data)
    assert result.source == "chatgpt"
    assert result.conversations == []
