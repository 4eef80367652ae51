"""RESOLVE's one question: is this subject a different thing from an existing article's?

Both names are shown with where the new one was found (its chunk's label), since a
short name alone is often ambiguous. Asked as `different?`, not `same?`: on the
labelled near misses the default model answers `yes` to either wording, and a yes
to this one keeps two names apart, which only costs a later redirect, where a yes
to `same?` would fuse two things into one article. Schematic: no example names,
because a small model copies example values. A wording change bumps VERSION.
"""

from __future__ import annotations

VERSION = "resolve-2"

SYSTEM = (
    "You keep an encyclopedia of a person's things: tools, programs, products, people, "
    "organisations, projects, fields and standards, one article each. "
    "Answer with one word: yes or no."
)


def different_thing(name: str, context: str, article: str) -> str:
    return (
        f'A conversation part labelled "{context}" discusses "{name}". '
        f'The encyclopedia has an article titled "{article}".\n\n'
        f'Question: Is "{name}" a different thing from "{article}" (a part of it, a version '
        "of it, a tool or product built on it, a rival, or only related)? Answer yes or no."
    )
