"""`search`: the last resort, lexical ranking (BM25 over SQLite FTS5), no embeddings.

The query text is data, never FTS5 syntax: its words are quoted one by one and
joined with OR, so a quote, a `*`, `NEAR`, `-` or a column name in a hostile
query matches as text or not at all, and never raises.
"""

from __future__ import annotations

import re

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


def match_expression(text: str) -> str | None:
    """The FTS5 query for `text`: each word a quoted string, any of them matching."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(text[:4000])))[:MAX_WORDS]
    return " OR ".join(f'"{w}"' for w in words) if words else None


def hits(ledger: Ledger, text: str, limit: int) -> list[Hit]:
    expression = match_expression(text)
    if expression is None:
        return []
    return nav_index.search(ledger, expression, max(1, min(limit, MAX_HITS)))


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
    return short(" ".join(hit.snippet.split()), SNIPPET_BYTES)
