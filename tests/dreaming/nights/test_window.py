"""The night's window in local time: when a night must end, how long a night is."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.errors import DreamingError
from dreaming.nights.window import night_end, until, window_seconds
from tests.support import draws

times = st.builds(lambda h, m: f"{h:02d}:{m:02d}", st.integers(0, 23), st.integers(0, 59))
moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 12, 31))


def test_a_night_from_three_to_seven_is_four_hours() -> None:
    assert window_seconds("03:00", "07:00") == 4 * 3600
    assert window_seconds("23:30", "06:00") == 6.5 * 3600, "a window across midnight"
    assert window_seconds("03:00", None) is None


def test_a_scheduled_night_ends_at_night_ends_the_same_morning() -> None:
    start = datetime(2026, 3, 1, 3, 0, 5)
    assert night_end(start, "03:00", "07:00") == datetime(2026, 3, 1, 7, 0)


def test_a_night_across_midnight_ends_the_next_morning() -> None:
    start = datetime(2026, 3, 1, 23, 45)
    assert night_end(start, "23:30", "06:00") == datetime(2026, 3, 2, 6, 0)


def test_a_night_caught_up_after_its_window_closed_is_already_over() -> None:
    """The machine slept through 03:00-07:00 and woke at 09:12: that night's end passed."""
    start = datetime(2026, 3, 1, 9, 12)
    assert night_end(start, "03:00", "07:00") == datetime(2026, 3, 1, 7, 0)


def test_a_night_caught_up_inside_its_window_keeps_the_rest_of_it() -> None:
    start = datetime(2026, 3, 1, 5, 30)
    assert night_end(start, "03:00", "07:00") == datetime(2026, 3, 1, 7, 0)


@settings(max_examples=draws(300), deadline=None)
@given(moments, times, times)
def test_a_night_ends_at_night_ends_within_one_window_of_its_last_scheduled_start(
    start: datetime, schedule: str, ends: str
) -> None:
    if schedule == ends:
        return
    end = night_end(start, schedule, ends)
    length = window_seconds(schedule, ends)
    assert length is not None
    assert 0 < length < 24 * 3600
    assert end.strftime("%H:%M") == ends
    began = end - timedelta(seconds=length)
    assert began.strftime("%H:%M") == schedule
    # The schedule time it belongs to is the last one at or before the start.
    assert began <= start < began + timedelta(days=1)
    inside = start < end
    assert inside == (start - began < timedelta(seconds=length))


def test_until_a_time_of_day_is_its_next_occurrence() -> None:
    now = datetime(2026, 3, 1, 22, 0)
    assert until("07:00", now) == datetime(2026, 3, 2, 7, 0)
    assert until("23:15", now) == datetime(2026, 3, 1, 23, 15)


def test_until_a_full_local_time_is_that_time() -> None:
    now = datetime(2026, 3, 1, 3, 0)
    assert until("2026-03-01T07:00:00", now) == datetime(2026, 3, 1, 7, 0)


@pytest.mark.parametrize("text", ["7am", "25:00", "", "tomorrow", "2026-13-01T07:00"])
def test_a_bad_until_is_one_line_saying_what_to_write(text: str) -> None:
    with pytest.raises(DreamingError, match="HH:MM") as caught:
        until(text, datetime(2026, 3, 1, 3, 0))
    assert "\n" not in str(caught.value)
