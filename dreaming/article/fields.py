"""What an article's own cited sentences could fill its infobox with: code proposes a
value for a field only where a sentence says it in words a pattern finds, and only a
value copied from that sentence (or another article's title it names); the model then
judges each proposal yes or no (RECONCILE). A field no pattern here knows is never
filled: the schema page lists it for a person to fill. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dreaming.article.cited import Cited
from dreaming.article.claims import kind_of
from dreaming.article.history import undated
from dreaming.article.words import STOPWORDS, mention, words

STATUS = "status"
STATUSES: Mapping[str, re.Pattern[str]] = {
    "planned": re.compile(
        r"\b(?:plans? to|planned|planning to|intends? to|will (?:start|begin|build|use|"
        r"move|switch|launch|write)|is considering|are considering)\b",
        re.IGNORECASE,
    ),
    "in progress": re.compile(
        r"\b(?:in progress|under way|underway|started|began|begun|is being (?:built|"
        r"written|developed)|(?:is|are) (?:now )?working on)\b",
        re.IGNORECASE,
    ),
    "finished": re.compile(
        r"\b(?:finished|completed|is complete|was complete|shipped|went live|is done|"
        r"was done)\b",
        re.IGNORECASE,
    ),
    "abandoned": re.compile(
        r"\b(?:abandoned|gave up|given up|cancell?ed|scrapped)\b", re.IGNORECASE
    ),
    "paused": re.compile(r"\b(?:paused|on hold)\b", re.IGNORECASE),
}
"""A position a project or plan can be in, and the words that state it."""

_LINK_CUES: Mapping[str, re.Pattern[str]] = {
    "made_by": re.compile(
        r"\b(?:made|developed|created|built|released|published|designed|written) by\b",
        re.IGNORECASE,
    ),
    "maintained_by": re.compile(r"\bmaintained by\b", re.IGNORECASE),
    "owner": re.compile(r"\bowned by\b", re.IGNORECASE),
    "implemented_by": re.compile(r"\b(?:implemented|supported) by\b", re.IGNORECASE),
    "part_of": re.compile(
        r"\b(?:part of|(?:a|an|the) (?:feature|component|module|plugin|extension|"
        r"subcommand|command|mode|option|flag) of)\b",
        re.IGNORECASE,
    ),
    "uses": re.compile(
        r"\b(?:uses|using|built (?:on|with)|runs on|relies on|powered by|written in)\b",
        re.IGNORECASE,
    ),
    "includes": re.compile(r"\b(?:includes|including|such as|consists of)\b", re.IGNORECASE),
    "affiliation": re.compile(r"\b(?:works|worked) (?:at|for)\b", re.IGNORECASE),
}
"""A relationship field, and the words after which the other article it names is the value."""
_USED_FOR = re.compile(r"\bused (?:for|to) ([^.,;:()\[\]!?]{3,120})", re.IGNORECASE)
_CLAUSE_ENDS = frozenset(("and", "but", "which", "that", "while", "because", "so", "when"))
USED_FOR_WORDS = 8
TYPE_WORDS = 4
_PRONOUN = re.compile(r"^(?:it|this|the project|the plan)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Proposal:
    field: str
    value: str
    """As it would stand in the infobox: plain words, or `[[Title]]` for a link field."""
    cited: Cited


def propose(
    cited: Sequence[Cited],
    names: Sequence[str],
    fields: Sequence[tuple[str, str]],
    others: Mapping[str, Sequence[str]],
) -> list[Proposal]:
    """Every value the sentences state for the schema's `fields` (`(name, type)`), about
    the subject called `names` (title first, then aliases); `others` maps every other
    article's title to the names it answers to."""
    wanted = {name for name, _ in fields}
    names = [n for n in names if n.strip()]
    found: list[Proposal] = []
    for c in cited:
        plain = undated(c.plain)
        about = _names_subject(plain, names)
        if "type" in wanted and (kind := _type(plain, names)):
            found.append(Proposal("type", kind, c))
        if STATUS in wanted and about:
            found += [Proposal(STATUS, v, c) for v, cue in STATUSES.items() if cue.search(plain)]
        if "used_for" in wanted and about and (use := _used_for(plain)):
            found.append(Proposal("used_for", use, c))
        for field, cue in _LINK_CUES.items():
            if field in wanted and (hit := cue.search(plain)):
                after = plain[hit.end() :]
                found += [Proposal(field, f"[[{t}]]", c) for t in _named(after, others)]
    return found


def _named(text: str, others: Mapping[str, Sequence[str]]) -> list[str]:
    """The titles whose names `text` mentions, a mention inside a longer one left out
    ("Rust Belt" names Rust Belt, not Rust)."""
    spans: list[tuple[int, int, str]] = []
    for title, also in others.items():
        for name in (title, *also):
            name = name.strip()
            if name:
                spans += [(m.start(), m.end(), title) for m in mention(name).finditer(text)]
    kept = [
        t
        for a, b, t in spans
        if not any(x <= a and b <= y and (y - x) > (b - a) for x, y, _ in spans)
    ]
    return list(dict.fromkeys(kept))


def _names_subject(plain: str, names: Sequence[str]) -> bool:
    """Whether a sentence may be about the subject: it opens with "It" or "This", or
    holds a word of one of its names ("the oven" of Oven Build; the model judges)."""
    if _PRONOUN.match(plain):
        return True
    own = {w for n in names for w in words(n) if w not in STOPWORDS and len(w) > 2}
    return bool(own & set(words(plain)))


def _type(plain: str, names: Sequence[str]) -> str | None:
    """ "issue tracker" of "Beads is an issue tracker for agents." about Beads."""
    kind = kind_of(plain)
    if kind is None or not any(_same(kind.subject, n) for n in names):
        return None
    if len(kind.words) > TYPE_WORDS:
        return None
    after = plain[plain.find(kind.phrase) + len(kind.phrase) :].lstrip()
    if after[:1] in (",", ";", ":", "(") or after.split()[:1] in (["and"], ["or"]):
        return None  # "a git-backed, Dolt-powered tracker": the kind was cut in half
    return kind.phrase


def _same(said: str, name: str) -> bool:
    """Whether the words before "is" are the name ("The Beads tool" is not Beads)."""
    plain = [w for w in words(said) if w not in STOPWORDS]
    return plain == [w for w in words(name) if w not in STOPWORDS] and bool(plain)


def _used_for(plain: str) -> str | None:
    found = _USED_FOR.search(plain)
    if found is None:
        return None
    kept: list[str] = []
    for token in found.group(1).split():
        if token.lower() in _CLAUSE_ENDS or len(kept) == USED_FOR_WORDS:
            break
        kept.append(token)
    return " ".join(kept) or None
