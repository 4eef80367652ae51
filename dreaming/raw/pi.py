"""pi coding agent sessions: a `session` header line, then entries.

Version 1 files are linear. Version 2+ entries carry `id`/`parentId` and form a tree
(in-place branching); the live branch is the one that ends at the last entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

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
from dreaming.transcript import Conversation, Role, content_id

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


class _Entry(NamedTuple):
    """What an entry adds if it is on the live branch: its record is not kept, a parsed
    record holds several times its text."""

    id: str | None
    parent: str | None
    turn: tuple[Role, str, str | None, bool] | None
    """`Turns.add`'s role, text, time and merge."""
    title: str | None
    model: str | None


def _turn(msg: dict[str, Any], ts: str | None) -> tuple[Role, str, str | None, bool] | None:
    role = msg.get("role")
    ts = ts or iso(msg.get("timestamp"))
    if role == "user":
        return "user", _blocks_text(msg.get("content")), ts, False
    if role == "assistant":
        return "assistant", _blocks_text(msg.get("content")), ts, False
    if role == "toolResult":
        text = _blocks_text(msg.get("content"))
        return "tool", tool_result(text, error=msg.get("isError") is True), ts, True
    if role == "bashExecution":
        # The person ran a shell command with `!`: one line, like a tool call and its result.
        cmd = as_str(msg.get("command")) or ""
        output = msg.get("output")
        out = output if isinstance(output, str) else ""
        return "tool", f"[bash: {shorten(cmd)} → {lines_phrase(out)}]", ts, True
    # custom, branchSummary, compactionSummary: extension state and recaps, not dialogue.
    return None


def _entry(rec: dict[str, Any]) -> _Entry:
    eid, parent = rec.get("id"), rec.get("parentId")
    kind = rec.get("type")
    turn = title = model = None
    if kind == "message" and isinstance(rec.get("message"), dict):
        turn = _turn(rec["message"], as_str(rec.get("timestamp")))
    elif kind == "session_info":
        title = as_str(rec.get("name"))
    elif kind == "model_change":
        model = as_str(rec.get("modelId"))
    return _Entry(
        eid if isinstance(eid, str) else None,
        parent if isinstance(parent, str) else None,
        turn,
        title,
        model,
    )


def _live_branch(entries: list[_Entry]) -> list[_Entry]:
    by_id = {e.id: e for e in entries if e.id is not None}
    if not by_id:
        return entries
    leaf = next(e for e in reversed(entries) if e.id is not None)
    path: list[_Entry] = []
    seen: set[str] = set()
    node: _Entry | None = leaf
    while node is not None and node.id is not None and node.id not in seen:
        seen.add(node.id)
        path.append(node)
        node = by_id.get(node.parent) if node.parent is not None else None
    path.reverse()
    return path


def parse(path: Path, text: Lines) -> list[Conversation]:
    header: dict[str, Any] = {}
    entries: list[_Entry] = []
    tree = False
    for _, rec in iter_jsonl(path, text):
        if rec.get("type") == "session" and not header:
            header = rec
        else:
            entries.append(_entry(rec))
            tree = tree or "parentId" in rec
    turns = Turns()
    title: str | None = None
    model = as_str(header.get("modelId"))
    for e in _live_branch(entries) if tree else entries:
        if e.turn is not None:
            role, said, ts, merge = e.turn
            turns.add(role, said, ts, merge=merge)
        elif e.title is not None:
            title = e.title
        elif e.model is not None:
            model = model or e.model
    # The texts are the turns' now: messages() lets each go as it is joined.
    entries.clear()
    messages = turns.messages()
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    first, last = span(messages)
    began = first or iso(header.get("timestamp"))
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
            source_id=as_str(header.get("id")) or content_id(SOURCE, began or "", first_user),
            own_id=as_str(header.get("id")) is not None,
            messages=tuple(messages),
            title=shorten(title, 200) if title else title_from(messages),
            created_at=began,
            updated_at=last,
            meta=meta,
        )
    ]
