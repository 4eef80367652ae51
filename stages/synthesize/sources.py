"""Sources: the numbered excerpts a drafting call may cite, and their footnotes.

A model never writes a footnote definition. Code numbers the chunks a call
reads, shows each as `[N]` with its text, and writes every definition line
from the ledger (`conv:HASH`, date, source, the chunk's label), so a marker
the model places can only point at a conversation the ledger knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger, chunks, conversations
from stages.extract import chunk_text

UNDATED = "1970-01-01"
"""A conversation with no time at all still needs a date in its footnote."""


@dataclass(frozen=True, slots=True)
class Source:
    """One chunk as a drafting call reads it, with the footnote that cites it."""

    chunk_id: str
    label: str
    text: str
    """The chunk's messages as the model reads them (head and tail past a limit)."""
    hash8: str
    day: str
    """YYYY-MM-DD, as the footnote shows it."""
    source: str

    def footnote(self, number: int) -> Footnote:
        return Footnote(number, self.hash8, self.day, self.source, self.label)


def load(ledger: Ledger, chunk_ids: Sequence[str]) -> list[Source]:
    """The chunks as sources, in the order given; a chunk or conversation that is
    gone (re-segmented since) is left out."""
    out: list[Source] = []
    for chunk_id in chunk_ids:
        conv_id = chunk_id.rpartition(":")[0]
        chunk = next((c for c in chunks.of_conversation(ledger, conv_id) if c.id == chunk_id), None)
        cite = conversations.citation(ledger, conv_id)
        if chunk is None or cite is None:
            continue
        messages = conversations.message_range(
            ledger, conv_id, chunk.first_message, chunk.last_message
        )
        out.append(
            Source(
                chunk_id=chunk_id,
                label=chunk.label,
                text=chunk_text(messages),
                hash8=cite.hash8,
                day=_day(cite.date),
                source=cite.source,
            )
        )
    return out


def numbered(sources: Sequence[Source], first: int = 1) -> str:
    """The sources as a prompt shows them: `[N] (date) label` then the text."""
    return "\n\n".join(
        f"[{first + i}] ({s.day}) {s.label}\n{s.text}" for i, s in enumerate(sources)
    )


def _day(value: str) -> str:
    if (
        len(value) == 10
        and value[4] == "-"
        and value[7] == "-"
        and value.replace("-", "").isdigit()
    ):
        return value
    return UNDATED
