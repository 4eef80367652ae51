"""`resolve`: a name → the one article, through the index only.

A name matches an article's stem, title or infobox alias by its canonical key
(case, punctuation, possessives and leading articles ignored); a redirect
article stands for its target. Several articles → the candidates; none → the
nearest names by letter trigrams, and a pointer to `search`. A name is never
turned into a path: path-like input is one more string to look up.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreaming.article.markup import unstubbed
from dreaming.ledger import Ledger, nav_index
from dreaming.ledger.nav_index import Entry
from dreaming.query import discussed
from dreaming.query.budget import BUDGET, Result, fitting, quoted, result, short
from dreaming.subjects.names import canonical

MAX_NAME_CHARS = 300
"""No title is longer; a longer name is refused before it reaches the index."""
NEAREST = 8
LISTED = BUDGET * 5 // 8
"""Bytes of JSON for the candidates or nearest names, in the text and the data together."""
_HOW = {"stem": 0, "title": 1, "alias": 2}


@dataclass(frozen=True, slots=True)
class Found:
    """What a name resolves to: the stems, best first, and how each was reached."""

    stems: list[str]
    how: dict[str, str]


def find(ledger: Ledger, name: str) -> Found:
    if not name.strip() or len(name) > MAX_NAME_CHARS or "\0" in name:
        return Found([], {})
    key = canonical(name)
    hits = sorted(nav_index.stems_named(ledger, key), key=lambda h: (h[0] != name, _HOW[h[1]]))
    if hits and hits[0][0] == name:
        hits = [h for h in hits if h[0] == name]
    stems: list[str] = []
    how: dict[str, str] = {}
    for stem, way in hits:
        for final, reached in _follow(ledger, stem, way):
            if final not in how:
                stems.append(final)
                how[final] = reached
    return Found(stems, how)


def _follow(ledger: Ledger, stem: str, way: str) -> list[tuple[str, str]]:
    """The article a redirect leads to (a chain of at most three), else the stem itself."""
    seen = {stem}
    current = [(stem, way)]
    for _ in range(3):
        entry = nav_index.entry(ledger, current[0][0]) if len(current) == 1 else None
        if entry is None or entry.redirect_key is None:
            return current
        targets = [s for s, _ in nav_index.stems_named(ledger, entry.redirect_key) if s not in seen]
        if not targets:
            return current
        seen.update(targets)
        current = [(t, f"redirect from {stem}") for t in dict.fromkeys(targets)]
    return current


def nearest(ledger: Ledger, name: str, limit: int = NEAREST) -> list[tuple[str, str]]:
    """(name, stem) of the names closest to `name` by letter trigrams, closest first."""
    key = canonical(name[:MAX_NAME_CHARS])
    grams = _trigrams(key)
    if not grams:
        return []
    scored: dict[str, tuple[float, str, str]] = {}
    low, high = len(key) // 2, 2 * len(key) + 3
    for other, shown, stem in nav_index.all_names(ledger):
        contains = bool(key) and key in other
        if not contains and not low <= len(other) <= high:
            continue  # half as long or twice as long is no near spelling
        theirs = _trigrams(other)
        score = len(grams & theirs) / len(grams | theirs) + (0.5 if contains else 0.0)
        if score >= 0.2 and score > scored.get(stem, (0.0, "", ""))[0]:
            scored[stem] = (score, shown, stem)
    best = sorted(scored.values(), key=lambda s: (-s[0], s[1]))[:limit]
    return [(shown, stem) for _, shown, stem in best]


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def lead_line(ledger: Ledger, stem: str, limit: int = 200) -> str:
    """The lead's first words, one line."""
    sections = nav_index.sections(ledger, stem)
    return short(" ".join(unstubbed(sections[0].body).split()) if sections else "", limit)


def describe(entry: Entry) -> str:
    kind = f", {short(entry.kind, 40)}" if entry.kind else ""
    return f"{entry.stem} — {short(entry.title)}{kind}"


def resolve(ledger: Ledger, name: str) -> Result:
    found = find(ledger, name)
    entries = {e.stem: e for e in nav_index.entries(ledger, found.stems)}
    asked = short(name)
    if len(found.stems) == 1:
        stem = found.stems[0]
        entry = entries[stem]
        how = short(found.how[stem])
        lines = [f"{quoted(asked)} → {describe(entry)} ({how})"]
        if entry.unreadable:
            lines.append(f"articles/{stem}.md is unreadable: {entry.unreadable}")
        elif entry.redirect:
            lines.append(f"A redirect to {quoted(short(entry.redirect))}, which has no article.")
        else:
            lines.append(lead_line(ledger, stem))
            lines.append(f"Next: read {stem}")
        found_data = {"name": asked, "stem": stem, "title": short(entry.title), "how": how}
        return result("resolve", "\n".join(lines), {**found_data, "candidates": []})
    if found.stems:
        rows = (
            (f"- {describe(entries[stem])}: {lead_line(ledger, stem, 120)}", stem)
            for stem in found.stems
        )
        lines, shown = fitting(rows, LISTED)
        head = f"{quoted(asked)} names {len(found.stems)} articles; pick one:"
        if len(shown) < len(found.stems):
            lines.append(f"… and {len(found.stems) - len(shown)} more")
        data: dict[str, object] = {"name": asked, "stem": None, "candidates": shown}
        return result("resolve", "\n".join([head, *lines]), data)
    if len(name) <= MAX_NAME_CHARS and "\0" not in name:
        said = discussed.resolve(ledger, name)
        if said is not None:
            return said
    return unknown(ledger, name, "resolve")


def unknown(ledger: Ledger, name: str, tool: str) -> Result:
    """No article by that name: the nearest names and the search to try."""
    asked = quoted(short(name))
    rows = ((f"{short(n)} ({s})", s) for n, s in nearest(ledger, name))
    close, stems = fitting(rows, LISTED)
    lines = [f"No article named {asked}."]
    if close:
        lines.append("Nearest names: " + "; ".join(close))
    lines.append(f"Try: search {asked}")
    data = {"name": short(name), "stem": None, "candidates": [], "nearest": stems}
    return result(tool, "\n".join(lines), data)


def lookup(ledger: Ledger, stem: str, tool: str) -> Entry | Result:
    """The article a tool was asked about: its stem, else a name that resolves to one
    article; otherwise the result that says what exists instead."""
    if len(stem) <= MAX_NAME_CHARS and "\0" not in stem:
        entry = nav_index.entry(ledger, stem)
        if entry is not None:
            return entry
    found = find(ledger, stem)
    if len(found.stems) == 1:
        entry = nav_index.entry(ledger, found.stems[0])
        if entry is not None:
            return entry
    if found.stems:
        res = resolve(ledger, stem)
        return Result(tool, res.text, res.data, None)
    return unknown(ledger, stem, tool)
