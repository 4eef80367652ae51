"""How an article keeps a position that changed over time: a superseded sentence says
when it held ("As of March 2026, the shelf is planned.[^1]") and a `## History` list
keeps the dated trace ("- March 2026: planned.[^1]"). RECONCILE writes both; a person's
History prose is theirs and stays. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from dreaming.article.words import STOPWORDS

HISTORY = "History"
"""The section where an evolving position keeps its dated trace."""
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
_MONTH = "|".join(MONTHS)
TRACE = re.compile(rf"^- (?:{_MONTH}) \d{{4}}: [a-z][a-z ]{{0,40}}\.(?:\[\^[^\[\]\s^]+\])+$")
"""One line of the trace RECONCILE writes: a month, a position, its citations."""
_DATED = re.compile(rf"^(?:As of|In|By|Since|Until) (?:(?:{_MONTH}) )?\d{{4}}\b")
_AS_OF = re.compile(rf"^As of (?:{_MONTH}) \d{{4}}, ")
_PRESENT = re.compile(
    r"\b(?:is|are|am|will|plans?|intends?|remains?|stays?|still|now)\b", re.IGNORECASE
)
_PAST = re.compile(
    r"\b(?:was|were|had|did|\w{2,}ed|chose|made|went|took|got|bought|built|wrote|began|"
    r"became|gave|found|kept|left|sold|told|thought|ran|said|switched|moved)\b",
    re.IGNORECASE,
)


def month(date: str) -> str:
    """ "March 2026" for "2026-03-14"; "" for anything not a YYYY-MM date."""
    year, _, rest = date.partition("-")
    number = rest[:2]
    if not (year.isdigit() and len(year) == 4 and number.isdigit() and 1 <= int(number) <= 12):
        return ""
    return f"{MONTHS[int(number) - 1]} {year}"


def is_dated(sentence: str) -> bool:
    """Whether a sentence already says when it held ("As of May 2026, …", "In 2025 …")."""
    return _DATED.match(sentence.lstrip("*_ ")) is not None


def as_of(sentence: str, date: str, names: Collection[str] = ()) -> str:
    """A sentence stating a position in the present tense ("is planned", "feeds it rye"),
    scoped to the month of `date`; unchanged when it is in the past tense ("was planned",
    "chose oak": it says when it held already), is dated, or the date is no date. Only
    the first word's case may change: it takes a small letter unless it is one of
    `names` (words written with a capital inside sentences: names) or has a capital past
    its first letter ("GitHub")."""
    when = month(date)
    past = not _PRESENT.search(sentence) and _PAST.search(sentence)
    if not when or is_dated(sentence) or past:
        return sentence
    first, space, rest = sentence.partition(" ")
    kept = first == "I" or any(c.isdigit() for c in first) or first[1:] != first[1:].lower()
    if not kept and (first.casefold() in STOPWORDS or first not in names):
        first = first[:1].lower() + first[1:]
    return f"As of {when}, {first}{space}{rest}"


def undated(sentence: str) -> str:
    """The sentence without the "As of <month>, " that `as_of` put before it (first
    letter's case as it was is not known, so the basis of a unit compares words only)."""
    return _AS_OF.sub("", sentence)


def trace_line(date: str, position: str, labels: Sequence[str]) -> str:
    """One trace line: "- March 2026: planned.[^1][^2]"."""
    marks = "".join(f"[^{label}]" for label in labels)
    return f"- {month(date)}: {position}.{marks}"


def with_trace(body: str, lines: Sequence[str]) -> str:
    """A History section's body with its trace lines replaced by `lines`: a person's
    prose stays where it was, the trace comes after it."""
    kept = [line for line in body.splitlines() if not TRACE.match(line.strip())]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join([*kept, *([""] if kept else []), *lines])
