"""Redacting a read conversation: every field a reader lifted out of a transcript.

Not only the messages and the title: the id (a Markdown note's `id:` is whatever its
writer put there), the parent's id, times taken as they were written, and the small
facts in `meta` (cwd, branch, model) are stored in the ledger too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TypeVar

from dreaming.raw import deadline
from dreaming.raw.redact import MARKER, redact
from dreaming.transcript import Conversation

_SEP = "\n\x00\n"
T = TypeVar("T")


def _redact_texts(texts: list[str]) -> tuple[list[str], int]:
    """Redact many texts, a batch of about `_BATCH` characters at a time over their
    concatenation: per-text calls cost more, and one pass over a whole big conversation
    held many times its size at once (a 20 MB chat log peaked at 380 MB)."""
    out: list[str] = []
    total = 0
    start = 0
    while start < len(texts):
        deadline.check()
        end, size = start, 0
        while end < len(texts) and (end == start or size + len(texts[end]) <= _BATCH):
            size += len(texts[end])
            end += 1
        done, n = _redact_batch(texts[start:end])
        out += done
        total += n
        start = end
    return out, total


_BATCH = 1 << 20


def _redact_batch(texts: list[str]) -> tuple[list[str], int]:
    if not any("\x00" in t for t in texts):
        joined, n = redact(_SEP.join(texts))
        if n == 0:
            return texts, 0
        parts = joined.split(_SEP)
        if len(parts) == len(texts):
            return parts, n
    return _each(redact, texts)


def redact_conversations(conversations: list[Conversation]) -> tuple[list[Conversation], int]:
    """Redact every stored text; the count is the markers stored, which includes the ones
    readers made when they redacted a tool line or a title before shortening it."""
    return _each(_redact_one, conversations)


def _each(redacting: Callable[[T], tuple[T, int]], items: Iterable[T]) -> tuple[list[T], int]:
    """`redacting` applied to each item: what it made of each, and its counts summed."""
    out: list[T] = []
    total = 0
    for item in items:
        made, n = redacting(item)
        out.append(made)
        total += n
    return out, total


def _redact_one(conv: Conversation) -> tuple[Conversation, int]:
    keys = list(conv.meta)
    k = len(conv.messages)
    heads = (conv.title, conv.parent_id, conv.created_at, conv.updated_at)
    texts = [m.text for m in conv.messages] + [m.timestamp or "" for m in conv.messages]
    texts += [conv.source_id, *(h or "" for h in heads), *(conv.meta[key] for key in keys)]
    new, n = _redact_texts(texts)
    stored = sum(t.count(MARKER) for t in new)
    if not n:
        return conv, stored
    messages = tuple(
        m if (m.text, m.timestamp or "") == (t, s) else replace(m, text=t, timestamp=s or None)
        for m, t, s in zip(conv.messages, new[:k], new[k : 2 * k], strict=True)
    )
    source_id = new[2 * k]
    title, parent, created, updated = (new[2 * k + 1 + i] if h else h for i, h in enumerate(heads))
    return replace(
        conv,
        messages=messages,
        # A secret as the id names no conversation: the file that holds it does, as it
        # does for a source with no ids of its own.
        source_id=source_id,
        own_id=conv.own_id and source_id == conv.source_id,
        title=title,
        parent_id=parent,
        created_at=created,
        updated_at=updated,
        meta=dict(zip(keys, new[2 * k + 1 + len(heads) :], strict=True)),
    ), stored
