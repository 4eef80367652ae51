"""The night's window: from `schedule` to `night_ends`, local wall-clock time.

Times here are naive local datetimes (what `datetime.now()` gives): the window is a
person's hours ("stop by 07:00"), so it follows the wall clock, across a change to or
from summer time too. Pure: the caller passes now.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from dreaming.errors import DreamingError

DAY = timedelta(days=1)


def clock_time(text: str) -> time:
    """A validated `HH:MM` or `HH:MM:SS` (the settings check it) as a time of day."""
    hour, minute, second = [*(int(p) for p in text.split(":")), 0][:3]
    return time(hour, minute, second)


def window_seconds(schedule: str, night_ends: str | None) -> float | None:
    """How long a night may run: from `schedule` to `night_ends`, across midnight when
    it ends earlier in the day than it starts; None when a night has no set end."""
    if night_ends is None:
        return None
    day = datetime(2000, 1, 1)
    start = datetime.combine(day, clock_time(schedule))
    end = datetime.combine(day, clock_time(night_ends))
    if end <= start:
        end += DAY
    return (end - start).total_seconds()


def night_end(started: datetime, schedule: str, night_ends: str) -> datetime:
    """When the night that started at `started` must stop: the first `night_ends` after
    the last `schedule` time at or before `started`. A night that started after its
    window closed (caught up when the machine woke at 09:00) gets an end already past:
    it reads Raw/ and leaves the model work for the next night, not the working day."""
    begun = datetime.combine(started.date(), clock_time(schedule))
    if begun > started:
        begun -= DAY
    end = datetime.combine(begun.date(), clock_time(night_ends))
    if end <= begun:
        end += DAY
    return end


def until(text: str, now: datetime) -> datetime:
    """`--until`'s value as a moment: `HH:MM` (or `HH:MM:SS`) is its next occurrence after
    `now`; a full local time (`2026-03-01T07:00:00`, what the watcher hands its night) is
    itself."""
    try:
        if "T" in text or "-" in text:
            moment = datetime.fromisoformat(text)
            # One with an offset is said in local time, as every other time here.
            return moment if moment.tzinfo is None else moment.astimezone().replace(tzinfo=None)
        if text.count(":") not in (1, 2):
            raise ValueError(text)
        moment = datetime.combine(now.date(), clock_time(text))
    except ValueError:
        raise DreamingError(
            f"--until {text!r}: not a time; write a local time HH:MM such as 07:00"
        ) from None
    return moment if moment > now else moment + DAY
