"""A night takes the backlog a slice at a time: each round, the next conversations in the
person's order (`backlog_order`, `backlog_since`) go through every stage.

The stages are ordered by kind (every SEGMENT before any EXTRACT…), so a night handed a
year of history whole would spend its hours segmenting and extracting it and write no
article before the last of it was done, many nights later. In rounds, the first morning
already has the articles of the newest conversations, and a night stopped by its end
leaves whole conversations behind, not a half-done stage.

SEGMENT is the gate: it skips the conversations a round leaves `waiting`, and every later
stage works only on what SEGMENT made. Only conversations SEGMENT never did wait: one it
did and that grew, or whose chunks EXTRACT has not finished, is ordinary work and goes on.
A round's size is what fits in the time left at the pace measured (this night's rounds
first, else the recent nights'); with no pace yet, a small first round measures it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from time import monotonic

from dreaming.config import Settings
from dreaming.ledger import Ledger, runs, work
from dreaming.model import MeteredModel
from dreaming.nights.backlog import RECENT_NIGHTS, pace
from dreaming.nights.estimate import cost_a_message
from dreaming.nights.order import ordered, take

FIRST_ROUND = 4
"""Conversations in a round when no pace is known: small, so that the night has measured
one before it commits to more, and the first articles come early."""
MOST_A_ROUND = 20
"""The most conversations in one round: a round is also how long a new conversation's
articles wait for the ones before it (20 at ~90 s each is half an hour of a CPU night)."""
FILL = 0.7
"""The share of the time left a round plans to use. A pace is good to a few tens of
percent, so a round planned to fill the time exactly is cut half the time, leaving its
later stages' work (and the cost of it) to the next night; planned at 70 %, the last
rounds of a night get smaller and smaller and the end cuts little."""


@dataclass(frozen=True, slots=True)
class Round:
    waiting: frozenset[str]
    """Conversations SEGMENT skips this round (the rest of the backlog, and what
    `backlog_since` holds back)."""
    taken: int
    """Backlog conversations this round offers SEGMENT."""


@dataclass
class Rounds:
    """The night's rounds, and what they took out of the backlog at what cost."""

    ledger: Ledger
    settings: Settings
    until: datetime | None = None
    clock: Callable[[], datetime] = datetime.now
    limit: int | None = None
    """A person's `--limit`: one round of at most that many."""
    whole: bool = False
    """One round of everything due (a run of one stage, or `--since-policy`)."""
    offered: set[str] = field(default_factory=set)
    """Backlog conversations already offered to SEGMENT this night: one that failed is
    not offered again before the next night."""
    count: int = 0
    """Rounds begun this night."""
    started: float = 0.0
    size: tuple[int, int] = (0, 0)
    """(conversations, messages) of the backlog when the stages began."""

    def begin(self) -> None:
        """Mark where the stages begin (after INGEST): the pace is measured from here."""
        self.started = monotonic()
        self.size = _size(self.ledger)

    def next(self, spent: MeteredModel | None) -> Round | None:
        """The next round, or None when the backlog holds nothing more for this night
        (a first round always runs: it does the ordinary work too)."""
        if self.count and (self.whole or self.limit is not None):
            return None
        rows = work.backlog_rows(self.ledger)
        found = ordered(rows, self.settings.backlog_order, self.settings.backlog_since)
        fresh = [r for r in found.first if not r.segmented and r.id not in self.offered]
        if self.count and not fresh:
            return None
        self.count += 1
        if self.whole or self.limit is not None:
            chosen = fresh if self.limit is None else fresh[: self.limit]
        else:
            chosen = self._fitting(fresh, spent)
        self.offered |= {r.id for r in chosen}
        chosen_ids = {r.id for r in chosen}
        waiting = frozenset(r.id for r in rows if not r.segmented and r.id not in chosen_ids)
        return Round(waiting, len(chosen))

    def more(self) -> bool:
        """Whether the backlog holds conversations this night never offered to SEGMENT."""
        rows = work.backlog_rows(self.ledger)
        found = ordered(rows, self.settings.backlog_order, self.settings.backlog_since)
        return any(not r.segmented and r.id not in self.offered for r in found.first)

    def taken(self, spent: MeteredModel | None) -> runs.RunPace:
        """What the night took out of the backlog so far, and at what cost."""
        conversations, messages = _size(self.ledger)
        return runs.RunPace(
            max(0, self.size[0] - conversations),
            max(0, self.size[1] - messages),
            spent.seconds if spent else 0.0,
            monotonic() - self.started if self.started else 0.0,
            spent.calls if spent else 0,
            sum(
                spent.totals[s].usage.seconds
                for s in runs.READING_STAGES
                if spent is not None and s in spent.totals
            ),
        )

    def _fitting(
        self, fresh: list[work.BacklogRow], spent: MeteredModel | None
    ) -> list[work.BacklogRow]:
        # This night's rounds so far (the machine as it is tonight) with the recent nights
        # (more conversations than a round or two: a steadier pace).
        so_far = self.taken(spent)
        tonight = [so_far] if so_far.messages else []
        found = pace(tonight + runs.measured(self.ledger, RECENT_NIGHTS))
        if found is None or found.messages <= 0:
            return fresh[:FIRST_ROUND]
        per_message, per_conversation = cost_a_message(found)
        model_seconds = so_far.model_seconds
        limits: list[tuple[float, float, float]] = []
        if self.until is not None:
            left = (self.until - self.clock()).total_seconds()
            wall = found.wall_seconds / found.model_seconds if found.model_seconds > 0 else 1.0
            limits.append((per_message * wall, per_conversation * wall, left * FILL))
        budget = self.settings.max_model_seconds
        if budget is not None:
            limits.append((per_message, per_conversation, (budget - model_seconds) * FILL))
        return take(fresh, limits, most=MOST_A_ROUND)


def _size(ledger: Ledger) -> tuple[int, int]:
    rows = work.backlog_rows(ledger)
    return len(rows), sum(r.messages for r in rows)
