"""The placeholder vocabulary of schematic examples: one list for prompts, Meta pages and the gate.

Prompts and Meta pages show the model the shape of what to write with slots
(`<Title>`, `<Thing A>`) and tokens (`conv:HASH`, `YYYY-MM-DD`) instead of real
names, specs and dates, because a small model parrots concrete example values
into unrelated articles. It parrots the slots too, so a draft that carries one,
or repeats a whole example line, is a leak: the gate rejects it. Prompts import
this list; a test keeps meta_templates/ within it.
"""

from __future__ import annotations

SLOTS = (
    "<Title>",
    "<Parent>",
    "<Child>",
    "<Target>",
    "<Name>",
    "<Thing A>",
    "<Thing B>",
    "<Domain of Thing A>",
    "<purpose>",
    "<Subject>",
    "<what happened>",
    "<does what>",
    "<condition>",
    "<exact change>",
    "<most important fact>",
    "<what belongs in it>",
    "<one line on what belongs in it>",
    "<other name>",
    "<Other name>",
    "<Canonical Title>",
    "<topic phrase>",
    "<aspect>",
    "<kind>",
    "<field>",
    "<YYYY-MM-DD>",
    "<angle brackets>",
)
"""Slots a schematic example names in angle brackets: fill them, never copy them."""

TOKENS = ("conv:HASH", "YYYY-MM-DD", "[^N]")
"""Bare tokens that stand for a conversation hash, a date and a footnote number."""

PLACEHOLDERS = SLOTS + TOKENS

EXAMPLE_LINES = (
    "[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc",
    "*Part of a series on [[<Parent>]].*",
    "*Main article: [[<Child>]]*",
    "*Redirects to [[<Target>]]*",
    "[[Category:<Name>]]",
    "<other name> => <Canonical Title>",
)
"""Whole schematic example lines the Meta pages show."""


def leaks(before: str, after: str) -> list[str]:
    """Placeholders and example lines `after` holds more often than `before` did."""
    found = []
    for text in (*EXAMPLE_LINES, *PLACEHOLDERS):
        if after.count(text) > before.count(text):
            found.append(text)
    return found
