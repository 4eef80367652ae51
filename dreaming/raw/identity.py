"""One id a conversation of a file: chats of one file that a reader names alike stay apart.

A reader names a conversation by its source's own id, else by what stays as it grows:
when it began and what it opened with (`dreaming.transcript.unnamed_id`). Two chats of
one file can still share that name: a ChatGPT export without ids whose chats open alike
in the same second (or carry no times), two Aider sessions begun alike in one second, an
export holding two different chats under one id. The n-th different chat under a name
(n from 1, in file order) is `content_id(source, name, "#n")`: a file that grows keeps
its chats in their order, so each keeps its id. A chat that is an earlier state of one
before it under the same name (its messages are the other's first ones, or the other's
are its) is the same chat: only its fullest state is kept, where the first one stood.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from dreaming.transcript import Conversation, Message, content_id


def distinct(conversations: Sequence[Conversation]) -> list[Conversation]:
    """`conversations` each under an id no other of them has, earlier states folded in."""
    out: list[Conversation] = []
    alone: dict[str, int] = {}
    shared: dict[str, _Name] = {}
    for conv in conversations:
        name = shared.get(conv.source_id)
        if name is None:
            at = alone.get(conv.source_id)
            if at is None:
                alone[conv.source_id] = len(out)
                out.append(conv)
                continue
            # Digests only for a name two chats share: most files have none.
            name = shared[conv.source_id] = _Name()
            name.add(at, _digests(out[at].messages))
        digests = _digests(conv.messages)
        kept = name.same(digests)
        if kept is None:
            key = content_id(conv.source, conv.source_id, f"#{len(name.chats)}")
            name.add(len(out), digests)
            out.append(replace(conv, source_id=key))
        elif len(digests) > name.chats[kept].length:
            at = name.grow(kept, digests)
            out[at] = replace(conv, source_id=out[at].source_id)
    return out


@dataclass
class _Chat:
    at: int
    """Where it stands in the output."""
    length: int
    whole: bytes


@dataclass
class _Name:
    """The different chats of one file under one name, with the digest of every start
    of each: an earlier or later state is found in time linear in its messages."""

    chats: list[_Chat] = field(default_factory=list)
    starts: dict[bytes, int] = field(default_factory=dict)
    wholes: dict[bytes, int] = field(default_factory=dict)

    def same(self, digests: list[bytes]) -> int | None:
        """The chat `digests` is an earlier or later state of, if any."""
        found = self.starts.get(digests[-1])
        if found is not None:
            return found
        return next((self.wholes[d] for d in digests if d in self.wholes), None)

    def add(self, at: int, digests: list[bytes]) -> None:
        self.chats.append(_Chat(at, len(digests), digests[-1]))
        self._index(len(self.chats) - 1, digests)

    def grow(self, index: int, digests: list[bytes]) -> int:
        """The chat `index` is now the longer `digests`; where it stands."""
        chat = self.chats[index]
        # Its old end is a start now: a chat that parts from there is another one.
        self.wholes.pop(chat.whole, None)
        chat.length, chat.whole = len(digests), digests[-1]
        self._index(index, digests)
        return chat.at

    def _index(self, index: int, digests: list[bytes]) -> None:
        for d in digests:
            self.starts.setdefault(d, index)
        self.wholes[digests[-1]] = index


def _digests(messages: Sequence[Message]) -> list[bytes]:
    """The digest of each start of `messages` that holds one or more: equal digests,
    equal starts."""
    h = hashlib.sha256()
    out: list[bytes] = []
    for m in messages:
        for part in (m.role, m.text, m.timestamp or ""):
            data = part.encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
        out.append(h.digest())
    return out
