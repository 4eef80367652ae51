"""`chunks`: single-topic ranges of a conversation's messages, with a label.

A chunk is a pointer, not a copy: the messages stay in `messages`. Its id is
derived from the range, so segmenting the same conversation the same way gives
the same ids, and rows hanging off an unchanged chunk (its subjects, its bucket)
survive a re-segmentation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dreaming.ledger.connection import Ledger
from dreaming.ledger.conversations import StoredMessage


@dataclass(frozen=True, slots=True)
class Chunk:
    conv_id: str
    first_message: int
    last_message: int
    """Positions in the conversation, both included."""
    label: str
    input_hash: str
    """Digest of the messages it was cut from."""
    segmenter_version: str

    @property
    def id(self) -> str:
        return chunk_id(self.conv_id, self.first_message, self.last_message)


def chunk_id(conv_id: str, first: int, last: int) -> str:
    return f"{conv_id}:{first}-{last}"


def replace(ledger: Ledger, conv_id: str, chunks: Sequence[Chunk], now: str) -> None:
    """Make `chunks` the segmentation of `conv_id`.

    Chunks no longer in it go (with their subjects and bucket rows); the others are
    updated in place, so what hangs off them stays.
    """
    keep = [c.id for c in chunks]
    ledger.db.execute(
        "DELETE FROM chunks WHERE conv_id = ? AND id NOT IN (SELECT value FROM json_each(?))",
        (conv_id, json.dumps(keep)),
    )
    ledger.db.executemany(
        "INSERT INTO chunks(id, conv_id, first_message, last_message, label, input_hash, "
        "segmenter_version, created_at) VALUES (?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET label = excluded.label, "
        "input_hash = excluded.input_hash, segmenter_version = excluded.segmenter_version",
        [
            (
                c.id,
                c.conv_id,
                c.first_message,
                c.last_message,
                c.label,
                c.input_hash,
                c.segmenter_version,
                now,
            )
            for c in chunks
        ],
    )


def of_conversation(ledger: Ledger, conv_id: str) -> list[Chunk]:
    """The chunks of `conv_id`, in message order."""
    return [
        Chunk(*row)
        for row in ledger.db.execute(
            "SELECT conv_id, first_message, last_message, label, input_hash, segmenter_version "
            "FROM chunks WHERE conv_id = ? ORDER BY first_message",
            (conv_id,),
        )
    ]


_ORDER = "ORDER BY v.updated_at IS NULL, v.updated_at, c.conv_id, c.first_message"


def in_order(ledger: Ledger) -> list[Chunk]:
    """Every chunk, oldest conversation first (by its updated time), then by position."""
    return [
        Chunk(*row)
        for row in ledger.db.execute(
            "SELECT c.conv_id, c.first_message, c.last_message, c.label, c.input_hash, "
            f"c.segmenter_version FROM chunks c JOIN conversations v ON v.id = c.conv_id {_ORDER}"
        )
    ]


def in_order_with_messages(ledger: Ledger) -> Iterator[tuple[Chunk, list[StoredMessage]]]:
    """`in_order`'s chunks, each with its messages, read in one query: a stage that looks
    at every chunk's text (to hash its input) makes no query per chunk."""
    rows = ledger.db.execute(
        "SELECT c.conv_id, c.first_message, c.last_message, c.label, c.input_hash, "
        "c.segmenter_version, m.role, m.text, m.ts FROM chunks c "
        "JOIN conversations v ON v.id = c.conv_id "
        "LEFT JOIN messages m ON m.conv_id = c.conv_id "
        f"AND m.position BETWEEN c.first_message AND c.last_message {_ORDER}, m.position"
    )
    current: Chunk | None = None
    messages: list[StoredMessage] = []
    for row in rows:
        chunk = Chunk(*row[:6])
        if chunk != current:
            if current is not None:
                yield current, messages
            current, messages = chunk, []
        if row[6] is not None:
            messages.append(StoredMessage(*row[6:]))
    if current is not None:
        yield current, messages
