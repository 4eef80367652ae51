"""What the backlog will take: the arithmetic, pure, from the pace recent nights measured."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.nights.estimate import Pace, cost_a_message, estimate
from tests.support import draws

paces = st.builds(
    Pace,
    nights=st.integers(1, 10),
    conversations=st.integers(1, 500),
    messages=st.integers(1, 50_000),
    model_seconds=st.floats(0, 1e6, allow_nan=False),
    wall_seconds=st.floats(0, 1e6, allow_nan=False),
    calls=st.integers(0, 100_000),
    reading_seconds=st.floats(0, 1e6, allow_nan=False),
)
bounds = st.none() | st.floats(1, 1e6, allow_nan=False)


def test_the_backlog_in_model_time_and_nights_at_the_measured_pace() -> None:
    # Three nights took 30 conversations of 600 messages in 2,700 s of model time and
    # 3,000 s of their window; 1,200 s of it reading (2 s a message), the rest writing
    # (50 s a conversation).
    pace = Pace(nights=3, conversations=30, messages=600, model_seconds=2700.0,
                wall_seconds=3000.0, calls=900, reading_seconds=1200.0)  # fmt: skip
    found = estimate(600, 12_000, pace, window_seconds=4 * 3600)
    assert found.model_seconds == 12_000 * 2.0 + 600 * 50.0
    assert found.wall_seconds == found.model_seconds * 3000 / 2700
    assert found.nights == math.ceil(60_000 / 14_400)
    assert found.bound == "night_ends"
    assert found.seconds_a_conversation == 90.0


def test_reading_is_a_part_of_the_model_time_never_more() -> None:
    # Seconds of reading over the model time (calls charged twice, say) cap at all of it.
    pace = Pace(1, 4, 100, model_seconds=100.0, wall_seconds=100.0, calls=10,
                reading_seconds=500.0)  # fmt: skip
    assert cost_a_message(pace) == (1.0, 0.0)


def test_with_no_measurement_there_is_no_guess() -> None:
    found = estimate(600, 12_000, None, window_seconds=4 * 3600)
    assert (found.model_seconds, found.wall_seconds, found.nights) == (None, None, None)
    assert found.conversations == 600


def test_an_empty_backlog_takes_no_night() -> None:
    pace = Pace(1, 1, 10, 10.0, 10.0, 3)
    found = estimate(0, 0, pace, window_seconds=3600)
    assert (found.model_seconds, found.nights) == (0.0, 0)


def test_the_tighter_of_the_window_and_a_budget_sets_a_night() -> None:
    pace = Pace(1, 10, 100, model_seconds=1000.0, wall_seconds=1100.0, calls=500,
                reading_seconds=1000.0)  # fmt: skip
    # All reading, 10 s a message; 1,000 messages: 10,000 s of model time, 11,000 s of
    # night, 5,000 calls.
    assert estimate(10, 1000, pace, window_seconds=4000).nights == 3
    by_seconds = estimate(10, 1000, pace, window_seconds=4000, max_model_seconds=1000)
    assert (by_seconds.nights, by_seconds.bound) == (10, "max_model_seconds")
    by_calls = estimate(10, 1000, pace, window_seconds=None, max_model_calls=100)
    assert (by_calls.nights, by_calls.bound) == (50, "max_model_calls")
    assert estimate(10, 1000, pace, window_seconds=None).nights == 1, "no end: one night"


@settings(max_examples=draws(500), deadline=None)
@given(
    st.integers(0, 5_000),
    st.integers(0, 100_000),
    paces,
    bounds,
    bounds,
    st.none() | st.integers(1, 100_000),
)
def test_the_nights_are_the_fewest_whose_capacity_holds_the_backlog(
    conversations: int,
    messages: int,
    pace: Pace,
    window: float | None,
    max_seconds: float | None,
    max_calls: int | None,
) -> None:
    found = estimate(conversations, messages, pace, window_seconds=window,
                     max_model_seconds=max_seconds, max_model_calls=max_calls)  # fmt: skip
    assert found.model_seconds is not None
    assert found.wall_seconds is not None
    assert found.nights is not None
    per_message, per_conversation = cost_a_message(pace)
    model = messages * per_message + conversations * per_conversation
    assert math.isclose(found.model_seconds, model)
    if conversations == 0:
        assert found.nights == 0
        return
    assert found.nights >= 1
    if pace.model_seconds > 0:
        calls = pace.calls * model / pace.model_seconds
    else:
        calls = pace.calls * messages / pace.messages
    # What each limit lets one night do, and the nights that many of them need.
    for total, per_night in (
        (found.wall_seconds, window),
        (found.model_seconds, max_seconds),
        (calls, max_calls),
    ):
        if per_night is not None:
            assert found.nights * per_night >= total * (1 - 1e-9)
    needed = [
        total / per_night
        for total, per_night in (
            (found.wall_seconds, window),
            (found.model_seconds, max_seconds),
            (calls, max_calls),
        )
        if per_night is not None
    ]
    # One night fewer would not do: the tightest limit would overflow.
    assert found.nights == 1 or max(needed) > found.nights - 1 + 1e-9


@settings(max_examples=draws(300), deadline=None)
@given(st.integers(1, 5_000), st.integers(0, 50_000), st.integers(0, 50_000), paces, bounds)
def test_more_backlog_never_takes_fewer_nights_or_less_time(
    conversations: int, messages: int, more: int, pace: Pace, window: float | None
) -> None:
    less = estimate(conversations, messages, pace, window_seconds=window)
    bigger = estimate(conversations + 1, messages + more, pace, window_seconds=window)
    assert less.nights is not None
    assert bigger.nights is not None
    assert bigger.nights >= less.nights
    assert (bigger.model_seconds or 0) >= (less.model_seconds or 0)
