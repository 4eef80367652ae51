"""Near-duplicate articles: two pages that are probably one subject under two names.
Pure functions; EDITORIAL turns each pair into a merge proposal in `Talk/`, never a
merge (a person decides).

Two articles are a pair when their names and their words agree:
- the same name words in another order or spelling ("WebSearch Task", "WebSearch and
  Task"), and a shared conversation or a third of their words in common;
- one name inside the other ("Claude Code", "Claude Code CLI"), and half their words
  in common, or a shared conversation and half their leads' words in common (a stub
  and a longer article opening with the same sentence);
- any two names, a shared conversation and four fifths of their words in common (the
  same stub written twice).
Words are the lead's and body's content words less the names' own, so two articles
are not alike because both repeat their titles. Only pairs whose names nest or that
share a conversation are compared: near linear in the wiki, not quadratic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from dreaming.article.titles import heading_key
from dreaming.article.words import STOPWORDS, content_words, words

SAME_NAMES = 1 / 3
NESTED_NAMES = 1 / 2
ANY_NAMES = 4 / 5
CROWD = 50
"""A conversation cited by this many articles is a long project, not a sign that two
of them are one subject: its articles are compared by their names only."""
MAX_NAME_WORDS = 6
"""Names longer than this are compared whole (their word sets would be too many)."""


@dataclass(frozen=True, slots=True)
class Draft:
    """What the comparison needs of one article."""

    stem: str
    names: tuple[str, ...]
    """Its title and aliases."""
    convs: frozenset[str]
    text: str
    """Its lead and body prose."""
    lead: str = ""
    family: frozenset[str] = frozenset()
    """Keys (`heading_key`) of the titles of its parent and children (its banner, its
    `*Main article:*` lines): a child repeats its parent's summary, and is no duplicate."""


@dataclass(frozen=True, slots=True)
class Pair:
    first: str
    second: str
    """Stems, `first` < `second`."""
    why: str
    shared: tuple[str, ...]
    """The conversations both cite, sorted."""
    alike: float
    """Their words in common (Jaccard)."""


def name_words(name: str) -> frozenset[str]:
    return frozenset(w for w in words(name) if w not in STOPWORDS)


def near_duplicates(drafts: Sequence[Draft]) -> list[Pair]:
    """Every pair of `drafts` that is probably one subject, in stem order."""
    by_stem = {d.stem: d for d in drafts}
    named = {d.stem: _names(d) for d in drafts}
    own = {d.stem: {w for n in named[d.stem] for w in n} for d in drafts}
    said = {d.stem: content_words(d.text) - own[d.stem] for d in drafts}
    led = {d.stem: content_words(d.lead) - own[d.stem] for d in drafts}
    out: list[Pair] = []
    for a, b in _candidates(drafts, named):
        da, db = by_stem[a], by_stem[b]
        if heading_key(da.names[0]) in db.family or heading_key(db.names[0]) in da.family:
            continue
        shared = tuple(sorted(da.convs & db.convs))
        alike = _jaccard(said[a], said[b])
        leads = _jaccard(led[a], led[b])
        why = _why(named[a], named[b], bool(shared), alike, leads)
        if why:
            out.append(Pair(a, b, why, shared, alike))
    return out


def _names(d: Draft) -> list[frozenset[str]]:
    return [w for w in (name_words(n) for n in d.names) if w]


def _candidates(
    drafts: Sequence[Draft], named: dict[str, list[frozenset[str]]]
) -> list[tuple[str, str]]:
    """The pairs worth comparing: names the same or one inside the other (found by
    looking up each name's smaller word sets, not by comparing every two names), and
    articles citing one conversation that fewer than `CROWD` articles cite."""
    by_name: dict[frozenset[str], set[str]] = {}
    for d in drafts:
        for name in named[d.stem]:
            by_name.setdefault(name, set()).add(d.stem)
    pairs: set[tuple[str, str]] = set()
    for d in drafts:
        for name in named[d.stem]:
            for part in _parts(name):
                pairs.update(_ordered(d.stem, other) for other in by_name.get(part, ()))
    by_conv: dict[str, list[str]] = {}
    for d in drafts:
        for conv in d.convs:
            by_conv.setdefault(conv, []).append(d.stem)
    for stems in by_conv.values():
        if len(stems) < CROWD:
            pairs.update(combinations(sorted(stems), 2))
    return sorted(p for p in pairs if p[0] != p[1])


def _parts(name: frozenset[str]) -> list[frozenset[str]]:
    """The name and every smaller non-empty set of its words (a long name: itself)."""
    if len(name) > MAX_NAME_WORDS:
        return [name]
    words = sorted(name)
    return [frozenset(c) for size in range(1, len(words) + 1) for c in combinations(words, size)]


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _why(
    a: list[frozenset[str]], b: list[frozenset[str]], shared: bool, alike: float, leads: float
) -> str | None:
    if any(x == y for x in a for y in b) and (shared or alike >= SAME_NAMES):
        return "the same name in other words"
    nested = any(x < y or y < x for x in a for y in b)
    if nested and alike >= NESTED_NAMES:
        return "one name inside the other, and much the same text"
    if nested and shared and leads >= NESTED_NAMES:
        return "one name inside the other, and the same lead, drawn from the same conversation"
    if shared and alike >= ANY_NAMES:
        return "nearly the same text, drawn from the same conversation"
    return None


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
