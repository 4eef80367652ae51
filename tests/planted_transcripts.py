"""One small transcript per format the readers support, secrets planted in every field a
reader lifts out of it: ids, titles, cwd, model names, times, and the messages."""

from __future__ import annotations

import json
from collections.abc import Callable


def _jsonl(records: list[dict[str, object]]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def claude_code(key: str, said: str) -> tuple[str, bytes]:
    session = key
    base = {"sessionId": session, "cwd": f"/home/ada/{key}", "gitBranch": key, "version": key}
    records: list[dict[str, object]] = [
        {"type": "summary", "summary": f"keys {key}", "leafUuid": "a1"},
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": said}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "timestamp": f"2026-01-01T00:00:01Z {key}",
         "message": {"id": "m1", "role": "assistant", "model": key,
                     "content": [{"type": "text", "text": f"Noted. {said}"},
                                 {"type": "tool_use", "id": "t1", "name": "Bash",
                                  "input": {"command": f"echo {said}"}}]}},
    ]  # fmt: skip
    return "0f0e0d0c-0b0a-4909-8807-060504030201.jsonl", _jsonl(records)


def chatgpt(key: str, said: str) -> tuple[str, bytes]:
    def node(nid: str, role: str, text: str, parent: str | None, child: str | None) -> object:
        message = {"id": nid, "author": {"role": role}, "create_time": 1710406365.0,
                   "content": {"content_type": "text", "parts": [text]},
                   "metadata": {"model_slug": key}}  # fmt: skip
        return {"id": nid, "message": message, "parent": parent,
                "children": [child] if child else []}  # fmt: skip

    conv = {
        "id": key, "conversation_id": key, "title": f"keys {key}",
        "create_time": 1710406365.1, "update_time": 1710406515.9,
        "default_model_slug": key, "current_node": "a1",
        "mapping": {"u1": node("u1", "user", said, None, "a1"),
                    "a1": node("a1", "assistant", f"Noted. {said}", "u1", None)},
    }  # fmt: skip
    return "conversations.json", json.dumps([conv]).encode()


def pi(key: str, said: str) -> tuple[str, bytes]:
    records: list[dict[str, object]] = [
        {"type": "session", "id": key, "timestamp": "2025-12-01T10:00:00.000Z",
         "cwd": f"/home/ada/{key}", "provider": key, "modelId": key},
        {"type": "message", "timestamp": "2025-12-01T10:00:05.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": said}]}},
        {"type": "message", "timestamp": "2025-12-01T10:00:06.000Z",
         "message": {"role": "assistant", "model": key, "provider": key,
                     "content": [{"type": "text", "text": f"Noted. {said}"}]}},
    ]  # fmt: skip
    return "pi-session.jsonl", _jsonl(records)


def codex(key: str, said: str) -> tuple[str, bytes]:
    def item(role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        return {"timestamp": "2025-12-28T12:21:44.491Z", "type": "response_item",
                "payload": {"type": "message", "role": role,
                            "content": [{"type": kind, "text": text}]}}  # fmt: skip

    records: list[dict[str, object]] = [
        {"timestamp": "2025-12-28T12:18:30.533Z", "type": "session_meta",
         "payload": {"id": key, "timestamp": f"2025-12-28T12:18:30Z {key}",
                     "cwd": f"/home/ada/{key}", "originator": key, "cli_version": key}},
        {"timestamp": "2025-12-28T12:21:44.492Z", "type": "turn_context",
         "payload": {"cwd": f"/home/ada/{key}", "model": key}},
        item("user", said),
        item("assistant", f"Noted. {said}"),
    ]  # fmt: skip
    return "rollout-2025-12-28T12-18-30-019b64e5.jsonl", _jsonl(records)


def aider(key: str, said: str) -> tuple[str, bytes]:
    text = (
        "# aider chat started at 2025-03-14 09:12:45\n\n"
        f"> /usr/local/bin/aider --model {key}  \n> Model: {key} with diff edit format  \n\n"
        f"#### {said}  \n\nNoted. {said}\n"
    )
    return "aider.chat.history.md", text.encode()


def cortexes(key: str, said: str) -> tuple[str, bytes]:
    text = (
        f"<!-- audit: cortexes capture v0.3 · source=claude-code · session={key} -->\n"
        f'---\ndate: 2025-03-14\ntime: "09:12:45"\ntype: session\nid: {key}\nrepo: {key}\n---\n\n'
        f"### User\n\n{said}\n\n### Claude\n\nNoted. {said}\n"
    )
    return "091245_session_notes.md", text.encode()


def raw(key: str, said: str) -> tuple[str, bytes]:
    text = (
        f"---\nid: {key}\ntitle: keys {key}\ndate: 2026-01-02\n---\n\n"
        f"## user\n\n{said}\n\n## assistant\n\nNoted. {said}\n"
    )
    return "note.md", text.encode()


def markdown(key: str, said: str) -> tuple[str, bytes]:
    text = (
        f"---\nid: {key}\ntitle: keys {key}\n---\n\n# Chat about {key}\n\n"
        f"### Human\n\n{said}\n\n### Assistant\n\nNoted. {said}\n"
    )
    return "chat.md", text.encode()


FORMATS: dict[str, Callable[[str, str], tuple[str, bytes]]] = {
    "claude-code": claude_code,
    "chatgpt": chatgpt,
    "pi": pi,
    "codex": codex,
    "aider": aider,
    "cortexes": cortexes,
    "raw": raw,
    "markdown": markdown,
}
