"""RESOLVE's one question: is this subject the same thing as an existing article's?

Both names are shown with where the new one was found (its chunk's label), since a
short name alone is often ambiguous. Schematic: no example names, because a small
model copies example values. A wording change bumps VERSION.
"""

from __future__ import annotations

VERSION = "resolve-1"

SYSTEM = (
    "You keep an encyclopedia of a person's things: tools, programs, products, people, "
    "organisations, projects, fields and standards, one article each. "
    "Two names are the same thing when one article should cover both: another spelling, "
    "an abbreviation, a nickname, an old name. A part, a version, a rival or a related "
    "thing is not the same thing. "
    "Answer with one word: yes or no."
)


def same_thing(name: str, context: str, article: str) -> str:
    return (
        f'A conversation part labelled "{context}" discusses "{name}".\n'
        f'The encyclopedia has an article titled "{article}".\n\n'
        f'Question: Is "{name}" the same thing as "{article}"? Answer yes or no.'
    )
