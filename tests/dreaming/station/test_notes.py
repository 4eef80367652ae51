"""The notes index: NOTES.md's lines kept, replaced lines superseded, lone ones aged out."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.station.notes import (
    MAX_NOTES_BYTES,
    NotesIndex,
    NotesProblem,
    dumps,
    from_lines,
    loads,
    matching,
    note_id,
    note_lines,
    refresh,
)
from tests.support import best_seconds, draws

DAY = date(2026, 5, 1)
N = 500
FLOOR_S = 0.05
MAX_RATIO = 64.0


def current(index: NotesIndex) -> list[str]:
    return [n.text for n in index.current()]


def superseded_by(index: NotesIndex, text: str) -> str | None:
    key = index.notes[note_id(text)].superseded_by
    return None if key is None else index.notes[key].text


def test_note_lines_are_the_dash_lines_of_notes_md() -> None:
    page = b"# Notes\n\nintro - not a note\n- first\n  - nested  one \n-not\n- \n* star\n"
    assert note_lines(page) == ["first", "nested one"]


@pytest.mark.parametrize(
    ("data", "said"),
    [(b"- a\0b\n", "binary"), (b"- caf\xe9\n", "not UTF-8"), (b"- x\n" * 300_000, "MiB")],
)
def test_an_unreadable_notes_md_is_one_line_naming_it(data: bytes, said: str) -> None:
    with pytest.raises(NotesProblem, match=f"^NOTES.md: .*{said}"):
        note_lines(data)


def test_a_new_line_is_added_and_a_line_seen_again_is_seen_later() -> None:
    index = from_lines(["alpha", "beta"], DAY)
    later = refresh(index, ["alpha", "beta", "gamma"], DAY + timedelta(days=3))
    assert current(later) == ["alpha", "beta", "gamma"]
    alpha = later.notes[note_id("alpha")]
    assert (alpha.first_seen, alpha.last_seen) == ("2026-05-01", "2026-05-04")


def test_a_line_replaced_in_place_is_superseded_by_the_new_one() -> None:
    index = from_lines(["alpha", "use postgres 14", "gamma"], DAY)
    later = refresh(index, ["alpha", "switch to sqlite", "gamma"], DAY)
    assert superseded_by(later, "use postgres 14") == "switch to sqlite"
    assert current(later) == ["alpha", "switch to sqlite", "gamma"]
    assert note_id("use postgres 14") in later.notes


def test_a_line_moved_and_reworded_is_superseded_by_its_mostly_same_words() -> None:
    index = from_lines(["deploy with docker compose on friday", "beta", "gamma"], DAY)
    later = refresh(index, ["beta", "gamma", "deploy with docker compose on monday"], DAY)
    assert superseded_by(later, "deploy with docker compose on friday") == (
        "deploy with docker compose on monday"
    )


def test_a_line_that_left_while_an_unrelated_one_came_elsewhere_stays_current() -> None:
    index = from_lines(["alpha", "the cat sleeps", "gamma", "delta"], DAY)
    later = refresh(index, ["alpha", "gamma", "delta", "buy more coffee beans"], DAY)
    assert superseded_by(later, "the cat sleeps") is None
    assert "the cat sleeps" in current(later)


def test_the_index_survives_a_wiped_notes_md() -> None:
    index = from_lines(["alpha", "beta"], DAY)
    wiped = refresh(index, [], DAY + timedelta(days=1))
    assert current(wiped) == ["alpha", "beta"]
    back = refresh(wiped, ["fresh start"], DAY + timedelta(days=2))
    assert current(back)[0] == "fresh start"
    assert set(current(back)) == {"fresh start", "alpha", "beta"}


def test_a_lone_note_unseen_for_90_days_is_dropped_and_a_recent_one_kept() -> None:
    index = refresh(from_lines(["old", "recent"], DAY), ["recent"], DAY + timedelta(days=5))
    index = refresh(index, [], DAY + timedelta(days=5))
    kept = refresh(index, [], DAY + timedelta(days=90))
    assert current(kept) == ["recent", "old"]
    later = refresh(index, [], DAY + timedelta(days=91))
    assert current(later) == ["recent"]
    assert note_id("old") not in later.notes


def test_a_superseded_note_and_the_note_that_replaced_it_are_kept_for_good() -> None:
    index = from_lines(["a", "use postgres", "c"], DAY)
    index = refresh(index, ["a", "use sqlite", "c"], DAY)
    index = refresh(index, [], DAY)
    years = refresh(index, [], DAY + timedelta(days=1000))
    assert note_id("use postgres") in years.notes
    assert current(years) == ["use sqlite"]


def test_a_line_restored_after_being_replaced_is_current_again() -> None:
    index = from_lines(["a", "use postgres", "c"], DAY)
    index = refresh(index, ["a", "use sqlite", "c"], DAY)
    back = refresh(index, ["a", "use postgres", "c"], DAY)
    assert superseded_by(back, "use sqlite") == "use postgres"
    assert current(back) == ["a", "use postgres", "c"]


def test_a_refresh_leaves_the_index_it_was_given_unchanged() -> None:
    index = from_lines(["a", "b", "c"], DAY)
    before = dumps(index)
    refresh(index, ["a", "x", "c"], DAY + timedelta(days=200))
    assert dumps(index) == before


def test_lookups_return_current_lines_best_first() -> None:
    index = from_lines(["use postgres for the ledger", "the ledger is sqlite", "coffee"], DAY)
    index = refresh(index, ["use sqlite for the ledger", "the ledger is sqlite", "coffee"], DAY)
    assert matching(index, "sqlite ledger") == [
        "use sqlite for the ledger",
        "the ledger is sqlite",
    ]
    assert matching(index, "postgres") == []
    assert matching(index, "the") == []


def test_lookups_return_at_most_ten_lines() -> None:
    index = from_lines([f"ledger note {n}" for n in range(30)], DAY)
    assert len(matching(index, "ledger")) == 10


texts = st.lists(
    st.text(min_size=1, max_size=20).map(lambda t: " ".join(t.split()) or "x"), max_size=8
)


@settings(max_examples=draws(80), deadline=None)
@given(first=texts, second=texts, third=texts)
def test_the_json_is_deterministic_and_round_trips(
    first: list[str], second: list[str], third: list[str]
) -> None:
    index = refresh(refresh(from_lines(first, DAY), second, DAY), third, DAY + timedelta(days=1))
    text = dumps(index)
    assert dumps(loads(text.encode(), "x.json")) == text
    assert (
        dumps(refresh(refresh(from_lines(first, DAY), second, DAY), third, DAY + timedelta(days=1)))
        == text
    )
    assert json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n" == text
    for note in index.notes.values():
        assert note.superseded_by is None or note.superseded_by in index.notes


@pytest.mark.parametrize(
    "data",
    [
        b"{",
        b"[]",
        b'{"version": 2, "lines": [], "notes": {}}',
        b'{"version": 1, "lines": [1], "notes": {}}',
        b"\xff",
    ],
)
def test_a_broken_index_is_one_line_naming_it_and_the_fix(data: bytes) -> None:
    with pytest.raises(
        NotesProblem, match=r"^\.dreaming/session-notes\.json: not a notes index.*delete it"
    ):
        loads(data, ".dreaming/session-notes.json")


def _replaced_between_twins(n: int) -> float:
    """n notes between identical neighbours, each replaced: one slot shared by all."""
    before = [t for k in range(n) for t in ("same", f"old note {k}")]
    after = [t for k in range(n) for t in ("same", f"new line {k}")]
    index = from_lines(before, DAY)
    return best_seconds(lambda _: refresh(index, after, DAY), "")


@pytest.mark.slow  # real timing against input size
def test_a_refresh_runs_in_linear_time() -> None:
    small, large = _replaced_between_twins(N), _replaced_between_twins(16 * N)
    assert large < FLOOR_S or large < MAX_RATIO * max(small, 1e-4)
    assert len("\n".join(f"- new line {k}" for k in range(16 * N))) < MAX_NOTES_BYTES
