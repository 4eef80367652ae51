"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

Current files wrap every item as `{"timestamp", "type", "payload"}` (session_meta,
response_item, event_msg, turn_context); older ones write the items bare after a first
line holding the session id. `response_item` is the record of what was said; `event_msg`
repeats it for the UI and is only used when a file has no response items at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dreaming.raw.common import (
    Lines,
    Turns,
    as_str,
    iter_jsonl,
    key_argument,
    span,
    text_of,
    title_from,
    tool_call,
    tool_result,
)
from dreaming.raw.spans import closing_tag, cut, spans
from dreaming.transcript import Conversation, content_id

SOURCE = "codex"

_WRAPPERS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "reasoning",
    }
)
# Context the CLI injects as "user" messages; the person never typed these.
_INJECTED_RE = re.compile(
    r"<(environment_context|user_instructions|INSTRUCTIONS|permissions instructions|"
    r"user_shell_command|turn_aborted)>"
)
_AGENTS_MD = "# AGENTS.md instructions"


def _user_text(text: str) -> str:
    if text.lstrip().startswith(_AGENTS_MD):
        return ""
    if "<" in text:
        text = cut(text, spans(text, _INJECTED_RE, closing_tag))
    return text.strip()


def _call_argument(name: str, raw: Any) -> str | None:
    args: Any = raw
    if isinstance(raw, str):
        try:
            args = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    if isinstance(args, dict) and isinstance(args.get("command"), list):
        cmd = [c for c in args["command"] if isinstance(c, str)]
        # `["bash", "-lc", "<script>"]`: the script is what ran.
        if len(cmd) >= 3 and cmd[1] in ("-lc", "-c"):
            return cmd[-1]
        return " ".join(cmd)
    return key_argument(args)


def _output_text(raw: Any) -> str:
    if isinstance(raw, str):
        if raw.startswith("{"):
            try:
                parsed = json.loads(raw)
            except (ValueError, RecursionError):
                return raw
            if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
                return str(parsed["output"])
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("content"), str):
        return str(raw["content"])
    return text_of(raw)


def _add_item(turns: Turns, item: dict[str, Any], ts: str | None) -> None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        text = text_of(item.get("content"))
        if role == "user":
            text = _user_text(text)
            if text:
                turns.add("user", text, ts)
        elif role == "assistant" and text.strip():
            turns.add("assistant", text, ts, merge=True)
        # developer/system messages are the CLI's own instructions.
    elif kind in ("function_call", "custom_tool_call"):
        name = as_str(item.get("name")) or "tool"
        raw = item.get("arguments", item.get("input"))
        turns.add("assistant", tool_call(name, _call_argument(name, raw)), ts, merge=True)
    elif kind == "local_shell_call":
        action = item.get("action")
        arg = _call_argument("shell", action) if isinstance(action, dict) else None
        turns.add("assistant", tool_call("shell", arg), ts, merge=True)
    elif kind == "web_search_call":
        action = item.get("action")
        query = action.get("query") if isinstance(action, dict) else None
        turns.add("assistant", tool_call("web_search", as_str(query)), ts, merge=True)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        turns.add("tool", tool_result(_output_text(item.get("output"))), ts, merge=True)


def _add_event(turns: Turns, event: dict[str, Any], ts: str | None) -> None:
    kind = event.get("type")
    msg = as_str(event.get("message"))
    if kind == "user_message" and msg:
        text = _user_text(msg)
        if text:
            turns.add("user", text, ts)
    elif kind == "agent_message" and msg:
        turns.add("assistant", msg, ts, merge=True)


def parse(path: Path, text: Lines) -> list[Conversation]:
    session: dict[str, Any] = {}
    model: str | None = None
    # Records are read as they come, never kept: a parsed one holds several times its text.
    turns = Turns()
    events: Turns | None = Turns()  # what the events say, until an item is a message
    for lineno, rec in iter_jsonl(path, text):
        kind = as_str(rec.get("type"))
        ts = as_str(rec.get("timestamp"))
        payload = rec.get("payload")
        item: dict[str, Any] | None = None
        if kind in _WRAPPERS and isinstance(payload, dict):
            if kind == "session_meta":
                session = session or payload
            elif kind == "response_item":
                item = payload
            elif kind == "event_msg" and events is not None:
                _add_event(events, payload, ts)
            elif kind == "turn_context":
                model = model or as_str(payload.get("model"))
        elif kind in _ITEMS:
            item = rec
        elif lineno == 1 and "id" in rec and kind is None:
            session = rec  # pre-wrapper rollouts: first line is the session itself
        if item is not None:
            _add_item(turns, item, ts)
            if item.get("type") == "message":
                events = None  # the file's items say what was said: its events are not read
    if events is not None:
        turns = events
    messages = turns.messages()
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    meta: dict[str, str] = {}
    for key, name in (("cwd", "cwd"), ("cli_version", "version"), ("originator", "originator")):
        v = as_str(session.get(key))
        if v:
            meta[name] = v
    if model:
        meta["model"] = model
    first, last = span(messages)
    began = as_str(session.get("timestamp")) or first
    return [
        Conversation(
            source=SOURCE,
            source_id=as_str(session.get("id")) or content_id(SOURCE, began or "", first_user),
            own_id=as_str(session.get("id")) is not None,
            messages=tuple(messages),
            title=title_from(messages),
            created_at=began,
            updated_at=last,
            meta=meta,
        )
    ]
