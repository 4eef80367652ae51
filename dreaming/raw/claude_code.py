"""Claude Code session logs: `~/.claude/projects/<cwd>/<session>.jsonl` and subagent files.

Tool results are kept as their own "tool" messages (one per batch of results), so the
assistant text stays what the assistant said and the tool noise is one short line.
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
    read_small,
    shorten,
    span,
    title_from,
    tool_call,
    tool_result,
)
from dreaming.raw.spans import closing_tag, cut, spans
from dreaming.transcript import Conversation

SOURCE = "claude-code"

_TAG_RE = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|command-message|command-name|command-args|"
    r"command-contents|user-prompt-submit-hook|bash-input|bash-stdout|bash-stderr|"
    r"task-notification|post-tool-use-hook)>"
)


_INTERRUPTED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
_REJECTED = "The user doesn't want to "
_SAID = "the user said:"
_RECORD_TYPES = frozenset({"user", "assistant"})


def _reduce_user_text(text: str) -> tuple[str, str | None]:
    """Strip harness tags from typed text; returns (user text, tool-output placeholder)."""
    if "<" not in text:
        return text, None
    found: dict[str, str] = {}
    tags = list(spans(text, _TAG_RE, closing_tag))
    for tag in tags:
        found.setdefault(tag.name, tag.inner)
    rest = cut(text, iter(tags)).strip()
    extra: list[str] = []
    name = found.get("command-name", "").strip()
    args = found.get("command-args", "").strip()
    if name and args:
        # A bare `/clear` or `/model` is UI noise; with arguments it is an instruction.
        extra.append(f"[command: {shorten(name + ' ' + args)}]")
    if "bash-input" in found:
        extra.append(f"[bash: {shorten(found['bash-input'])}]")
    output = None
    if "bash-stdout" in found or "bash-stderr" in found:
        out = (found.get("bash-stdout", "") + "\n" + found.get("bash-stderr", "")).strip()
        output = tool_result(out)
    text = "\n".join([*extra, rest]).strip() if extra else rest
    return text, output


def _result_text(block: dict[str, Any]) -> tuple[str, int]:
    content = block.get("content")
    images = 0
    if isinstance(content, list):
        parts: list[str] = []
        for b in content:
            if isinstance(b, dict):
                if b.get("type") == "image":
                    images += 1
                elif isinstance(b.get("text"), str):
                    parts.append(b["text"])
                elif isinstance(b.get("tool_name"), str):
                    parts.append(b["tool_name"])
        return "\n".join(parts), images
    return (content if isinstance(content, str) else ""), images


def _result_placeholder(block: dict[str, Any], tool_name: str | None) -> tuple[str, bool]:
    """(text, is_user_speech) for one tool_result block."""
    text, images = _result_text(block)
    if tool_name == "AskUserQuestion" and text.strip():
        return text.strip(), True  # the person's answers, not tool noise
    if text.removeprefix("Error: ").startswith(_REJECTED):
        said = text.split(_SAID, 1)
        if len(said) == 2 and said[1].strip():
            return f"[tool result: rejected by user — {shorten(said[1])}]", False
        return "[tool result: rejected by user]", False
    if block.get("is_error") is True:
        return tool_result(text.replace("<tool_use_error>", "").strip(), error=True), False
    if images and not text.strip():
        return "[tool result: image]", False
    return tool_result(text), False


def _tool_use(block: dict[str, Any]) -> str:
    name = as_str(block.get("name")) or "tool"
    args = block.get("input")
    if name == "ExitPlanMode" and isinstance(args, dict) and isinstance(args.get("plan"), str):
        # A plan is prose written for the person to approve: keep it whole.
        return f"[tool: ExitPlanMode]\n{args['plan']}"
    if name == "AskUserQuestion" and isinstance(args, dict):
        qs = args.get("questions")
        if isinstance(qs, list):
            asked = [q["question"] for q in qs if isinstance(q, dict) and "question" in q]
            asked = [q for q in asked if isinstance(q, str)]
            if asked:
                return "[asks: " + " / ".join(shorten(q) for q in asked) + "]"
    return tool_call(name, key_argument(args))


class _Session:
    def __init__(self, session_id: str, agent_id: str | None, sidechain: bool) -> None:
        self.session_id = session_id
        self.agent_id = agent_id
        self.sidechain = sidechain
        self.turns = Turns()
        self.by_msg_id: dict[str, int] = {}
        self.tool_names: dict[str, str] = {}
        self.uuids: set[str] = set()
        self.meta: dict[str, str] = {}


def _add_assistant(s: _Session, rec: dict[str, Any], msg: dict[str, Any], ts: str | None) -> None:
    if rec.get("isApiErrorMessage") is True or msg.get("model") == "<synthetic>":
        return
    content = msg.get("content")
    parts: list[str] = []
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                continue
            kind = b.get("type")
            if kind == "text" and isinstance(b.get("text"), str):
                parts.append(b["text"])
            elif kind in ("tool_use", "server_tool_use"):
                tid = b.get("id")
                if isinstance(tid, str) and isinstance(b.get("name"), str):
                    s.tool_names[tid] = b["name"]
                parts.append(_tool_use(b))
            elif kind == "image":
                parts.append("[image]")
            elif kind == "web_search_tool_result":
                parts.append("[tool result: web search]")
    if not parts:
        return
    text = "\n".join(parts)
    model = as_str(msg.get("model"))
    if model and "model" not in s.meta:
        s.meta["model"] = model
    mid = msg.get("id")
    # Streaming writes one record per content block, all sharing message.id, and
    # tool results may land between them: merge into the slot where it first appeared.
    if isinstance(mid, str):
        slot = s.by_msg_id.get(mid)
        if slot is not None:
            s.turns.extend(slot, text)
            return
        s.by_msg_id[mid] = s.turns.add("assistant", text, ts)
    else:
        s.turns.add("assistant", text, ts)


def _add_user(s: _Session, rec: dict[str, Any], msg: dict[str, Any], ts: str | None) -> None:
    if rec.get("isMeta") is True or rec.get("isCompactSummary") is True:
        return  # harness injections and recaps of turns that are already in the log
    if rec.get("isVisibleInTranscriptOnly") is True:
        return
    content = msg.get("content")
    blocks: list[Any] = [content] if isinstance(content, str) else (content or [])
    if not isinstance(blocks, list):
        return
    results: list[str] = []
    said: list[str] = []
    for b in blocks:
        if isinstance(b, str):
            b = {"type": "text", "text": b}
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            raw = b["text"]
            if raw.strip() in _INTERRUPTED:
                if s.turns.last_role() in ("assistant", "tool"):
                    s.turns.extend(len(s.turns.roles) - 1, "[interrupted by user]")
                continue
            text, output = _reduce_user_text(raw)
            if text:
                said.append(text)
            if output:
                results.append(output)
        elif kind == "image":
            said.append("[image]")
        elif kind == "tool_result":
            tid = b.get("tool_use_id")
            name = s.tool_names.get(tid) if isinstance(tid, str) else None
            text, is_speech = _result_placeholder(b, name)
            (said if is_speech else results).append(text)
    if results:
        s.turns.add("tool", "\n".join(results), ts, merge=True)
    if said:
        s.turns.add("user", "\n\n".join(said), ts)


def _is_warmup(conv: Conversation) -> bool:
    users = [m for m in conv.messages if m.role == "user"]
    if users:
        return users[0].text.strip() == "Warmup"
    return all(m.role == "assistant" for m in conv.messages)


_SIDECAR_BYTES = 64 * 1024


def _subagent_meta(path: Path) -> dict[str, Any]:
    side = path.with_name(path.name.removesuffix(".jsonl") + ".meta.json")
    # A link may lead out of the vault, a pipe would block, and a sidecar is a few keys.
    raw = read_small(side, _SIDECAR_BYTES)
    if raw is None:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def parse(path: Path, text: Lines) -> list[Conversation]:
    sessions: dict[tuple[str, str | None], _Session] = {}
    summaries: dict[str, str] = {}
    fallback_id = path.name.removesuffix(".jsonl")
    for _, rec in iter_jsonl(path, text):
        kind = as_str(rec.get("type"))
        if kind == "summary":
            leaf, summary = rec.get("leafUuid"), rec.get("summary")
            if isinstance(leaf, str) and isinstance(summary, str):
                summaries[leaf] = summary
            continue
        if kind not in _RECORD_TYPES:
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            continue
        sid = as_str(rec.get("sessionId")) or fallback_id
        sidechain = rec.get("isSidechain") is True
        agent = as_str(rec.get("agentId"))
        key = (sid, agent if agent else ("sidechain" if sidechain else None))
        s = sessions.get(key)
        if s is None:
            s = sessions[key] = _Session(sid, key[1], sidechain)
        uuid = rec.get("uuid")
        if isinstance(uuid, str):
            s.uuids.add(uuid)
        for field, meta_key in (("cwd", "cwd"), ("gitBranch", "branch"), ("version", "version")):
            v = as_str(rec.get(field))
            if v and meta_key not in s.meta:
                s.meta[meta_key] = v
        ts = as_str(rec.get("timestamp"))
        if kind == "assistant":
            _add_assistant(s, rec, msg, ts)
        else:
            _add_user(s, rec, msg, ts)

    side = _subagent_meta(path) if path.name.startswith("agent-") else {}
    out: list[Conversation] = []
    for s in sessions.values():
        messages = s.turns.messages()
        if not messages:
            continue
        title = next((summaries[u] for u in reversed(list(summaries)) if u in s.uuids), None)
        meta = dict(s.meta)
        if s.agent_id is None:
            source_id, parent = s.session_id, None
        else:
            source_id = f"{s.session_id}/agent-{s.agent_id}"
            parent = s.session_id
            for k in ("agentType", "description"):
                if isinstance(side.get(k), str):
                    meta["agent_type" if k == "agentType" else "description"] = side[k]
            title = title or meta.get("description")
        first, last = span(messages)
        conv = Conversation(
            source=SOURCE,
            source_id=source_id,
            messages=tuple(messages),
            title=title or title_from(messages),
            created_at=first,
            updated_at=last,
            parent_id=parent,
            meta=meta,
        )
        if s.sidechain and _is_warmup(conv):
            continue  # Claude Code pre-warms its cache with throwaway "Warmup" agents
        out.append(conv)
    return out
