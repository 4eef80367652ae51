"""What the backlog will take, at the pace recent nights measured: pure arithmetic.

A night's model time is two kinds of work. Reading (SEGMENT asks about each shift of
topic, EXTRACT about each chunk) grows with the messages read, and a history mixes
three-message chats with sessions of hundreds. Writing (SYNTHESIZE and the stages after
it) goes by the subjects found, which grow with the conversations, not with their length.
So a backlog of C conversations holding M messages takes M times the nights' reading
seconds a message plus C times their writing seconds a conversation; on the corpus this
beat either rate alone (bench/bench_nights.py). Nothing is guessed: without a measured
night there is no estimate, and the caller says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Bound = Literal["night_ends", "max_model_seconds", "max_model_calls"]
"""What ends a night first at this pace (None: nothing does; the backlog is one night)."""


@dataclass(frozen=True, slots=True)
class Pace:
    """Recent nights' sums: what they took out of the backlog and what that cost."""

    nights: int
    conversations: int
    messages: int
    model_seconds: float
    """Summed model call durations (what `max_model_seconds` counts)."""
    wall_seconds: float
    """The nights' stage time on the clock, model load and code included (what fills the
    window to `night_ends`)."""
    calls: int
    reading_seconds: float = 0.0
    """The part of `model_seconds` SEGMENT and EXTRACT spent reading messages."""


@dataclass(frozen=True, slots=True)
class Estimate:
    conversations: int
    messages: int
    pace: Pace | None
    model_seconds: float | None = None
    """The backlog in model time; None: no night has measured a pace yet."""
    wall_seconds: float | None = None
    nights: int | None = None
    """Nights of the configured window and budgets; None without a pace."""
    bound: Bound | None = None

    @property
    def seconds_a_conversation(self) -> float | None:
        """Model seconds a conversation, as the measured nights averaged them."""
        p = self.pace
        return None if p is None or not p.conversations else p.model_seconds / p.conversations


def cost_a_message(pace: Pace) -> tuple[float, float]:
    """Model seconds a message (reading) and a conversation (writing) at `pace`."""
    reading = min(max(pace.reading_seconds, 0.0), pace.model_seconds)
    per_message = reading / pace.messages if pace.messages > 0 else 0.0
    writing = pace.model_seconds - reading
    per_conversation = writing / pace.conversations if pace.conversations > 0 else 0.0
    return per_message, per_conversation


# A sum of float parts can land a hair above a whole number of nights it equals.
_SLACK = 1e-9


def estimate(
    conversations: int,
    messages: int,
    pace: Pace | None,
    *,
    window_seconds: float | None,
    max_model_seconds: float | None = None,
    max_model_calls: int | None = None,
) -> Estimate:
    """The backlog of `conversations` holding `messages` at `pace`, in model time and in
    nights: the fewest nights in which every limit a night has (its window to
    night_ends, `max_model_seconds`, `max_model_calls`) holds its share of the work."""
    if pace is None or pace.messages <= 0 or pace.conversations <= 0:
        return Estimate(conversations, messages, None)
    per_message, per_conversation = cost_a_message(pace)
    model = messages * per_message + conversations * per_conversation
    # The clock and the calls follow the model time: the same work, at the nights' ratios.
    share = model / pace.model_seconds if pace.model_seconds > 0 else messages / pace.messages
    wall = pace.wall_seconds * share
    calls = pace.calls * share
    if conversations <= 0:
        return Estimate(conversations, messages, pace, model, wall, 0)
    limits: tuple[tuple[float, float | None, Bound], ...] = (
        (wall, window_seconds, "night_ends"),
        (model, max_model_seconds, "max_model_seconds"),
        (calls, max_model_calls, "max_model_calls"),
    )
    needs = [(total / limit, name) for total, limit, name in limits if limit]
    if not needs:
        return Estimate(conversations, messages, pace, model, wall, 1)
    most, bound = max(needs, key=lambda n: n[0])
    nights = max(1, math.ceil(most - _SLACK))
    return Estimate(conversations, messages, pace, model, wall, nights, bound)
