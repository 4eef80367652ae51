"""ChatGPT data export: `conversations.json`, a list of conversations with a `mapping` tree.

Only the live branch is read: from `current_node` up through `parent` links, reversed.
Edited-away branches are what the person threw away, so they are not their words now.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dreaming.errors import TranscriptError
from dreaming.raw import deadline
from dreaming.raw.common import (
    Turns,
    as_str,
    iso,
    load_json,
    shorten,
    span,
    title_from,
    tool_call,
    tool_result,
)
from dreaming.raw.spans import cut, spans
from dreaming.transcript import Conversation, Role, content_id

SOURCE = "chatgpt"
_SPOKEN: dict[str, Role] = {"user": "user", "system": "system"}

# Inline citation markers use private-use characters that render as nothing useful.
_CITE_RE = re.compile("\ue200")
_DROP_TYPES = frozenset(
    {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}
)


def _parts_text(content: dict[str, Any]) -> str:
    parts = content.get("parts")
    if not isinstance(parts, list):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    out: list[str] = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, dict):
            kind = p.get("content_type")
            if kind == "image_asset_pointer" or "asset_pointer" in p:
                out.append("[image]")
            elif isinstance(p.get("text"), str):
                out.append(p["text"])
    text = "\n".join(x for x in out if x)
    if "\ue200" in text:
        text = cut(text, spans(text, _CITE_RE, lambda _: "\ue201"))
    return text


def _branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    if not isinstance(current, str) or current not in mapping:
        current = _latest_leaf(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id not in seen:
        seen.add(node_id)
        node = mapping.get(node_id)
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _latest_leaf(mapping: dict[str, Any]) -> str | None:
    best: tuple[float, str] | None = None
    for key, node in mapping.items():
        if not isinstance(node, dict) or node.get("children"):
            continue
        msg = node.get("message")
        t = msg.get("create_time") if isinstance(msg, dict) else None
        stamp = float(t) if isinstance(t, int | float) and not isinstance(t, bool) else 0.0
        if best is None or stamp >= best[0]:
            best = (stamp, key)
    return best[1] if best else None


def _add(turns: Turns, msg: dict[str, Any]) -> None:
    author = msg.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    content = msg.get("content")
    if not isinstance(content, dict) or not isinstance(role, str):
        return
    meta = msg.get("metadata")
    if isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation") is True:
        return
    kind = as_str(content.get("content_type"))
    if kind in _DROP_TYPES:
        return
    ts = iso(msg.get("create_time"))
    recipient = msg.get("recipient")
    if role == "assistant":
        if isinstance(recipient, str) and recipient not in ("all", ""):
            text = content.get("text") if kind == "code" else _parts_text(content)
            code = text if isinstance(text, str) else ""
            first = next((ln for ln in code.splitlines() if ln.strip()), "")
            turns.add("assistant", tool_call(recipient, first), ts, merge=True)
            return
        text = _parts_text(content)
        if kind == "code":
            text = tool_call(as_str(content.get("language")) or "code", text.split("\n", 1)[0])
        if text.strip():
            turns.add("assistant", text, ts, merge=True)
        return
    if role == "tool":
        text = _parts_text(content)
        name = author.get("name") if isinstance(author, dict) else None
        if kind == "execution_output" or text.strip() or isinstance(name, str):
            if text.strip() == "<<ImageDisplayed>>":
                turns.add("tool", "[tool result: image]", ts, merge=True)
            else:
                turns.add("tool", tool_result(text), ts, merge=True)
        return
    if role in _SPOKEN:
        text = _parts_text(content)
        if text.strip():
            turns.add(_SPOKEN[role], text, ts)


def _conversation(conv: dict[str, Any]) -> Conversation | None:
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        return None
    turns = Turns()
    for node in _branch(mapping, conv.get("current_node")):
        deadline.check()
        msg = node.get("message")
        if isinstance(msg, dict):
            _add(turns, msg)
    messages = turns.messages()
    if not messages:
        return None
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    own = as_str(conv.get("conversation_id")) or as_str(conv.get("id"))
    first, last = span(messages)
    created = iso(conv.get("create_time")) or first
    title = as_str(conv.get("title"))
    meta: dict[str, str] = {}
    model = as_str(conv.get("default_model_slug"))
    if model:
        meta["model"] = model
    return Conversation(
        source=SOURCE,
        source_id=own or content_id(SOURCE, created or "", first_user),
        own_id=own is not None,
        messages=tuple(messages),
        title=shorten(title, 200) if title else title_from(messages),
        created_at=created,
        updated_at=iso(conv.get("update_time")) or last,
        meta=meta,
    )


def parse(path: Path, text: str) -> list[Conversation]:
    streamed = _one_at_a_time(text)
    return streamed if streamed is not None else whole_document(path, text)


def whole_document(path: Path, text: str) -> list[Conversation]:
    """The export decoded at once: what a file no conversation-at-a-time reading takes
    (an object, a syntax error) gets its one-line answer here."""
    data = load_json(path, text)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not any(
        isinstance(c, dict) and isinstance(c.get("mapping"), dict) for c in data
    ):
        if isinstance(data, list) and not data:
            return []  # an export of an account with no conversations
        raise TranscriptError(
            path,
            "JSON but not a ChatGPT export (no conversation with a `mapping`); "
            "drop the conversations.json from the export zip, or remove this file",
        )
    out: list[Conversation] = []
    for c in data:
        deadline.check()
        if isinstance(c, dict):
            conv = _conversation(c)
            if conv is not None:
                out.append(conv)
    return out


_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def _one_at_a_time(text: str) -> list[Conversation] | None:
    """An export's conversations, each decoded and read before the next: the whole
    document as Python objects held five times the file's size. None when `text` is
    no well-formed array of conversations (the whole-document path then says why)."""
    at = _past_space(text, 0)
    if not text.startswith("[", at):
        return None
    out: list[Conversation] = []
    mapped = False
    at += 1
    try:
        while True:
            at = _past_space(text, at)
            if text.startswith("]", at) and not (out or mapped):
                at += 1
                break
            deadline.check()
            c, at = _DECODER.raw_decode(text, at)
            if isinstance(c, dict):
                mapped = mapped or isinstance(c.get("mapping"), dict)
                conv = _conversation(c)
                if conv is not None:
                    out.append(conv)
            at = _past_space(text, at)
            if text.startswith("]", at):
                at += 1
                break
            if not text.startswith(",", at):
                return None
            at += 1
    except (ValueError, RecursionError):
        return None  # the whole document's reading says what is wrong
    if text[at:].strip(_SPACE) or not mapped:
        return None
    return out


def _past_space(text: str, at: int) -> int:
    """The first position from `at` that is no JSON whitespace (`lstrip` would copy)."""
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at
