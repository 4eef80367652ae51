"""`search`: the last resort, lexical ranking (BM25 over SQLite FTS5), no embeddings.

The query text is data, never FTS5 syntax: its words are quoted one by one and
joined with OR, so a quote, a `*`, `NEAR`, `-` or a column name in a hostile
query matches as text or not at all, and never raises.

A section that holds every word (in its prose, heading, or the article's title and
aliases) ranks above any that holds only some: BM25 alone weighs a title so much
that, on a big wiki, the many articles titled with one of two rare words bury the one
whose prose holds both.
"""

from __future__ import annotations

import re

from dreaming.article.markup import unstubbed
from dreaming.ledger import Ledger, nav_index
from dreaming.ledger.nav_index import Hit
from dreaming.query import discussed
from dreaming.query.budget import (
    BUDGET,
    MAX_HITS,
    Result,
    fitting,
    json_bytes,
    quoted,
    result,
    short,
    wire,
)

MAX_WORDS = 24
SNIPPET_BYTES = 160
_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    """The query's distinct words, quoted for FTS5."""
    words = dict.fromkeys(w.casefold() for w in _WORD.findall(text[:4000]))
    return [f'"{w}"' for w in words][:MAX_WORDS]


def match_expression(text: str) -> str | None:
    """The FTS5 query for `text`: each word a quoted string, any of them matching."""
    words = _words(text)
    return " OR ".join(words) if words else None


def hits(ledger: Ledger, text: str, limit: int) -> list[Hit]:
    words = _words(text)
    if not words:
        return []
    limit = max(1, min(limit, MAX_HITS))
    found = nav_index.search(ledger, " AND ".join(words), limit) if len(words) > 1 else []
    if len(found) < limit:
        seen = {h.stem for h in found}
        for hit in nav_index.search(ledger, " OR ".join(words), limit + len(found)):
            if hit.stem not in seen and len(found) < limit:
                seen.add(hit.stem)
                found.append(hit)
    return found


def search(ledger: Ledger, text: str, *, limit: int) -> Result:
    found = hits(ledger, text, limit)
    asked = quoted(short(text))
    # Clipped like the text shows them: the data holds only what the page shows.
    names = [short(n, 60) for n in discussed.matching(ledger, text)]
    also = [f"Named in conversations, no article: {'; '.join(names)}"] if names else []
    if not found:
        why = "no article matches" if match_expression(text) else "it holds no words"
        data: dict[str, object] = {"query": short(text), "hits": [], "captured": names}
        return result("search", "\n".join([f"Search {asked}: {why}.", *also]), data)
    header = f"Search {asked}: best first (read one with section STEM HEADING)"
    rows = (
        (
            f"- {h.stem} — {short(h.heading or 'lead')}: {_snippet(h)}",
            {"stem": h.stem, "heading": short(h.heading)},
        )
        for h in found
    )
    listed = wire("\n".join(also)) + json_bytes(names)
    lines, shown = fitting(rows, BUDGET * 3 // 4 - wire(header) - listed)
    if len(shown) < len(found):
        lines.append(f"… {len(found) - len(shown)} more hits cut to fit; narrow the search")
    return result(
        "search",
        "\n".join([header, *lines, *also]),
        {"query": short(text), "hits": shown, "captured": names},
    )


def _snippet(hit: Hit) -> str:
    return short(" ".join(unstubbed(hit.snippet).split()), SNIPPET_BYTES)
