"""The person's own sentences saying where a subject stands, taken as written."""

from __future__ import annotations

from dreaming.languages import ENGLISH
from stages.synthesize.specifics import stated_positions, with_positions

NAMES = ["Garden Shed"]


def said(*user: str, assistant: str = "Well done.") -> str:
    return "\n\n".join([*(f"user: {u}" for u in user), f"assistant: {assistant}"])


def test_a_persons_news_about_the_subject_is_taken_as_a_sentence() -> None:
    assert stated_positions(said("The Garden Shed is finished!"), NAMES) == [
        "The Garden Shed is finished."
    ]


def test_a_sentence_in_the_first_person_a_question_or_a_hypothetical_is_not() -> None:
    excerpt = said(
        "I finished the Garden Shed.",
        "Is the Garden Shed finished?",
        "If the Garden Shed is finished by May, the roof goes on.",
    )
    assert stated_positions(excerpt, NAMES) == []


def test_the_assistants_words_are_never_the_persons_position() -> None:
    assert stated_positions(said("Thanks.", assistant="The Garden Shed is finished."), NAMES) == []


def test_a_position_of_another_subject_is_not_taken() -> None:
    assert stated_positions(said("The fence is finished."), NAMES) == []


def test_a_position_is_put_before_the_draft_unless_the_draft_says_it() -> None:
    excerpt = said("The Garden Shed is finished!")
    assert with_positions("The roof is felt.", excerpt, NAMES, ENGLISH) == (
        "The Garden Shed is finished. The roof is felt."
    )
    assert with_positions("The Garden Shed is finished.", excerpt, NAMES, ENGLISH) == (
        "The Garden Shed is finished."
    )
    assert with_positions(None, excerpt, NAMES, ENGLISH) == "The Garden Shed is finished."


def test_the_talk_before_a_statement_is_left_out() -> None:
    excerpt = said("Good. So the plan: the Garden Shed is planned for April, with pine walls.")
    assert stated_positions(excerpt, NAMES) == [
        "The Garden Shed is planned for April, with pine walls."
    ]


def test_a_fuller_statement_of_the_same_position_replaces_the_shorter() -> None:
    excerpt = said(
        "The Garden Shed is planned for April.",
        "The Garden Shed is planned for April, with pine walls.",
    )
    assert stated_positions(excerpt, NAMES) == [
        "The Garden Shed is planned for April, with pine walls."
    ]
