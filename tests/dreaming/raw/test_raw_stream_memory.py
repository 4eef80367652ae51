"""A big Codex or pi session is read holding little more than what it said: tool output,
the UI's copies of the messages and the records themselves are let go line by line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import read_peak

PROMPT = "Index the vault nightly and keep every word the person wrote. " * 5
REPLY = "Yes: a timer runs the night, and the pages link back to their sources. " * 14
OUTPUT = "drwxr-xr-x  2 ada ada 4096 Dec 28 12:18 docs\n" * 70
TS = "2025-12-28T12:18:30.000Z"


def _codex_turn(i: int) -> list[object]:
    def item(payload: dict[str, object]) -> object:
        return {"timestamp": TS, "type": "response_item", "payload": payload}

    def event(kind: str, message: str) -> object:
        return {"timestamp": TS, "type": "event_msg", "payload": {"type": kind, "message": message}}

    said = [{"type": "input_text", "text": f"{i}: {PROMPT}"}]
    answer = [{"type": "output_text", "text": REPLY}]
    call = json.dumps({"command": ["bash", "-lc", f"ls -la docs/{i}"]})
    return [
        item({"type": "message", "role": "user", "content": said}),
        event("user_message", f"{i}: {PROMPT}"),
        item({"type": "function_call", "name": "shell", "arguments": call, "call_id": f"c{i}"}),
        item({"type": "function_call_output", "call_id": f"c{i}", "output": OUTPUT}),
        item({"type": "message", "role": "assistant", "content": answer}),
        event("agent_message", REPLY),
    ]


def _pi_turn(i: int) -> list[object]:
    def entry(n: int, message: dict[str, object]) -> object:
        parent = f"{i}.{n - 1}" if n else (f"{i - 1}.3" if i else None)
        return {"type": "message", "id": f"{i}.{n}", "parentId": parent, "timestamp": TS,
                "message": message | {"timestamp": 1767000000000}}  # fmt: skip

    call = {"type": "toolCall", "id": f"t{i}", "name": "bash", "arguments": {"command": "ls"}}
    return [
        entry(0, {"role": "user", "content": [{"type": "text", "text": f"{i}: {PROMPT}"}]}),
        entry(1, {"role": "assistant", "content": [call]}),
        entry(2, {"role": "toolResult", "content": [{"type": "text", "text": OUTPUT}]}),
        entry(3, {"role": "assistant", "content": [{"type": "text", "text": REPLY}]}),
    ]


HEADS: dict[str, object] = {
    "codex": {"timestamp": TS, "type": "session_meta", "payload": {"id": "019b64e5-0000-7000"}},
    "pi": {"type": "session", "version": 3, "id": "f0e1d2c3-b4a5", "timestamp": TS},
}
TURNS: dict[str, Callable[[int], list[object]]] = {"codex": _codex_turn, "pi": _pi_turn}
NAMES = {"codex": "rollout-2025-12-28T12-18-30-019b64e5.jsonl", "pi": "session.jsonl"}


def _big_session(path: Path, source: str, megabytes: int) -> int:
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(HEADS[source]) + "\n")
        i = 0
        while f.tell() < megabytes * 1024 * 1024:
            f.write("".join(json.dumps(r) + "\n" for r in TURNS[source](i)))
            i += 1
    return path.stat().st_size


@pytest.mark.slow
@pytest.mark.parametrize("source", ["codex", "pi"])
def test_a_big_session_is_read_holding_little_more_than_its_messages(
    tmp_path: Path, source: str
) -> None:
    path = tmp_path / NAMES[source]
    size = _big_session(path, source, 20)
    result, peak = read_peak(path)
    assert result.source == source
    messages = result.conversations[0].messages
    assert len(messages) > 10_000
    # What was said is a quarter of the file, under half as messages; the parsed records,
    # kept to the end, were twice the file's size. The constant is a redaction batch's
    # (see test_raw_read_twice).
    assert peak < 0.6 * size + 16 * 2**20
