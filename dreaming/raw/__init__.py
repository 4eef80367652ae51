"""Transcript readers: any file a person drops into `Raw/` → conversations, secrets redacted.

`read_transcript(path)` detects the format from the bytes (the extension is only a hint),
parses with that format's reader, then redacts. It returns a `ReadResult` or raises
`TranscriptError` (unreadable, corrupt, empty, binary, unknown) / `IncompleteTranscript`
(still being written: retry later). It never raises anything else, whatever the bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dreaming.errors import IncompleteTranscript, TranscriptError
from dreaming.raw import aider, canonical, chatgpt, claude_code, codex, cortexes, markdown, pi
from dreaming.raw.common import binary_kind, decode, looks_truncated
from dreaming.raw.redact import MARKER, redact
from dreaming.raw.types import Conversation, Message

__all__ = [
    "SOURCES",
    "Conversation",
    "IncompleteTranscript",
    "Message",
    "ReadResult",
    "TranscriptError",
    "detect",
    "read_transcript",
]

SOURCES = ("claude-code", "chatgpt", "pi", "codex", "aider", "markdown", "cortexes", "raw")

HEAD_BYTES = 64 * 1024

_READERS: dict[str, Callable[[Path, str], list[Conversation]]] = {
    "claude-code": claude_code.parse,
    "chatgpt": chatgpt.parse,
    "pi": pi.parse,
    "codex": codex.parse,
    "aider": aider.parse,
    "markdown": markdown.parse,
    "cortexes": cortexes.parse,
    "raw": canonical.parse,
}

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


@dataclass
class ReadResult:
    source: str
    """Which reader understood the file (one of SOURCES)."""
    conversations: list[Conversation]
    """Empty when the file is valid but holds no dialogue (a summary-only session log)."""
    redactions: int
    """Secrets replaced by `[REDACTED:<kind>]` in this file."""


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


def _detect_text(path: Path, head: str) -> str | None:
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
    return _detect_text(Path(path), text[:HEAD_BYTES])


_NO_TURNS = (
    "no conversation turns found; start each turn with a `## user` or `## assistant` "
    "heading (see docs/formats.md) or remove the file from Raw/"
)


def _unknown(path: Path, text: str) -> TranscriptError:
    """The reason a file no reader took: unknown JSON, JSON cut short, or no turns."""
    s = text.lstrip("\ufeff \t\r\n")
    if not s.startswith(("{", "[")):
        return TranscriptError(path, _NO_TURNS)
    # JSONL is judged by its first record; a JSON document (maybe pretty-printed) whole.
    first = s.split("\n", 1)[0]
    candidates = [first, s] if s.startswith("{") and first.strip() != s.strip() else [s]
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            json.loads(candidate)
        except RecursionError:
            return TranscriptError(path, "JSON is nested too deeply to read; delete the file")
        except json.JSONDecodeError as e:
            error = e
            continue
        return TranscriptError(
            path,
            "JSON, but not a transcript format dreaming reads (ChatGPT conversations.json, "
            "Claude Code, Codex or pi session); remove it from Raw/",
        )
    if error is not None and looks_truncated(s, error):
        return IncompleteTranscript(
            path, "JSON ends early (file still being written?); it will be retried"
        )
    where = f" ({error.msg} at line {error.lineno} column {error.colno})" if error else ""
    return TranscriptError(
        path, f"neither valid JSON{where} nor a chat log with turns; re-export it or delete it"
    )


_SEP = "\n\x00\n"


def _redact_texts(texts: list[str]) -> tuple[list[str], int]:
    """Redact many texts in one pass over their concatenation (per-text calls cost more)."""
    if not any("\x00" in t for t in texts):
        joined, n = redact(_SEP.join(texts))
        if n == 0:
            return texts, 0
        parts = joined.split(_SEP)
        if len(parts) == len(texts):
            return parts, n
    total = 0
    out: list[str] = []
    for t in texts:
        t, n = redact(t)
        out.append(t)
        total += n
    return out, total


def _redact_all(conversations: list[Conversation]) -> tuple[list[Conversation], int]:
    """Redact every stored text; the count is the markers stored, which includes the ones
    readers made when they redacted a tool line or a title before shortening it."""
    total = 0
    out: list[Conversation] = []
    for conv in conversations:
        keys = list(conv.meta)
        texts = [m.text for m in conv.messages] + [conv.title or ""] + [conv.meta[k] for k in keys]
        new, n = _redact_texts(texts)
        total += sum(t.count(MARKER) for t in new)
        if n:
            k = len(conv.messages)
            messages = tuple(
                m if m.text == t else replace(m, text=t)
                for m, t in zip(conv.messages, new[:k], strict=True)
            )
            conv = replace(
                conv,
                messages=messages,
                title=new[k] if conv.title else conv.title,
                meta=dict(zip(keys, new[k + 1 :], strict=True)),
            )
        out.append(conv)
    return out, total


def read_transcript(path: Path, data: bytes | None = None) -> ReadResult:
    """Read one Raw file (its bytes, when the caller already has them)."""
    path = Path(path)
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise TranscriptError(
                path, f"cannot be read ({e.strerror or type(e).__name__}); check it exists"
            ) from None
    empty = TranscriptError(path, "file is empty; wait for the copy to finish or delete it")
    if not data.strip():
        raise empty
    kind = binary_kind(data[:HEAD_BYTES])
    if kind:
        raise TranscriptError(path, f"binary file ({kind}), not a transcript; remove it from Raw/")
    text = decode(path, data)
    if not text.strip():
        raise empty
    source = _detect_text(path, text[:HEAD_BYTES]) or "markdown"
    try:
        conversations = _READERS[source](path, text)
    except TranscriptError:
        raise
    except RecursionError:
        raise TranscriptError(path, "nested too deeply to read; delete the file") from None
    except Exception as e:  # the contract: a result or a TranscriptError, whatever the bytes
        raise TranscriptError(
            path, f"internal error reading it as {source} ({type(e).__name__}); please report"
        ) from e
    if not conversations and source in ("markdown", "raw"):
        # Nothing took the file (turns may also start past the detection head).
        raise _unknown(path, text)
    conversations, redactions = _redact_all(conversations)
    return ReadResult(source=source, conversations=conversations, redactions=redactions)
