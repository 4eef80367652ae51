"""Lexical comparison for BUCKET and RESOLVE: keys, overlap, and a bounded shortlist.

No embeddings: two labels or names are compared by their words and letters only,
in time linear in their length. Code finds the few near misses; the model judges
each one with a yes/no.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import TypeVar

from dreaming.article.words import STOPWORDS, words

T = TypeVar("T")

SHORTLIST = 3
"""At most this many near misses are put to the model for one label or name."""


def _stem(word: str) -> str:
    """The word without a plural `-s` (not `-ss`: a word like `glass` keeps it)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def label_key(label: str) -> str:
    """How a story label compares: its content words casefolded, plural `-s` off, stop
    words out, each once, in sorted order; so `Planning the garden beds` and `garden bed
    planning` are one story. A label of stop words only keys on its own spaced text."""
    text = unicodedata.normalize("NFKC", label).casefold()
    kept = set()
    for word in words(text):
        stem = _stem(word)
        if word not in STOPWORDS and stem not in STOPWORDS:
            kept.add(stem)
    if kept:
        return " ".join(sorted(kept))
    return " ".join(text.split()) or "untitled"


def key_words(key: str) -> frozenset[str]:
    return frozenset(key.split())


def trigrams(key: str) -> frozenset[str]:
    """The letter triples of a name key, spaces included, padded at both ends so a
    one- or two-letter name still has one."""
    padded = f" {key} "
    return frozenset(padded[i : i + 3] for i in range(max(1, len(padded) - 2)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def contains(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether all the words of one name are words of the other (and both have some)."""
    return bool(a) and bool(b) and (a <= b or b <= a)


def shortlist(scored: Iterable[tuple[float, str, T]], limit: int = SHORTLIST) -> list[T]:
    """The `limit` best of (score, tie-break, item) with a score above zero: highest
    score first, then by tie-break, so the same inputs always give the same list."""
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return [item for _, _, item in ranked[:limit]]
