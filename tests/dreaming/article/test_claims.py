"""The write-time check of drafted sentences against the excerpt each cites: no frame
the conversation never had, no offered option stated as the answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article import claims
from tests.support import best_seconds, draws

ASKED_ONLY = "user: how do I descale a kettle?\n\nassistant: boil vinegar and water, then rinse"
QUIZ = (
    "user: make a quiz question about kettles\n\n"
    "assistant: Which liquid removes kettle scale best?\n"
    "A) salted water from the tap\n"
    "B) white vinegar diluted with water\n"
    "C) cold milk straight from the fridge\n"
    "Answer: B"
)
IDEAS = (
    "user: how could I keep the kettle clean?\n\n"
    "assistant: Here are some ideas you could consider:\n"
    "- install a water filter jug beforehand\n"
    "- descale weekly using citric acid\n"
    "- buy a kettle with a mesh filter"
)
STEPS = (
    "user: how do I descale it?\n\n"
    "assistant: Do this:\n"
    "1. fill the kettle with vinegar and water\n"
    "2. boil the mixture twice\n"
    "3. rinse the kettle with clean water"
)


def kept(sentence: str, excerpt: str) -> bool:
    return claims.keep_supported([sentence], excerpt).text == sentence


def test_a_link_is_read_as_the_words_the_reader_sees() -> None:
    # LINK wraps "shed" as `[[Tool_Storage_Shed|shed]]`: the file's name is no word the
    # sentence says, so the excerpt need not hold it.
    excerpt = "We keep the mower in the shed."
    for sentence in (
        "The mower lives in the [[Tool_Storage_Shed|shed]].",
        "The mower lives in the shed.",
    ):
        assert claims.keep_supported([sentence], excerpt, "Mower").dropped == []


def test_a_choice_the_person_never_stated_is_dropped_with_the_reason() -> None:
    result = claims.keep_supported(["The user chose vinegar to descale the kettle."], ASKED_ONLY)
    assert result.text == ""
    assert result.dropped == [
        (
            "The user chose vinegar to descale the kettle.",
            "a frame the conversation does not state ('chose')",
        )
    ]


@pytest.mark.parametrize("opening", ["It", "They also", "This"])
def test_a_paragraph_opening_with_a_pronoun_loses_that_sentence(opening: str) -> None:
    first = f"{opening} boils vinegar and water in the kettle."
    result = claims.keep_supported([first, "Vinegar and water descale a kettle."], ASKED_ONLY)
    assert result.text == "Vinegar and water descale a kettle."
    assert "opens mid-thought" in result.dropped[0][1]


def test_it_after_a_dropped_sentence_opening_with_the_title_names_the_title() -> None:
    excerpt = (
        "assistant: The WebSearch tool provides real-time web access. It supports "
        "domain filtering via allowed_domains."
    )
    said = [
        "WebSearch is a feature invented here.",
        "It provides real-time web access.",
        "Its filtering uses allowed_domains.",
    ]
    result = claims.keep_supported(said, excerpt, "WebSearch")
    assert result.text == (
        "WebSearch provides real-time web access. Its filtering uses allowed_domains."
    )


def test_it_after_a_dropped_sentence_about_something_else_stays_dropped() -> None:
    excerpt = "assistant: The WebSearch tool provides real-time web access."
    said = ["Grep is a feature invented here.", "It provides real-time web access."]
    assert claims.keep_supported(said, excerpt, "WebSearch").text == ""


def test_a_pronoun_after_the_first_kept_sentence_stands() -> None:
    said = ["Vinegar and water descale a kettle.", "It takes a boil and a rinse."]
    assert claims.keep_supported(said, ASKED_ONLY).text == " ".join(said)


def test_a_choice_the_person_stated_stands() -> None:
    excerpt = "user: I chose vinegar over citric acid\n\nassistant: vinegar works well"
    assert kept("The user chose vinegar over citric acid.", excerpt)


def test_the_assistant_saying_choose_is_not_the_person_choosing() -> None:
    excerpt = "user: what now?\n\nassistant: I would choose vinegar here"
    assert not kept("The user chose vinegar.", excerpt)


def test_a_sentence_about_the_subject_with_no_frame_stands() -> None:
    assert kept("Boiling vinegar and water removes kettle scale.", ASKED_ONLY)


MARGIN = (
    "user: add margin-bottom to the details element when it's not open\n\n"
    "assistant: I added `details:not([open]) { margin-bottom: 1em; }` to tokenizer.css."
)


def test_what_a_model_knows_of_a_word_is_not_what_the_excerpt_says() -> None:
    result = claims.keep_supported(
        ["CSS is a language used to style and layout web pages."], MARGIN, "CSS"
    )
    assert result.text == ""
    assert result.dropped[0][1].startswith("words the excerpt does not hold")


def test_a_number_the_excerpt_does_not_hold_drops_the_sentence() -> None:
    result = claims.keep_supported(["Closed details get a 2em bottom margin."], MARGIN)
    assert result.dropped == [
        ("Closed details get a 2em bottom margin.", "a number the excerpt does not hold (2)")
    ]


def test_a_sentence_in_the_excerpt_s_own_words_stands() -> None:
    assert kept("Closed details elements get a margin-bottom of 1em in tokenizer.css.", MARGIN)


def test_the_title_s_words_need_no_support() -> None:
    sentence = ["Kettle Descaling Procedure uses vinegar."]
    assert claims.keep_supported(sentence, ASKED_ONLY, "Kettle Descaling Procedure").text
    assert not claims.keep_supported(sentence, ASKED_ONLY).text


BEADS = (
    "assistant: Steve Yegge wrote the proposal we read today.\n"
    "It is long.\n"
    "We looked at the file layout.\n"
    "Then the tests ran.\n"
    "Beads: teammates ship native, zero-setup, low-latency workers.\n"
    "[tool: Bash — ls /home/user/project]"
)


def test_what_the_excerpt_says_of_another_thing_is_not_said_of_the_subject() -> None:
    sentence = "Steve Yegge is a native, zero-setup, low-latency worker."
    result = claims.keep_supported([sentence], BEADS, "Steve Yegge")
    assert result.text == ""
    assert "words the excerpt says elsewhere" in result.dropped[0][1]


def test_what_the_excerpt_says_beside_the_subject_s_name_stands() -> None:
    sentence = "Beads ships native, zero-setup, low-latency workers."
    assert claims.keep_supported([sentence], BEADS, "Beads").text == sentence
    defined = "Beads is a set of native, zero-setup, low-latency workers."
    assert claims.keep_supported([defined], BEADS, "Beads").text == defined


@pytest.mark.parametrize(
    "said",
    [
        "The article provides a balanced opinion on the split.",
        "The conversation covers the dev-docs folder.",
        "The document provides an overview of the mechanism.",
    ],
)
def test_a_sentence_about_the_source_is_dropped(said: str) -> None:
    excerpt = f"assistant: {said} The split of dev-docs folder LOC 324 lines overview mechanism."
    result = claims.keep_supported([said], excerpt, "Dev Docs")
    assert result.dropped == [(said, "speaks of the source, not of the subject")]


def test_a_sentence_saying_what_the_source_shows_is_judged_on_what_it_shows() -> None:
    said = "The excerpt shows how to disable the MD034 rule."
    excerpt = "assistant: To disable the MD034 rule, add it to the config."
    assert claims.keep_supported([said], excerpt, "markdownlint").text == said


def test_a_sentence_naming_an_article_of_its_subject_stands() -> None:
    said = "The article element of HTML wraps a post."
    excerpt = "assistant: The article element of HTML wraps a post."
    assert claims.keep_supported([said], excerpt, "HTML").text == said


DOCS = (
    "user: Claude Code uses my Markdown documents. Is a tool for project management worth it?\n"
    "assistant: Split dev-docs from work folders; Claude Code reads both."
)


def test_a_kind_the_excerpt_never_gives_the_subject_is_dropped() -> None:
    said = "Claude Code is a project management tool that uses Markdown documents."
    result = claims.keep_supported([said], DOCS, "Claude Code")
    assert result.dropped == [
        (said, "calls the subject a project management tool, which the excerpt never does")
    ]


def test_a_kind_the_excerpt_gives_beside_the_name_stands() -> None:
    excerpt = "assistant: Beads is a git backed issue tracker that agents share."
    said = "Beads is a git-backed issue tracker that agents share."
    assert claims.keep_supported([said], excerpt, "Beads").text == said


def test_a_kind_said_far_from_the_name_does_not_count() -> None:
    excerpt = "\n".join(
        ["assistant: Beads is for teams.", "One.", "Two.", "Three.", "A tool is here."]
    )
    result = claims.keep_supported(["Beads is a tool for teams."], excerpt, "Beads")
    assert result.dropped[0][1] == "calls the subject a tool, which the excerpt never does"


def test_a_set_of_things_is_a_kind_of_those_things() -> None:
    excerpt = "assistant: Beads gives you workers that never sleep."
    said = "Beads is a set of workers."
    assert claims.keep_supported([said], excerpt, "Beads").text == said


def test_saying_what_a_subject_the_excerpt_never_names_is_dropped() -> None:
    result = claims.keep_supported(
        ["Worktrees is a tool for low-latency workers."], BEADS, "Worktrees"
    )
    assert result.dropped[0][1] == "says what the subject is, and the excerpt never names it"


def test_a_tool_call_s_line_does_not_name_the_subject() -> None:
    excerpt = "user: [tool: Read — /home/user/project/plan.md]\nassistant: We read the plan."
    result = claims.keep_supported(["Project is a plan we read."], excerpt, "Project")
    assert result.text == ""


def test_a_wrong_quiz_option_stated_as_fact_is_dropped() -> None:
    assert not kept("Salted water from the tap removes kettle scale.", QUIZ)


def test_every_quiz_option_counts_as_offered_not_just_the_wrong_ones() -> None:
    assert not kept("White vinegar diluted with water is used.", QUIZ)


def test_an_idea_from_a_list_offered_for_consideration_is_not_stated_as_done() -> None:
    assert not kept("A water filter jug was installed beforehand.", IDEAS)


def test_a_step_of_a_how_to_list_stands() -> None:
    assert kept("Boil the mixture twice.", STEPS)


def test_a_lone_lettered_line_is_prose_not_a_choice() -> None:
    excerpt = "assistant: the fix is in two parts\na) restart the daemon after the update"
    assert claims.offered_options(excerpt) == []


def test_kept_sentences_keep_their_order() -> None:
    sentences = ["Boil vinegar and water.", "The user picked vinegar.", "Rinse after boiling."]
    result = claims.keep_supported(sentences, ASKED_ONLY)
    assert result.text == "Boil vinegar and water. Rinse after boiling."
    assert len(result.dropped) == 1


@settings(max_examples=draws(200), deadline=None)
@given(st.lists(st.text(max_size=200), max_size=5), st.text(max_size=2000))
def test_the_check_never_raises_and_keeps_only_sentences_it_was_given(
    sentences: list[str], excerpt: str
) -> None:
    result = claims.keep_supported(sentences, excerpt)
    assert len(result.dropped) <= len(sentences)
    assert all(s in sentences for s, _ in result.dropped)


@pytest.mark.parametrize(
    "excerpt",
    [
        "user: " + "the user chose " * 5000,
        "assistant: ideas:\n" + "- a b c\n" * 5000,
        "A) x y\n" * 5000,
    ],
)
def test_the_check_takes_time_in_proportion_to_its_input(excerpt: str) -> None:
    sentence = "The user chose " + "word " * 200
    small = best_seconds(
        lambda e: claims.keep_supported([sentence], e), excerpt[: len(excerpt) // 10]
    )
    large = best_seconds(lambda e: claims.keep_supported([sentence], e), excerpt)
    assert large < 30 * max(small, 1e-4)


def test_the_attribution_check_takes_time_in_proportion_to_its_input() -> None:
    excerpt = "Kettle is hot. The water boils. Steam rises.\n" * 3000
    sentence = "Kettle is a " + "word " * 200
    small = best_seconds(
        lambda e: claims.keep_supported([sentence], e, "Kettle"), excerpt[: len(excerpt) // 10]
    )
    large = best_seconds(lambda e: claims.keep_supported([sentence], e, "Kettle"), excerpt)
    assert large < 30 * max(small, 1e-4)
