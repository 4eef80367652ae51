"""Near-duplicate articles: one subject under two names, told by names and words."""

from __future__ import annotations

import time

import pytest

from dreaming.article.overlap import Draft, near_duplicates

WEBSEARCH = "WebSearch and Task run in print mode with allowed tools flags set."


def draft(stem: str, text: str, convs: tuple[str, ...] = (), *aliases: str) -> Draft:
    return Draft(stem, (stem.replace("_", " "), *aliases), frozenset(convs), text)


def pairs(*drafts: Draft) -> list[tuple[str, str]]:
    return [(p.first, p.second) for p in near_duplicates(drafts)]


def test_the_same_name_in_other_words_from_one_conversation_is_a_pair() -> None:
    found = near_duplicates(
        [
            draft("WebSearch_Task", WEBSEARCH, ("c1",)),
            draft("WebSearch_and_Task", "Print mode runs them.", ("c1",)),
        ]
    )
    assert [(p.first, p.second, p.shared) for p in found] == [
        ("WebSearch_Task", "WebSearch_and_Task", ("c1",))
    ]
    assert found[0].why == "the same name in other words"


def test_a_name_inside_another_with_much_the_same_text_is_a_pair() -> None:
    assert pairs(
        draft("Claude_Code", WEBSEARCH),
        draft("Claude_Code_CLI", WEBSEARCH + " Also flags."),
    ) == [("Claude_Code", "Claude_Code_CLI")]


def test_a_stub_opening_like_a_longer_article_with_a_name_inside_its_name_is_a_pair() -> None:
    lead = "A project management tool using Markdown documents to organise work."
    stub = Draft("Claude", ("Claude",), frozenset({"c1"}), lead, lead)
    longer = Draft(
        "Claude_Code",
        ("Claude Code",),
        frozenset({"c1"}),
        f"{lead}\nIt splits dev-docs from work folders, weighing reference against scratch files.",
        lead,
    )
    found = near_duplicates([stub, longer])
    assert [(p.first, p.second) for p in found] == [("Claude", "Claude_Code")]
    assert "the same lead" in found[0].why


def test_a_name_inside_another_with_other_text_is_no_pair() -> None:
    assert (
        pairs(
            draft("Claude", "A model family by Anthropic answering questions.", ("c1",)),
            draft("Claude_Code", "A terminal agent editing files in repositories.", ("c1",)),
        )
        == []
    )


def test_two_names_for_one_stub_drawn_from_one_conversation_are_a_pair() -> None:
    text = "Beads tracks issues for agents with hash ids and dependency links."
    assert pairs(draft("Beads", text, ("c1",)), draft("Issue_Tracker", text, ("c1",))) == [
        ("Beads", "Issue_Tracker")
    ]


def test_the_same_text_from_different_conversations_under_unrelated_names_is_no_pair() -> None:
    text = "Tracks issues for agents with hash ids and dependency links."
    assert pairs(draft("Beads", text, ("c1",)), draft("Linear", text, ("c2",))) == []


def test_an_alias_counts_as_a_name() -> None:
    assert pairs(
        draft("Claude_Code", WEBSEARCH, (), "claude -p"),
        draft("Claude_p", WEBSEARCH),
    ) == [("Claude_Code", "Claude_p")]


def test_titles_repeated_in_the_text_do_not_make_articles_alike() -> None:
    assert (
        pairs(
            draft("Claude_Code", "Claude Code edits files."),
            draft("Claude_Code_CLI", "Claude Code CLI prints answers."),
        )
        == []
    )


def compared(lead: str) -> float:
    """Seconds to compare 300 drafts of one name (45,000 pairs) with this lead each."""
    drafts = [Draft(f"S{i}", ("Python",), frozenset(), "other words", lead) for i in range(300)]
    start = time.perf_counter()
    near_duplicates(drafts)
    return time.perf_counter() - start


@pytest.mark.slow  # timing
def test_a_lead_is_read_once_not_once_a_pair() -> None:
    # Read once a draft, a 200-word lead costs 300 readings; once a pair, 45,000.
    short, long = compared("a lead"), compared("a lead " * 200)
    assert long < 3 * short + 0.1
