"""Claude Code session logs, on fixtures written in the real record shapes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from dreaming.raw import read_transcript
from dreaming.transcript import conv_hash
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "claude-code"
MAIN = "7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b"


def test_main_session_messages_roles_and_order() -> None:
    result = read_transcript(FIX / f"{MAIN}.jsonl")
    assert result.source == "claude-code"
    [conv] = result.conversations
    assert conv.source_id == MAIN
    assert conv.hash8 == conv_hash(MAIN) == "7c1e2f0a"
    assert conv.parent_id is None
    roles = [m.role for m in conv.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool",
                     "assistant", "tool", "user", "user", "tool", "assistant"]  # fmt: skip
    texts = [m.text for m in conv.messages]
    # The IDE tag is stripped; the caveat, the bare /clear and its empty stdout are gone.
    assert texts[0] == "How long should the watcher wait before it reads a file in Raw/?"
    # Three streamed records share msg_01A: thinking dropped, text + tool call merged.
    assert (
        texts[1]
        == "Let me look at how the watcher is wired.\n\n[tool: Bash — grep -rn debounce watcher/]"
    )
    assert texts[2] == "[tool result: 2 lines]"
    assert (
        texts[4] == "Make it configurable, and show me the diff first."
    )  # system-reminder stripped
    # msg_01C arrived in two records with a tool result between them.
    assert texts[5] == "[tool: Read — watcher/loop.py]\n[tool: Grep — DEBOUNCE]"
    assert texts[6] == "[tool result: 3 lines]\n[tool result: 1 line]"
    assert texts[8] == "[tool result: rejected by user]\n[interrupted by user]"
    assert texts[9].startswith("[image]\n\nThat's the screen I get.")
    assert texts[10] == "[bash: pytest -q tests/test_watcher.py]"
    assert texts[11] == "[tool result: 1 line]"
    # The synthetic API-error message is not the assistant speaking.
    assert texts[12] == "Tests pass. The window is now `debounce_ms` in Settings, default 500."
    assert not any("Caveat" in t or "API Error" in t or "<" in t for t in texts)


def test_main_session_metadata_title_and_redaction() -> None:
    result = read_transcript(FIX / f"{MAIN}.jsonl")
    [conv] = result.conversations
    # Only the summary whose leafUuid is in this session names it.
    assert conv.title == "Debounce window for the vault watcher"
    assert conv.created_at == "2025-03-14T09:12:45.000Z"
    assert conv.updated_at == "2025-03-14T09:16:30.000Z"
    assert conv.meta["cwd"] == "/home/ada/src/dreaming"
    assert conv.meta["model"] == "claude-sonnet-4-5-20250929"
    assert result.redactions == 1
    assert "[REDACTED:anthropic]" in conv.messages[9].text
    assert "sk-ant-" not in conv.messages[9].text
    assert all(m.timestamp and m.timestamp.endswith("Z") for m in conv.messages)


def test_old_style_subagent_file() -> None:
    [conv] = read_transcript(FIX / "agent-5d2c9e1f.jsonl").conversations
    assert conv.source_id == f"{MAIN}/agent-5d2c9e1f"
    assert conv.parent_id == MAIN
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert conv.messages[1].text == "Searching.\n[tool: Grep — Settings]"
    assert conv.title == "Find every place the watcher reads Settings."


def test_new_style_subagent_uses_meta_json_for_title() -> None:
    path = FIX / MAIN / "subagents" / "agent-a1b2c3d4e5f607182.jsonl"
    [conv] = read_transcript(path).conversations
    assert conv.source_id == f"{MAIN}/agent-a1b2c3d4e5f607182"
    assert conv.parent_id == MAIN
    assert conv.title == "Survey debounce defaults"
    assert conv.meta["agent_type"] == "general-purpose"
    assert conv.messages[1].text == "[tool: WebSearch — watchdog default debounce interval]"
    assert len(conv.messages) == 4


def test_subagent_without_sidecar_still_reads(tmp_path: Path) -> None:
    src = FIX / MAIN / "subagents" / "agent-a1b2c3d4e5f607182.jsonl"
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    [conv] = read_transcript(dst).conversations
    assert conv.title == "What debounce do other file watchers default to?"


def test_meta_json_sidecar_alone_is_not_an_error() -> None:
    path = FIX / MAIN / "subagents" / "agent-a1b2c3d4e5f607182.meta.json"
    result = read_transcript(path)
    assert result.source == "claude-code"
    assert result.conversations == []


def test_warmup_subagent_gives_no_conversation() -> None:
    assert read_transcript(FIX / "agent-0a0b0c0d.jsonl").conversations == []


@pytest.mark.parametrize("name", ["summary-only.jsonl", "snapshot-only.jsonl"])
def test_summary_and_snapshot_only_files_are_empty_not_errors(name: str) -> None:
    result = read_transcript(FIX / name)
    assert result.source == "claude-code"
    assert result.conversations == []


def test_resumed_file_groups_by_session_id() -> None:
    old, new = "3b9d0c1e-2f4a-4b6c-8d0e-1f2a3b4c5d6e", "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b"
    convs = read_transcript(FIX / f"{new}.jsonl").conversations
    assert [c.source_id for c in convs] == [old, new]
    assert [len(c.messages) for c in convs] == [2, 4]
    # One session over two days stays one conversation.
    assert convs[1].created_at == "2025-03-14T08:30:00.000Z"
    assert convs[1].updated_at == "2025-03-15T10:02:05.000Z"


def test_detected_by_content_not_extension(tmp_path: Path) -> None:
    data = (FIX / f"{MAIN}.jsonl").read_bytes()
    result = read_transcript(tmp_path / "exported.txt", data)
    assert result.source == "claude-code"
    assert len(result.conversations[0].messages) == 13


def _big_session(target_bytes: int) -> bytes:
    lines = [ln for ln in (FIX / f"{MAIN}.jsonl").read_text().splitlines() if ln]
    out: list[str] = []
    size = 0
    i = 0
    blob = "x = 1\n" * 2000  # tool output of realistic size
    while size < target_bytes:
        for ln in lines:
            rec = json.loads(ln)
            msg = rec.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                msg["id"] = f"{msg['id']}-{i}"
            if rec.get("type") == "user" and isinstance(msg, dict):
                content = msg.get("content")
                if isinstance(content, list):
                    for block in content:
                        if block.get("type") == "tool_result":
                            block["content"] = blob
            s = json.dumps(rec)
            out.append(s)
            size += len(s) + 1
        i += 1
    return ("\n".join(out) + "\n").encode()


@pytest.mark.slow  # real timing of a 10 MB session
def test_ten_megabyte_session_reads_well_under_a_second(tmp_path: Path) -> None:
    data = _big_session(10 * 1024 * 1024)
    assert len(data) >= 10 * 1024 * 1024
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        result = read_transcript(tmp_path / "big.jsonl", data)
        best = min(best, time.perf_counter() - start)
    assert len(result.conversations) == 1
    assert len(result.conversations[0].messages) > 1000
    assert best < 1.0, f"10 MB session took {best:.2f} s"
