"""Which part of the backlog the nights take first (`backlog_order`, `backlog_since`).

Newest first by default: a person who imported years of history wants to find this
month's work in the wiki the first morning, not 2019's. A conversation with no time at
all sorts as the oldest (as the ledger's chronological order has it), and is held back
by a date, which it cannot be shown to be after.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.config import BacklogOrder
from dreaming.ledger.work import BacklogRow


@dataclass(frozen=True, slots=True)
class Ordered:
    first: list[BacklogRow]
    """What the nights take, in the order they take it."""
    held: list[BacklogRow]
    """Updated before `backlog_since` (or undated while it is set): not taken until the
    date moves or goes."""


def ordered(rows: Sequence[BacklogRow], order: BacklogOrder, since: str | None) -> Ordered:
    """`rows` in the order the nights take them, those before `since` (YYYY-MM-DD)
    held back. Ties keep the conversation id's order: the same backlog, the same plan."""
    first: list[BacklogRow] = []
    held: list[BacklogRow] = []
    for row in rows:
        # ISO 8601 times compare as text; the date part is enough against a day.
        before = since is not None and (row.updated is None or row.updated[:10] < since)
        (held if before else first).append(row)
    # Sorted by id first, then (stably) by time: equal times keep the id's order.
    first.sort(key=lambda r: r.id)
    first.sort(key=lambda r: (r.updated is not None, r.updated or ""), reverse=order == "newest")
    held.sort(key=lambda r: r.id)
    held.sort(key=lambda r: (r.updated is not None, r.updated or ""))
    return Ordered(first, held)


def take(
    rows: Sequence[BacklogRow], limits: Sequence[tuple[float, float, float]], *, most: int
) -> list[BacklogRow]:
    """The next round of a night: the longest start of `rows` (at most `most`) that fits
    every limit, each (seconds a message, seconds a conversation, seconds left); always
    one at least, since a night that may run at all must make headway."""
    chosen: list[BacklogRow] = []
    messages = 0
    for row in rows[:most]:
        messages += row.messages
        taken = len(chosen) + 1
        if chosen and any(messages * per + taken * each > left for per, each, left in limits):
            break
        chosen.append(row)
    return chosen
