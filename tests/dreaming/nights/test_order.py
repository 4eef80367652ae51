"""Which part of the backlog the nights take first: newest or oldest, and since a date."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.ledger.work import BacklogRow
from dreaming.nights.order import ordered, take
from tests.support import draws

JAN, JUN, DEC = "2025-01-05T10:00:00+00:00", "2025-06-01T09:00:00+00:00", "2025-12-24T18:00:00Z"
ROWS = [
    BacklogRow("undated", 3, None, False),
    BacklogRow("jan", 4, JAN, False),
    BacklogRow("jun", 5, JUN, False),
    BacklogRow("dec", 6, DEC, False),
]


def ids(rows: list[BacklogRow]) -> list[str]:
    return [r.id for r in rows]


def test_newest_first_takes_the_latest_conversations_first_and_the_undated_last() -> None:
    found = ordered(ROWS, "newest", None)
    assert ids(found.first) == ["dec", "jun", "jan", "undated"]
    assert found.held == []


def test_oldest_first_is_the_history_in_order_the_undated_first() -> None:
    assert ids(ordered(ROWS, "oldest", None).first) == ["undated", "jan", "jun", "dec"]


def test_since_a_date_holds_back_the_older_and_the_undated() -> None:
    found = ordered(ROWS, "newest", "2025-06-01")
    assert ids(found.first) == ["dec", "jun"], "the day itself counts"
    assert ids(found.held) == ["undated", "jan"]
    assert ids(ordered(ROWS, "oldest", "2025-06-01").first) == ["jun", "dec"]


stamps = st.none() | st.datetimes().map(lambda d: d.isoformat(timespec="seconds") + "+00:00")
rows = st.lists(
    st.builds(BacklogRow, st.uuids().map(str), st.integers(0, 500), stamps, st.booleans()),
    unique_by=lambda r: r.id,
    max_size=30,
)
days = st.none() | st.dates().map(lambda d: d.isoformat())


@settings(max_examples=draws(300), deadline=None)
@given(rows, st.sampled_from(["newest", "oldest"]), days)
def test_every_conversation_is_taken_or_held_once_in_the_order_asked(
    found_rows: list[BacklogRow], order: str, since: str | None
) -> None:
    found = ordered(found_rows, order, since)  # type: ignore[arg-type]
    assert Counter(found.first + found.held) == Counter(found_rows)
    for r in found.held:
        assert since is not None
        assert r.updated is None or r.updated[:10] < since
    for r in found.first:
        assert since is None or (r.updated is not None and r.updated[:10] >= since)
    dated = [r.updated for r in found.first if r.updated is not None]
    assert dated == sorted(dated, reverse=order == "newest")
    undated = [i for i, r in enumerate(found.first) if r.updated is None]
    if undated:
        edge = 0 if order == "oldest" else len(found.first) - len(undated)
        assert undated == list(range(edge, edge + len(undated))), "the undated at the old end"


def test_a_round_takes_what_fits_in_the_time_left_at_least_one() -> None:
    rows = [BacklogRow(f"c{i}", 10, JAN, False) for i in range(10)]
    # 2 s a message read and 5 s a conversation written: a conversation of 10 messages
    # is 25 s.
    assert ids(take(rows, [(2.0, 5.0, 80.0)], most=8)) == ["c0", "c1", "c2"]
    assert ids(take(rows, [(2.0, 5.0, 5.0)], most=8)) == ["c0"], "one even past the time left"
    assert ids(take(rows, [], most=4)) == ["c0", "c1", "c2", "c3"]
    assert ids(take(rows, [(2.0, 0.0, 1e9), (1.0, 0.0, 30.0)], most=8)) == ["c0", "c1", "c2"], (
        "the tightest limit decides"
    )


limits = st.lists(st.tuples(st.floats(0, 100), st.floats(0, 1000), st.floats(0, 1e5)), max_size=3)


@settings(max_examples=draws(300), deadline=None)
@given(rows, limits, st.integers(1, 40))
def test_a_round_is_the_longest_prefix_that_fits_every_limit(
    found_rows: list[BacklogRow], found_limits: list[tuple[float, float, float]], most: int
) -> None:
    chosen = take(found_rows, found_limits, most=most)
    assert chosen == found_rows[: len(chosen)]
    assert len(chosen) <= most
    if not found_rows:
        assert chosen == []
        return
    assert chosen
    messages = sum(r.messages for r in chosen)
    for per, each, left in found_limits:
        assert len(chosen) == 1 or messages * per + len(chosen) * each <= left + 1e-6
    if len(chosen) < min(most, len(found_rows)):
        more = messages + found_rows[len(chosen)].messages
        assert any(more * per + (len(chosen) + 1) * each > left for per, each, left in found_limits)
