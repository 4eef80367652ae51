"""Which reader a file needs, told from its first bytes (the extension is only a hint)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dreaming.raw import aider, canonical, cortexes, markdown
from dreaming.raw.common import binary_kind

SOURCES = ("claude-code", "chatgpt", "pi", "codex", "aider", "markdown", "cortexes", "raw")

HEAD_BYTES = 64 * 1024

_CLAUDE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation",
     "progress", "attachment", "permission-mode", "last-prompt", "custom-title", "tag"}
)  # fmt: skip
_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
_TYPE_RE = re.compile(r'"type"\s*:\s*"([\w-]+)"')
_CORTEXES_FM_RE = re.compile(r"^type:[ \t]*[\"']?session[\"']?[ \t]*$", re.M)
_CORTEXES_TURN_RE = re.compile(r"^###[ \t]+(?:user|claude)[ \t]*$", re.M | re.I | re.A)


def _classify(obj: dict[str, Any]) -> str | None:
    kind = obj.get("type")
    if not isinstance(kind, str):
        kind = None
    if kind == "session":
        return "pi"
    if kind in _CODEX_TYPES or (kind is None and "id" in obj and "instructions" in obj):
        return "codex"
    if "mapping" in obj:
        return "chatgpt"
    if kind in _CLAUDE_TYPES or any(k in obj for k in ("sessionId", "leafUuid", "parentUuid")):
        return "claude-code"
    if kind is None and "agentType" in obj:
        return "claude-code"  # a subagent's .meta.json sidecar
    if kind == "message" and "parentId" in obj:
        return "pi"
    return None


def _detect_json(head: str) -> str | None:
    if head.startswith("["):
        return "chatgpt" if '"mapping"' in head else None
    first = head.split("\n", 1)[0]
    try:
        obj: Any = json.loads(first)
    except (ValueError, RecursionError):
        obj = None
    if isinstance(obj, dict):
        return _classify(obj)
    # The first record is longer than the head, or the JSON is pretty-printed: go by keys.
    m = _TYPE_RE.search(head)
    probe: dict[str, Any] = {"type": m.group(1)} if m else {}
    for key in ("sessionId", "leafUuid", "parentUuid", "mapping", "agentType", "parentId"):
        if f'"{key}"' in head:
            probe[key] = True
    return _classify(probe) if probe else None


def _detect_markdown(path: Path, head: str) -> str | None:
    top = head[:4096]
    if path.name.endswith(".aider.chat.history.md") or any(
        aider.START_RE.match(ln) for ln in top.split("\n")[:40]
    ):
        return "aider"
    first_lines = [ln.strip() for ln in top.split("\n") if ln.strip()][:12]
    if any(cortexes.AUDIT_RE.match(ln) for ln in first_lines):
        return "cortexes"
    if _CORTEXES_TURN_RE.search(head) and (
        (head.startswith("---") and _CORTEXES_FM_RE.search(head[:4096]))
        or re.match(r"\d{6}_session_.+\.md$", path.name)
    ):
        return "cortexes"
    if any(line.startswith("##") and canonical.turn(line) for line in head.split("\n")):
        return "raw"
    if markdown.looks_like(head):
        return "markdown"
    return None


def detect_text(path: Path, head: str) -> str | None:
    s = head.lstrip("\ufeff \t\r\n")
    if s.startswith(("{", "[")):
        found = _detect_json(s)
        if found:
            return found
    return _detect_markdown(path, s)


def detect(path: Path, head: bytes) -> str | None:
    """The source name for a file from its first bytes, or None when no reader fits."""
    if not head.strip() or binary_kind(head):
        return None
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", errors="ignore")
    else:
        text = head.decode("utf-8", errors="ignore")
    return detect_text(Path(path), text[:HEAD_BYTES])
