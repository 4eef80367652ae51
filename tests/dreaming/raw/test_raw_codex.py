"""Codex CLI rollouts."""

from __future__ import annotations

import json
from pathlib import Path

from dreaming.raw import read_transcript
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "codex" / ("rollout-2025-12-28T12-18-30-019b64e5.jsonl")


def test_rollout_skips_injected_context_and_duplicates() -> None:
    result = read_transcript(FIX)
    assert result.source == "codex"
    [conv] = result.conversations
    assert conv.source_id == "019b64e5-0000-7000-8000-00000000c0de"
    assert [m.role for m in conv.messages] == [
        "user", "assistant", "tool", "assistant", "user", "assistant",
    ]  # fmt: skip
    texts = [m.text for m in conv.messages]
    assert texts[0] == "which docs describe the Raw formats?"
    assert texts[1] == "Let me list the docs folder.\n\n[tool: shell — ls docs]"
    assert texts[2] == "[tool result: 3 lines]"
    assert not any("AGENTS.md" in t or "environment_context" in t for t in texts)
    assert conv.meta["model"] == "gpt-5.2-codex"
    assert conv.created_at == "2025-12-28T12:18:30.522Z"
    assert conv.updated_at == "2025-12-28T12:23:04.000Z"


def test_rollout_cut_after_first_prompt() -> None:
    lines = FIX.read_text().splitlines()[:6]
    result = read_transcript(FIX, ("\n".join(lines) + "\n").encode())
    [conv] = result.conversations
    assert [m.text for m in conv.messages] == ["which docs describe the Raw formats?"]


def test_event_messages_used_when_no_response_items(tmp_path: Path) -> None:
    recs = [json.loads(ln) for ln in FIX.read_text().splitlines()]
    kept = [r for r in recs if r["type"] != "response_item"]
    data = "".join(json.dumps(r) + "\n" for r in kept).encode()
    [conv] = read_transcript(tmp_path / "r.jsonl", data).conversations
    assert [m.role for m in conv.messages] == ["user", "assistant"]


def test_pre_wrapper_rollout(tmp_path: Path) -> None:
    recs = [
        {"id": "5f1e2d3c-0000-4000-8000-000000000001", "timestamp": "2025-05-01T10:00:00Z",
         "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>be terse</user_instructions>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "hello"}]},
    ]  # fmt: skip
    data = "".join(json.dumps(r) + "\n" for r in recs).encode()
    result = read_transcript(tmp_path / "rollout.jsonl", data)
    assert result.source == "codex"
    [conv] = result.conversations
    assert conv.source_id == "5f1e2d3c-0000-4000-8000-000000000001"
    assert [m.text for m in conv.messages] == ["hi", "hello"]
