"""Buckets: one per story, where every chunk about it gathers until it is synthesized.

A bucket is keyed by its label as compared (`label_key`), so the same story
found again joins its bucket. `CAPTURED` is the catch-all for chunks whose
subjects have no article yet; nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.ledger.connection import Ledger

CAPTURED = 0
"""The id of `_captured`, made by the migration that made buckets."""


@dataclass(frozen=True, slots=True)
class Bucket:
    id: int
    label: str
    label_key: str


def for_label(ledger: Ledger, label: str, label_key: str, now: str) -> Bucket:
    """The bucket of this story, made if it is new."""
    ledger.db.execute(
        "INSERT INTO buckets(label, label_key, created_at, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(label_key) DO NOTHING",
        (label, label_key, now, now),
    )
    row = ledger.db.execute(
        "SELECT id, label, label_key FROM buckets WHERE label_key = ?", (label_key,)
    ).fetchone()
    return Bucket(*row)


def add_chunk(ledger: Ledger, bucket_id: int, chunk_id: str, now: str) -> None:
    """Put a chunk in a bucket (again: no change)."""
    cur = ledger.db.execute(
        "INSERT INTO bucket_chunks(bucket_id, chunk_id, added_at) VALUES (?, ?, ?) "
        "ON CONFLICT(bucket_id, chunk_id) DO NOTHING",
        (bucket_id, chunk_id, now),
    )
    if cur.rowcount:
        ledger.db.execute("UPDATE buckets SET updated_at = ? WHERE id = ?", (now, bucket_id))


def with_delta(ledger: Ledger) -> list[Bucket]:
    """The buckets holding chunks not yet synthesized, by id."""
    return [
        Bucket(*row)
        for row in ledger.db.execute(
            "SELECT b.id, b.label, b.label_key FROM buckets b WHERE EXISTS ("
            "SELECT 1 FROM bucket_chunks bc WHERE bc.bucket_id = b.id "
            "AND bc.synthesized_run IS NULL) ORDER BY b.id"
        )
    ]


def delta(ledger: Ledger, bucket_id: int) -> list[str]:
    """The ids of the bucket's chunks not yet synthesized, oldest conversation first,
    then in message order."""
    return [
        row[0]
        for row in ledger.db.execute(
            "SELECT c.id FROM bucket_chunks bc JOIN chunks c ON c.id = bc.chunk_id "
            "JOIN conversations v ON v.id = c.conv_id "
            "WHERE bc.bucket_id = ? AND bc.synthesized_run IS NULL "
            "ORDER BY v.updated_at, v.id, c.first_message",
            (bucket_id,),
        )
    ]


def mark_synthesized(ledger: Ledger, bucket_id: int, chunk_ids: list[str], run_id: str) -> None:
    """The run `run_id` folded these chunks of the bucket into their articles."""
    ledger.db.executemany(
        "UPDATE bucket_chunks SET synthesized_run = ? WHERE bucket_id = ? AND chunk_id = ?",
        [(run_id, bucket_id, c) for c in chunk_ids],
    )


@dataclass(frozen=True, slots=True)
class Loose:
    """A chunk in no story bucket yet (`_captured` is no story)."""

    chunk_id: str
    label: str
    seen: str | None
    """Its conversation's updated time."""
    title: str = ""
    """Its conversation's title ("" when it has none), for progress."""


_LOOSE = (
    "SELECT c.id, c.label, v.updated_at, COALESCE(v.title, '') FROM chunks c "
    "JOIN conversations v ON v.id = c.conv_id WHERE NOT EXISTS ("
    "SELECT 1 FROM bucket_chunks bc WHERE bc.chunk_id = c.id AND bc.bucket_id != 0)"
)


def loose_chunks(ledger: Ledger) -> list[Loose]:
    """The chunks in no story bucket, oldest conversation first, then by position."""
    return [
        Loose(*row)
        for row in ledger.db.execute(
            f"{_LOOSE} ORDER BY v.updated_at IS NULL, v.updated_at, c.conv_id, c.first_message"
        )
    ]


def loose_chunk(ledger: Ledger, chunk_id: str) -> Loose | None:
    """The chunk `chunk_id` if it is in no story bucket."""
    row = ledger.db.execute(f"{_LOOSE} AND c.id = ?", (chunk_id,)).fetchone()
    return None if row is None else Loose(*row)


def by_key(ledger: Ledger, label_key: str) -> Bucket | None:
    row = ledger.db.execute(
        "SELECT id, label, label_key FROM buckets WHERE label_key = ?", (label_key,)
    ).fetchone()
    return None if row is None else Bucket(*row)


def stories_since(ledger: Ledger, since: str | None) -> list[Bucket]:
    """The story buckets holding a chunk of a conversation updated at or after `since`
    (every story bucket when None; a conversation with no time counts as recent), by id."""
    return [
        Bucket(*row)
        for row in ledger.db.execute(
            "SELECT b.id, b.label, b.label_key FROM buckets b WHERE b.id != 0 AND EXISTS ("
            "SELECT 1 FROM bucket_chunks bc JOIN chunks c ON c.id = bc.chunk_id "
            "JOIN conversations v ON v.id = c.conv_id WHERE bc.bucket_id = b.id "
            "AND (? IS NULL OR v.updated_at IS NULL OR v.updated_at >= ?)) ORDER BY b.id",
            (since, since),
        )
    ]


def chunk_labels(ledger: Ledger, bucket_id: int, limit: int) -> list[str]:
    """The distinct labels of the bucket's chunks, most recent conversation first."""
    return [
        row[0]
        for row in ledger.db.execute(
            "SELECT c.label FROM bucket_chunks bc JOIN chunks c ON c.id = bc.chunk_id "
            "JOIN conversations v ON v.id = c.conv_id WHERE bc.bucket_id = ? "
            "GROUP BY c.label ORDER BY max(coalesce(v.updated_at, '')) DESC, c.label LIMIT ?",
            (bucket_id, limit),
        )
    ]


def of_chunk(ledger: Ledger, chunk_id: str) -> list[int]:
    """The ids of the buckets holding a chunk (`_captured` first when it is one)."""
    return [
        row[0]
        for row in ledger.db.execute(
            "SELECT bucket_id FROM bucket_chunks WHERE chunk_id = ? ORDER BY bucket_id",
            (chunk_id,),
        )
    ]


def pending_in_a_story(ledger: Ledger, chunk_ids: Sequence[str]) -> set[str]:
    """Those of `chunk_ids` not yet synthesized in a story bucket (any but `_captured`)."""
    return {
        row[0]
        for row in ledger.each_in(
            "SELECT DISTINCT chunk_id FROM bucket_chunks WHERE bucket_id != ? "
            "AND synthesized_run IS NULL AND chunk_id IN ({marks})",
            chunk_ids,
            CAPTURED,
        )
    }
