"""Headings made from a label by code: its first words, never ending on a word that
joins to what was cut (a heading read "Claude Code CLI -p flag for WebSearch and")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dreaming.article.titles import HEADING_CHARS, HEADING_WORDS, JOINING_WORDS, cut_heading
from stages.synthesize import proto
from stages.synthesize.update_text import heading_from

LABEL = "Claude Code CLI -p flag for WebSearch and Task tool"


def test_create_cuts_a_long_label_before_the_word_that_joins_what_was_cut() -> None:
    assert proto.heading_from_label(LABEL) == "Claude Code CLI -p flag for WebSearch"


def test_update_cuts_a_new_sections_label_the_same_way() -> None:
    assert heading_from([LABEL], []) == "Claude Code CLI -p flag for WebSearch"


def test_a_label_that_is_a_message_cut_short_makes_no_heading() -> None:
    label = "Oh I just found out that this is not supported by Chrome"
    assert proto.heading_from_label(label) == ""
    assert heading_from([label], []) is None


def test_a_label_naming_a_thing_is_no_message() -> None:
    assert proto.heading_from_label("Ruby elements in Chrome") == "Ruby elements in Chrome"


def test_a_short_label_is_kept_whole_and_capitalised() -> None:
    assert cut_heading(["descaling", "the", "kettle"]) == "Descaling the kettle"


def test_a_label_of_only_joining_words_keeps_its_first() -> None:
    assert cut_heading(["and", "or", "the"]) == "And"


@given(
    st.lists(
        st.sampled_from([*sorted(JOINING_WORDS), "kettle", "Vinegar", "x" * 70]),
        min_size=1,
        max_size=20,
    )
)
def test_a_cut_heading_is_short_and_never_ends_on_a_joining_word(words: list[str]) -> None:
    heading = cut_heading(words)
    kept = heading.split()
    assert 1 <= len(kept) <= HEADING_WORDS
    assert len(kept) == 1 or len(heading) <= HEADING_CHARS
    assert len(kept) == 1 or kept[-1].casefold() not in JOINING_WORDS
