"""SEGMENT's code half: boundary proposals, range assembly and repair, labels, rules."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dreaming.policy.pages import Policy
from dreaming.vault import Vault
from stages.segment.plan import (
    Rules,
    assemble,
    candidates,
    clean_label,
    fallback_label,
    ignore_patterns,
    ignored,
    parse_rules,
    repair,
    split_long,
    window,
)

positions = st.integers(min_value=-5, max_value=60)


def covers_once(count: int, ranges: list[tuple[int, int]]) -> bool:
    flat = [i for first, last in ranges for i in range(first, last + 1)]
    return flat == list(range(count)) and all(first <= last for first, last in ranges)


@given(st.integers(min_value=0, max_value=50), st.lists(st.tuples(positions, positions)))
def test_repair_makes_any_ranges_cover_every_message_once_in_order(
    count: int, ranges: list[tuple[int, int]]
) -> None:
    assert covers_once(count, repair(count, ranges))


@given(st.integers(min_value=1, max_value=50))
def test_repair_keeps_valid_ranges_as_they_are(count: int) -> None:
    half = count // 2
    valid = [(0, half - 1), (half, count - 1)] if count > 1 else [(0, 0)]
    assert repair(count, valid) == valid


@given(
    st.integers(min_value=1, max_value=50),
    st.lists(positions),
    st.integers(min_value=1, max_value=6),
)
def test_assembled_ranges_cover_and_respect_the_minimum_size(
    count: int, starts: list[int], minimum: int
) -> None:
    ranges = assemble(count, starts, minimum)
    assert covers_once(count, ranges)
    if len(ranges) > 1:
        assert all(last - first + 1 >= minimum for first, last in ranges)


def test_a_conversation_without_boundaries_is_one_chunk() -> None:
    assert assemble(7, [], 2) == [(0, 6)]


def test_a_one_message_chunk_joins_the_chunk_before_it() -> None:
    assert assemble(6, [2, 5], 2) == [(0, 1), (2, 5)]


@given(st.integers(min_value=1, max_value=200), st.integers(min_value=2, max_value=30))
def test_over_long_chunks_are_cut_within_the_maximum(count: int, maximum: int) -> None:
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(count)]
    ranges = split_long([(0, count - 1)], maximum, roles)
    assert covers_once(count, ranges)
    assert all(last - first + 1 <= maximum for first, last in ranges)


def test_only_a_user_turn_with_new_words_after_the_assistant_is_proposed() -> None:
    roles = ["user", "assistant", "user", "assistant", "user", "user", "assistant"]
    texts = [
        "How should tomato plants be watered in summer?",
        "Water tomato plants deeply twice weekly.",
        "Should tomato plants be watered deeply in the morning?",  # same words
        "Yes, mornings are best.",
        "Explain pandas dataframe column indexing rules",  # new subject
        "Explain python generator expressions syntax quickly",  # after a user turn
        "Sure.",
    ]
    assert candidates(roles, texts) == [4]


def test_a_short_turn_is_never_a_boundary() -> None:
    assert (
        candidates(["user", "assistant", "user"], ["Sort a list", "Use sorted()", "thanks!"]) == []
    )


def test_labels_are_trimmed_to_the_word_limits() -> None:
    assert clean_label('"Watering of Tomato Plants in Summer."', 4, 10) == (
        "Watering of Tomato Plants in Summer"
    )
    assert clean_label("one two three four five six", 2, 4) == "one two three four"
    assert clean_label("Tomatoes", 4, 10) is None


def test_a_label_that_echoes_the_prompt_is_refused() -> None:
    assert clean_label("Vector2 of four to ten words", 4, 10) is None
    assert clean_label("<aspect> of <Subject> for <purpose>", 4, 10) is None


def test_the_fallback_label_takes_the_first_content_words() -> None:
    assert fallback_label(["How do I water the tomato plants?"], 3) == "water tomato plants"
    assert fallback_label(["?"], 3) == "untitled"


def test_rules_come_from_the_settings_block_and_bad_values_keep_defaults() -> None:
    page = "# Chunking\n\n```settings\nmin_messages: 3\nmax_messages: 40\nlabel_max_words: x\n```\n"
    assert parse_rules(page) == Rules(min_messages=3, max_messages=40)
    assert parse_rules("```settings\nmin_messages: 90\nmax_messages: 40\n```") == Rules()


IGNORE_PAGE = """# Topics to Ignore

```ignore
# a comment
office gossip
salary * negotiation
```
"""


def test_the_ignore_block_gives_its_patterns_without_comments() -> None:
    assert ignore_patterns(IGNORE_PAGE) == ["office gossip", "salary * negotiation"]


def test_a_label_containing_an_ignored_pattern_is_ignored_ignoring_case() -> None:
    patterns = ignore_patterns(IGNORE_PAGE)
    assert ignored("Latest Office Gossip from the team", patterns)
    assert ignored("Salary and bonus negotiation tactics", patterns)
    assert not ignored("Negotiation of a salary", patterns)
    assert not ignored("Watering tomato plants", patterns)


def test_the_seeded_ignore_page_ignores_nothing(vault: Vault) -> None:
    page = Policy(vault).text("Topics_to_Ignore")
    assert ignore_patterns(page) == []


def test_a_boundary_question_shows_the_topic_opener_and_recent_non_tool_messages() -> None:
    roles = ["user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    assert window(roles, 0, 6, 2) == [0, 3, 5, 6]
    assert window(roles, 0, 1, 3) == [0, 1]


def test_the_fallback_label_skips_the_request_a_user_opens_with() -> None:
    assert fallback_label(["Unrelated: explain git rebase to me"], 3) == "git rebase"
