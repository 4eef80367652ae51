"""pi coding agent sessions: a `session` header line, then entries.

Version 1 files are linear. Version 2+ entries carry `id`/`parentId` and form a tree
(in-place branching); the live branch is the one that ends at the last entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dreaming.raw.common import (
    Lines,
    Turns,
    as_str,
    iso,
    iter_jsonl,
    key_argument,
    lines_phrase,
    shorten,
    span,
    title_from,
    tool_call,
    tool_result,
)
from dreaming.transcript import Conversation, content_id

SOURCE = "pi"


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out: list[str] = []
    for b in content:
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            out.append(b["text"])
        elif kind == "image":
            out.append("[image]")
        elif kind == "toolCall":
            out.append(tool_call(as_str(b.get("name")) or "tool", key_argument(b.get("arguments"))))
    return "\n".join(out)


def _add(turns: Turns, msg: dict[str, Any], ts: str | None) -> None:
    role = msg.get("role")
    ts = ts or iso(msg.get("timestamp"))
    if role == "user":
        turns.add("user", _blocks_text(msg.get("content")), ts)
    elif role == "assistant":
        turns.add("assistant", _blocks_text(msg.get("content")), ts)
    elif role == "toolResult":
        text = _blocks_text(msg.get("content"))
        turns.add("tool", tool_result(text, error=msg.get("isError") is True), ts, merge=True)
    elif role == "bashExecution":
        # The person ran a shell command with `!`: one line, like a tool call and its result.
        cmd = as_str(msg.get("command")) or ""
        output = msg.get("output")
        out = output if isinstance(output, str) else ""
        turns.add("tool", f"[bash: {shorten(cmd)} → {lines_phrase(out)}]", ts, merge=True)
    # custom, branchSummary, compactionSummary: extension state and recaps, not dialogue.


def _live_branch(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {}
    for e in entries:
        eid = e.get("id")
        if isinstance(eid, str):
            by_id[eid] = e
    if not by_id:
        return entries
    leaf = next(e for e in reversed(entries) if isinstance(e.get("id"), str))
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node: dict[str, Any] | None = leaf
    while node is not None:
        eid = node.get("id")
        if not isinstance(eid, str) or eid in seen:
            break
        seen.add(eid)
        path.append(node)
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    path.reverse()
    return path


def parse(path: Path, text: Lines) -> list[Conversation]:
    header: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    for _, rec in iter_jsonl(path, text):
        if rec.get("type") == "session" and not header:
            header = rec
        else:
            entries.append(rec)
    tree = any("parentId" in e for e in entries)
    branch = _live_branch(entries) if tree else entries
    turns = Turns()
    title: str | None = None
    model = as_str(header.get("modelId"))
    for e in branch:
        kind = e.get("type")
        if kind == "message" and isinstance(e.get("message"), dict):
            _add(turns, e["message"], as_str(e.get("timestamp")))
        elif kind == "session_info" and as_str(e.get("name")):
            title = e["name"]
        elif kind == "model_change" and as_str(e.get("modelId")):
            model = model or e["modelId"]
    messages = turns.messages()
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    first, last = span(messages)
    meta: dict[str, str] = {}
    cwd = as_str(header.get("cwd"))
    if cwd:
        meta["cwd"] = cwd
    if model:
        meta["model"] = model
    parent = as_str(header.get("parentSession"))
    if parent:
        meta["parent_session"] = parent
    return [
        Conversation(
            source=SOURCE,
            source_id=as_str(header.get("id")) or content_id(SOURCE, first_user),
            own_id=as_str(header.get("id")) is not None,
            messages=tuple(messages),
            title=shorten(title, 200) if title else title_from(messages),
            created_at=first or iso(header.get("timestamp")),
            updated_at=last,
            meta=meta,
        )
    ]
