"""Words of a text as code compares them: lower-cased, alphanumeric, with the words
that say nothing about a topic left out. One definition for every stage that weighs
overlap (segment, proto-sections, the lexical fallback) and for the check of a
sentence against the excerpt it cites.
"""

from __future__ import annotations

import re

_STOP = (
    "a an and are as at be but by can could do does for from had has have how i if in into "
    "is it its just me my no not of on or our please so some than that the their them then "
    "there these they this to too us was we what when where which while who why will with "
    "would you your yes ok okay thanks thank also about like get use using want need "
    "explain recommend tell show give help know unrelated different question hey hi hello"
)
"""Words that say nothing about a topic, including the requests a user opens with."""
STOPWORDS = frozenset(_STOP.split())


def words(text: str) -> list[str]:
    """The alphanumeric words of `text`, lower-cased (plain scanning, linear time)."""
    out: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch.isalnum() or (ch in "-_'" and current):
            current.append(ch.lower())
        elif current:
            out.append("".join(current).strip("-_'"))
            current = []
    if current:
        out.append("".join(current).strip("-_'"))
    return [w for w in out if w]


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if len(w) > 2 and w not in STOPWORDS}


_ENDINGS = ("ing", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """The word less one common English ending, so "boiled" meets "boil" and "pages"
    meets "page"; crude, and only ever compared with itself."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def stems(text: str) -> set[str]:
    """The stems of `text`'s content words."""
    return {stem(w) for w in content_words(text)}


def sentences(text: str) -> list[str]:
    """`text` cut after each `.`, `!` or `?` that a space follows (plain scanning)."""
    out: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            piece = text[start : i + 1].strip()
            if piece:
                out.append(piece)
            start = i + 1
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


def mention(name: str) -> re.Pattern[str]:
    """A whole-word, case-insensitive mention of `name` ("Rust" not in "Rusty")."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
