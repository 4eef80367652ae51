"""`conversations`, their `messages`, and `file_conversations` (which Raw file holds which copy).

A conversation's row points at the Raw file holding its fullest copy; every file
holding a copy has a `file_conversations` row with that copy's length and digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from dreaming.ledger.connection import Ledger
from dreaming.transcript import Conversation, Message, Role, content_id

NUMBERED = 64
"""How many chats under one name are numbered across files; more are named by their file."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What ingest compares a freshly read conversation against."""

    file: str
    message_count: int
    content_sha: str


@dataclass(frozen=True, slots=True)
class StoredMessage:
    role: Role
    text: str
    ts: str | None


@dataclass(frozen=True, slots=True)
class NewConversation:
    id: str
    hash8: str
    source: str
    file: str
    parent_id: str | None
    title: str | None
    created_at: str | None
    updated_at: str | None
    message_count: int
    content_sha: str


@dataclass(frozen=True, slots=True)
class SourceCount:
    source: str
    conversations: int
    messages: int


@dataclass(frozen=True, slots=True)
class Holding:
    """One file's copy of a conversation, beside the copy the ledger holds."""

    path: str
    conv_id: str
    message_count: int
    content_sha: str
    held_file: str
    held_sha: str


def messages_sha(messages: Iterable[tuple[str, str, str | None]]) -> str:
    """A digest of (role, text, timestamp) triples: equal digests, equal conversations."""
    h = hashlib.sha256()
    for role, text, ts in messages:
        h.update(role.encode())
        h.update(b"\0")
        h.update(text.encode())
        h.update(b"\0")
        h.update((ts or "").encode())
        h.update(b"\x1e")
    return h.hexdigest()


def get(ledger: Ledger, conv_id: str) -> Stored | None:
    row = ledger.db.execute(
        "SELECT file, message_count, content_sha FROM conversations WHERE id = ?", (conv_id,)
    ).fetchone()
    return None if row is None else Stored(*row)


def title(ledger: Ledger, conv_id: str) -> str:
    """The conversation's title as its source gave it ("" when it has none)."""
    row = ledger.db.execute("SELECT title FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    return str(row[0]) if row is not None and row[0] else ""


def known_hash8s(ledger: Ledger, hash8s: Iterable[str]) -> set[str]:
    """Those of `hash8s` that name a stored conversation (what a citation's `conv:HASH` is)."""
    wanted = sorted(set(hash8s))
    sql = "SELECT DISTINCT hash8 FROM conversations WHERE hash8 IN ({marks})"
    return {str(row[0]) for row in ledger.each_in(sql, wanted)}


def with_hash8(ledger: Ledger, hash8: str) -> list[str]:
    """The conversations a `conv:HASH` citation may name (a subagent shares its parent's)."""
    rows = ledger.db.execute("SELECT id FROM conversations WHERE hash8 = ? ORDER BY id", (hash8,))
    return [str(row[0]) for row in rows]


def with_content(ledger: Ledger, source: str, content_sha: str) -> str | None:
    """The id of a stored conversation of `source` with exactly these messages, if any."""
    row = ledger.db.execute(
        "SELECT id FROM conversations WHERE source = ? AND content_sha = ? ORDER BY id LIMIT 1",
        (source, content_sha),
    ).fetchone()
    return None if row is None else str(row[0])


def put(ledger: Ledger, c: NewConversation, now: str) -> None:
    """Insert `c`, or update the stored conversation of that id to it."""
    ledger.db.execute(
        "INSERT INTO conversations(id, hash8, source, file, parent_id, title, created_at, "
        "updated_at, message_count, content_sha, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET file=excluded.file, source=excluded.source, "
        "parent_id=excluded.parent_id, title=excluded.title, created_at=excluded.created_at, "
        "updated_at=excluded.updated_at, message_count=excluded.message_count, "
        "content_sha=excluded.content_sha, ingested_at=excluded.ingested_at",
        (
            c.id,
            c.hash8,
            c.source,
            c.file,
            c.parent_id,
            c.title,
            c.created_at,
            c.updated_at,
            c.message_count,
            c.content_sha,
            now,
        ),
    )


def held_by(ledger: Ledger, path: str) -> set[str]:
    """The ids of the conversations the file `path` holds a copy of."""
    return {
        row[0]
        for row in ledger.db.execute(
            "SELECT conv_id FROM file_conversations WHERE path = ?", (path,)
        )
    }


def release_file(ledger: Ledger, path: str) -> None:
    """Forget which conversations `path` holds (before reading it again)."""
    ledger.db.execute("DELETE FROM file_conversations WHERE path = ?", (path,))


def hold(ledger: Ledger, path: str, conv_id: str, message_count: int, content_sha: str) -> None:
    """Record that `path` holds a copy of `conv_id` of that length and digest."""
    ledger.db.execute(
        "INSERT OR REPLACE INTO file_conversations(path, conv_id, message_count, content_sha) "
        "VALUES (?, ?, ?, ?)",
        (path, conv_id, message_count, content_sha),
    )


def in_file(ledger: Ledger, path: str) -> list[str]:
    """The ids of the conversations whose fullest copy is `path`."""
    return [
        row[0] for row in ledger.db.execute("SELECT id FROM conversations WHERE file = ?", (path,))
    ]


def fullest_holder(ledger: Ledger, conv_id: str) -> str | None:
    """The file holding the longest copy of `conv_id` (ties: the first path)."""
    row = ledger.db.execute(
        "SELECT path FROM file_conversations WHERE conv_id = ? "
        "ORDER BY message_count DESC, path LIMIT 1",
        (conv_id,),
    ).fetchone()
    return None if row is None else str(row[0])


def move_to(ledger: Ledger, conv_id: str, path: str) -> None:
    ledger.db.execute("UPDATE conversations SET file = ? WHERE id = ?", (path, conv_id))


def messages(ledger: Ledger, conv_id: str, below: int | None = None) -> Iterator[StoredMessage]:
    """The stored messages of `conv_id` in order (only positions < `below` when given)."""
    if below is None:
        rows = ledger.db.execute(
            "SELECT role, text, ts FROM messages WHERE conv_id = ? ORDER BY position", (conv_id,)
        )
    else:
        rows = ledger.db.execute(
            "SELECT role, text, ts FROM messages WHERE conv_id = ? AND position < ? "
            "ORDER BY position",
            (conv_id, below),
        )
    return (StoredMessage(*row) for row in rows)


def message_range(ledger: Ledger, conv_id: str, first: int, last: int) -> list[StoredMessage]:
    """The stored messages of `conv_id` at positions `first`..`last`, both included."""
    return [
        StoredMessage(*row)
        for row in ledger.db.execute(
            "SELECT role, text, ts FROM messages WHERE conv_id = ? AND position BETWEEN ? AND ? "
            "ORDER BY position",
            (conv_id, first, last),
        )
    ]


def rewrite_messages(ledger: Ledger, conv_id: str, changed: Sequence[tuple[int, Message]]) -> None:
    """Overwrite the messages at the given positions."""
    ledger.db.executemany(
        "UPDATE messages SET role=?, text=?, ts=? WHERE conv_id=? AND position=?",
        [(m.role, m.text, m.timestamp, conv_id, i) for i, m in changed],
    )


def add_messages(ledger: Ledger, conv_id: str, start: int, new: Sequence[Message]) -> None:
    """Store `new` at positions `start`, `start` + 1, ..."""
    ledger.db.executemany(
        "INSERT INTO messages(conv_id, position, role, text, ts) VALUES (?,?,?,?,?)",
        [(conv_id, i, m.role, m.text, m.timestamp) for i, m in enumerate(new, start=start)],
    )


def truncate_messages(ledger: Ledger, conv_id: str, count: int) -> None:
    """Drop the messages at positions >= `count`."""
    ledger.db.execute("DELETE FROM messages WHERE conv_id = ? AND position >= ?", (conv_id, count))


@dataclass
class StoreCounts:
    """What `store` changed: conversations new and updated, messages added."""

    new: int = 0
    updated: int = 0
    messages_added: int = 0


def store(ledger: Ledger, rel: str, read: Sequence[Conversation], now: str) -> StoreCounts:
    """The conversations read from the Raw file `rel`, stored: each under its identity
    (`_identity`), the file's holdings replaced, messages touched only where they differ."""
    held = _Held(ledger, held_by(ledger, rel), {c.source_id for c in read}, len(read))
    release_file(ledger, rel)
    out = StoreCounts()
    for conv in read:
        conv = replace(conv, source_id=_identity(ledger, rel, conv, held))
        held.named.add(conv.source_id)
        _store_one(ledger, rel, conv, now, out)
    return out


class _Held:
    """The conversations a file held before this reading of it."""

    def __init__(self, ledger: Ledger, ids: set[str], named: set[str], count: int) -> None:
        self._ledger = ledger
        # The file names its conversation only when it holds one (an aider history holds many).
        self.single = next(iter(ids)) if count == 1 and len(ids) == 1 else None
        self._free = sorted(ids - named) if count > 1 else []
        self.named = set(named)
        """The ids this reading names or has given: none goes to a second chat of it."""
        self._by_opening: dict[tuple[str, str, str | None], list[str]] | None = None

    def earlier_state(self, conv: Conversation) -> str | None:
        """The id of a conversation the file held under a name no chat read now has (an
        older dreaming named chats without ids otherwise) that is an earlier or later state
        of `conv`; each is given once."""
        if not self._free:
            return None
        if self._by_opening is None:
            self._by_opening = {}
            sql = (
                "SELECT conv_id, role, text, ts FROM messages "
                "WHERE position = 0 AND conv_id IN ({marks})"
            )
            for held in self._ledger.each_in(sql, self._free):
                self._by_opening.setdefault((held[1], held[2], held[3]), []).append(str(held[0]))
        first = conv.messages[0]
        ids = self._by_opening.get((first.role, first.text, first.timestamp), [])
        for conv_id in ids:
            row = get(self._ledger, conv_id)
            if row is not None and _same_lineage(self._ledger, conv_id, row, conv):
                ids.remove(conv_id)
                return conv_id
        return None


def _identity(ledger: Ledger, rel: str, conv: Conversation, held: _Held) -> str:
    """The ledger id of `conv` as read from the file `rel`.

    A source's own id names the conversation; a source without one is named by its
    file (a single-conversation file keeps the id it had, however it is edited), or in a
    file of many by when it began and what it opened with (`dreaming.raw.identity`), an
    earlier state of it the file held keeping its id. Either way another file's copy
    joins a conversation only as an earlier or later state of it (one is a prefix of
    the other); a different chat under the same id (chats that open alike, a copy with
    a line duplicated) is kept as a conversation of its own.
    """
    candidate = conv.source_id
    if not conv.own_id and held.single is not None:
        candidate = held.single
    row = get(ledger, candidate)
    if row is None and not conv.own_id:
        return held.earlier_state(conv) or candidate
    if row is None or row.file == rel or _same_lineage(ledger, candidate, row, conv):
        return candidate
    if not conv.own_id:
        # An exact copy is the same chat: a renamed file keeps the id its old name minted.
        sha = messages_sha((m.role, m.text, m.timestamp) for m in conv.messages)
        twin = with_content(ledger, conv.source, sha)
        if twin is not None:
            return twin
    # Numbered as a file's chats named alike are (`dreaming.raw.identity`): an export
    # split a conversation a file gives them the ids it gives read whole.
    for n in range(1, NUMBERED):
        numbered = content_id(conv.source, candidate, f"#{n}")
        row = get(ledger, numbered)
        if numbered in held.named:
            continue
        if row is None or _same_lineage(ledger, numbered, row, conv):
            return numbered
    return content_id(conv.source, candidate, rel)


def _same_lineage(ledger: Ledger, conv_id: str, row: Stored, conv: Conversation) -> bool:
    """Whether the stored conversation and `conv` are one a prefix of the other."""
    new = [(m.role, m.text, m.timestamp) for m in conv.messages]
    if row.message_count <= len(new):
        return messages_sha(new[: row.message_count]) == row.content_sha
    stored = messages(ledger, conv_id, below=len(new))
    return messages_sha((m.role, m.text, m.ts) for m in stored) == messages_sha(new)


def _store_one(ledger: Ledger, rel: str, conv: Conversation, now: str, out: StoreCounts) -> None:
    sha = messages_sha((m.role, m.text, m.timestamp) for m in conv.messages)
    count = len(conv.messages)
    hold(ledger, rel, conv.source_id, count, sha)
    existing = get(ledger, conv.source_id)
    if existing is not None and (
        existing.content_sha == sha
        # An older or shorter copy of a conversation another file holds in full.
        or (existing.file != rel and count <= existing.message_count)
    ):
        return
    put(
        ledger,
        NewConversation(
            id=conv.source_id,
            hash8=conv.hash8,
            source=conv.source,
            file=rel,
            parent_id=conv.parent_id,
            title=conv.title,
            created_at=conv.created_at,
            updated_at=conv.updated_at,
            message_count=count,
            content_sha=sha,
        ),
        now,
    )
    out.messages_added += _sync_messages(ledger, conv)
    if existing is None:
        out.new += 1
    else:
        out.updated += 1


def _sync_messages(ledger: Ledger, conv: Conversation) -> int:
    """Bring stored messages in line with `conv`, touching only positions that differ."""
    stored = list(messages(ledger, conv.source_id))
    changed = [
        (i, m)
        for i, (m, s) in enumerate(zip(conv.messages, stored, strict=False))
        if (s.role, s.text, s.ts) != (m.role, m.text, m.timestamp)
    ]
    rewrite_messages(ledger, conv.source_id, changed)
    new = conv.messages[len(stored) :]
    add_messages(ledger, conv.source_id, len(stored), new)
    truncate_messages(ledger, conv.source_id, len(conv.messages))
    return len(new)


def by_source(ledger: Ledger) -> list[SourceCount]:
    """Conversations and messages per source, by source name."""
    return [
        SourceCount(*row)
        for row in ledger.db.execute(
            "SELECT source, COUNT(*), COALESCE(SUM(message_count), 0) "
            "FROM conversations GROUP BY source ORDER BY source"
        )
    ]


def holdings(ledger: Ledger, path: str | None = None) -> list[Holding]:
    """Every file's copy of every conversation (or only the copies `path` holds), by path."""
    sql = (
        "SELECT fc.path, fc.conv_id, fc.message_count, fc.content_sha, c.file, c.content_sha "
        "FROM file_conversations fc JOIN conversations c ON c.id = fc.conv_id"
    )
    if path is None:
        rows = ledger.db.execute(f"{sql} ORDER BY fc.path, fc.conv_id")
    else:
        rows = ledger.db.execute(f"{sql} WHERE fc.path = ? ORDER BY fc.conv_id", (path,))
    return [Holding(*row) for row in rows]


@dataclass(frozen=True, slots=True)
class Superseded:
    """A Raw file each conversation of which another file holds, whole or longer."""

    path: str
    holders: tuple[str, ...]
    """The files holding the fullest copies, by path."""
    exact: bool
    """Every copy in it is whole (a duplicate); else at least one is a shorter start."""


def superseded(ledger: Ledger, path: str | None = None) -> list[Superseded]:
    """The files (or only `path`, when it is one) that hold nothing another file does not.

    A copy counts when its messages are exactly the stored conversation's or the start of
    them: the stored messages are the holder's, so the holder has every message of it.
    """
    found: dict[str, tuple[set[str], bool] | None] = {}
    for h in holdings(ledger, path):
        if h.path in found and found[h.path] is None:
            continue
        exact = h.content_sha == h.held_sha
        if h.held_file == h.path or not (
            exact or _is_prefix(ledger, h.conv_id, h.message_count, h.content_sha)
        ):
            found[h.path] = None
            continue
        holders, all_exact = found.get(h.path) or (set(), True)
        found[h.path] = (holders | {h.held_file}, all_exact and exact)
    return [
        Superseded(p, tuple(sorted(v[0])), v[1]) for p, v in sorted(found.items()) if v is not None
    ]


def _is_prefix(ledger: Ledger, conv_id: str, count: int, sha: str) -> bool:
    rows = messages(ledger, conv_id, below=count)
    return messages_sha((m.role, m.text, m.ts) for m in rows) == sha


@dataclass(frozen=True, slots=True)
class Updated:
    id: str
    title: str | None
    message_count: int
    content_sha: str


def by_updated(ledger: Ledger) -> list[Updated]:
    """Every conversation, least recently updated first (no time: first; ties: by id)."""
    return [
        Updated(*row)
        for row in ledger.db.execute(
            "SELECT id, title, message_count, content_sha FROM conversations "
            "ORDER BY updated_at IS NOT NULL, updated_at, id"
        )
    ]


@dataclass(frozen=True, slots=True)
class Citation:
    """What a footnote says about a conversation."""

    hash8: str
    date: str
    """YYYY-MM-DD of its last activity (its first, when it has no later time)."""
    source: str


def citation(ledger: Ledger, conv_id: str) -> Citation | None:
    row = ledger.db.execute(
        "SELECT hash8, coalesce(updated_at, created_at, ''), source "
        "FROM conversations WHERE id = ?",
        (conv_id,),
    ).fetchone()
    return None if row is None else Citation(row[0], str(row[1])[:10], row[2])
