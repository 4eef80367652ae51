"""BUCKET's one question: is this new conversation part the same story as that one?

The Bucketing policy page is inlined (its checksum is in the unit's input hash).
Only labels are shown: a label is the chunk's topic in a few words, and the
story's earlier labels show how it went. Schematic: no example labels, because a
small model copies example values. A wording change bumps VERSION, which makes
every loose chunk's unit new again (chunks already in a bucket stay there).
"""

from __future__ import annotations

from collections.abc import Sequence

from stages.prompts import page_body

VERSION = "bucket-3"


def system(bucketing: str) -> str:
    """The Bucketing page is the rule book; the lines around it say what is asked."""
    return (
        "You sort parts of a person's conversations with an assistant into stories. "
        "A story is one piece of work, problem, plan, purchase or event, followed over "
        "time: the same story continues when a later part goes on with the same thing, "
        "not when it only shares a field or a tool.\n\n"
        f"{page_body(bucketing)}\n\n"
        "Answer with one word: yes or no."
    )


def same_story(
    story: Sequence[str], label: str, only_story: Sequence[str], only_new: Sequence[str]
) -> str:
    """The story's labels first, so questions about one story share their prefix; then
    the words that set the two apart, found by code. Asked about those words rather than
    about the whole labels: on the labels alone the default model says `same` to every
    near miss, on the words it tells a different project apart."""
    shown = "\n".join(f"- {line}" for line in story)
    return (
        f"A story, as its parts were labelled:\n{shown}\n\n"
        f"A new part, labelled: {label}\n\n"
        f"Words only in the story: {', '.join(only_story) or '(none)'}\n"
        f"Words only in the new part: {', '.join(only_new) or '(none)'}\n\n"
        "Question: Do these differing words still name the same project, object, place "
        "or event? Answer yes or no."
    )
