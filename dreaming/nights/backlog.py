"""The backlog as a person is told it (`dreaming status`, each run report): how many
conversations wait, in the order the nights take them, and what they will take at the
pace the recent nights measured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.config import BacklogOrder, Settings
from dreaming.ledger import Ledger, runs, work
from dreaming.nights.estimate import Estimate, Pace, cost_a_message, estimate
from dreaming.nights.order import ordered
from dreaming.nights.window import window_seconds

RECENT_NIGHTS = 5
"""Nights a pace is measured over: enough to even out one odd night, few enough to
follow a change of model or machine within a week."""


@dataclass(frozen=True, slots=True)
class Backlog:
    conversations: int
    """What the nights will take (those `backlog_since` holds back not counted)."""
    messages: int
    held: int
    """Conversations updated before `backlog_since`: they wait."""
    order: BacklogOrder
    since: str | None
    schedule: str
    night_ends: str | None
    estimate: Estimate


def pace(measured: Sequence[runs.RunPace]) -> Pace | None:
    """The nights' paces summed into one (None: none measured)."""
    if not measured:
        return None
    return Pace(
        nights=len(measured),
        conversations=sum(p.conversations for p in measured),
        messages=sum(p.messages for p in measured),
        model_seconds=sum(p.model_seconds for p in measured),
        wall_seconds=sum(p.stage_seconds for p in measured),
        calls=sum(p.calls for p in measured),
        reading_seconds=sum(p.reading_seconds for p in measured),
    )


def backlog(ledger: Ledger, settings: Settings) -> Backlog:
    found = ordered(work.backlog_rows(ledger), settings.backlog_order, settings.backlog_since)
    messages = sum(r.messages for r in found.first)
    guess = estimate(
        len(found.first),
        messages,
        pace(runs.measured(ledger, RECENT_NIGHTS)),
        window_seconds=window_seconds(settings.schedule, settings.night_ends),
        max_model_seconds=settings.max_model_seconds,
        max_model_calls=settings.max_model_calls,
    )
    return Backlog(
        len(found.first),
        messages,
        len(found.held),
        settings.backlog_order,
        settings.backlog_since,
        settings.schedule,
        settings.night_ends,
        guess,
    )


def described(b: Backlog) -> str:
    """What `status` and the run report say of the backlog, in a few plain sentences
    (empty when nothing waits)."""
    said: list[str] = []
    if b.conversations:
        said.append(
            f"{_count(b.conversations, 'conversation')} not yet synthesized "
            f"({_count(b.messages, 'message')}), {b.order} first"
            + (f" since {b.since}." if b.since else ".")
        )
    if b.held:
        verb = "waits" if b.held == 1 else "wait"
        said.append(
            f"{_count(b.held, 'older conversation')} {verb} until backlog_since ({b.since}) "
            "moves or goes."
        )
    if b.conversations:
        said.append(_estimate(b))
    return " ".join(said)


def _estimate(b: Backlog) -> str:
    e = b.estimate
    if e.pace is None or e.model_seconds is None or e.nights is None:
        return (
            "No night has measured its pace yet, so there is no estimate yet: the first "
            "night that takes conversations from the backlog measures it."
        )
    p = e.pace
    over = "the last night" if p.nights == 1 else f"the last {p.nights} nights"
    per_message, per_conversation = cost_a_message(p)
    line = (
        f"At the pace of {over} ({per_message:.1f} s of model time to read a message, "
        f"{per_conversation:.0f} s to write up a conversation): about "
        f"{_duration(e.model_seconds)} of model time, "
    )
    plural = "night" if e.nights == 1 else "nights"
    if e.bound == "night_ends":
        return line + f"about {e.nights} {plural} of {b.schedule}-{b.night_ends}."
    if e.bound is not None:
        return line + f"about {e.nights} {plural} at {e.bound} a night."
    return line + "one night with no set end (night_ends is off)."


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" + ("" if n == 1 else "s")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
