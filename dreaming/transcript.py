"""What every transcript reader returns: conversations of role-tagged messages."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal, get_args

Role = Literal["user", "assistant", "system", "tool"]
ROLES: tuple[Role, ...] = get_args(Role)


@dataclass(frozen=True)
class Message:
    role: Role
    text: str
    timestamp: str | None = None
    """ISO 8601 (UTC where the source says so), or None when the source has no times."""


@dataclass(frozen=True)
class Conversation:
    source: str
    """Reader name: claude-code, chatgpt, pi, codex, aider, markdown, cortexes, raw."""
    source_id: str
    """The source's own id (session UUID, conversation id), else a content hash."""
    messages: tuple[Message, ...]
    title: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    parent_id: str | None = None
    """For a subagent transcript: the source_id of the session that spawned it."""
    meta: dict[str, str] = field(default_factory=dict)
    """Small extra facts worth keeping (cwd, repo, model, outcome markers)."""
    own_id: bool = True
    """False when the source has no id and source_id is only a content hash: ingest then
    takes the conversation's identity from the file that holds it."""

    @property
    def hash8(self) -> str:
        """The `conv:HASH` citation key: first 8 hex of the conversation id."""
        return conv_hash(self.source_id)


def conv_hash(source_id: str) -> str:
    """First 8 hex of the id when it is a UUID/hex id, else of its SHA-256."""
    compact = source_id.replace("-", "").lower()
    if len(compact) >= 8 and all(c in "0123456789abcdef" for c in compact[:8]):
        return compact[:8]
    return hashlib.sha256(source_id.encode()).hexdigest()[:8]


def content_id(source: str, *parts: str) -> str:
    """A stable id for a source with no ids of its own."""
    h = hashlib.sha256(source.encode())
    for p in parts:
        h.update(b"\0")
        # A lone surrogate (a JSON "\\ud800") has no UTF-8; its code is hashed as it is.
        h.update(p.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]
