"""Names the conversations discussed that have no article of their own: subjects the
night captured (named, not yet worth an article) and names it folded into another
article. `resolve` answers with where they were said and the article that holds them;
`search` lists them after its hits. Without this a name a person remembers saying
would lead nowhere, though the ledger knows exactly where it was said.
"""

from __future__ import annotations

from dreaming.ledger import Ledger, nav_index, subjects
from dreaming.query.budget import BUDGET, Result, fitting, quoted, result, room, short, wire
from dreaming.subjects.names import canonical

LISTED = BUDGET * 5 // 8
"""Bytes of JSON for the conversations listed."""
SEARCH_NAMES = 5
"""Captured names listed after a search's hits."""
_MAX_WORDS = 6


def resolve(ledger: Ledger, name: str) -> Result | None:
    """`resolve`'s answer for a discussed name with no article; None if no
    conversation ever named it."""
    key = canonical(name)
    asked = short(name)
    folded = subjects.folded_into(ledger, key)
    entry = nav_index.entry(ledger, folded) if folded else None
    if entry is not None and not entry.unreadable:
        text = f"{quoted(asked)} → {entry.stem} — {short(entry.title)} (folded into it)"
        to: dict[str, object] = {
            "name": asked,
            "stem": entry.stem,
            "title": short(entry.title),
            "how": "folded",
        }
        return result("resolve", f"{text}\nNext: read {entry.stem}", {**to, "candidates": []})
    talked = subjects.talked_about(ledger, key)
    if not talked:
        return None
    cited = nav_index.citing(ledger, [t.hash8 for t in talked])
    # The article citing most of the conversations that named it, if that is more
    # than half of them: what it was discussed with, where to read about it (seed §3.4).
    home = min(cited, key=lambda s: (-cited[s], s), default=None)
    if home is not None and cited[home] * 2 <= len(talked):
        home = None
    said = "conversation" if len(talked) == 1 else "conversations"
    head = f"{quoted(asked)} has no article: it was captured, named in {len(talked)} {said}:"
    rows = (
        (
            f"- conv:{t.hash8} {short(t.title or 'untitled', 80)} ({(t.created_at or '?')[:10]})",
            t.hash8,
        )
        for t in talked
    )
    which = "That conversation is" if len(talked) == 1 else "Most of them are"
    tail = [f"{which} cited by {home}. Next: read {home}"] if home else []
    data: dict[str, object] = {"name": asked, "stem": home, "how": "captured", "candidates": []}
    # The rows get what the head, the tail (the read to go on with) and the data leave.
    around = wire("\n".join([head, f"… and {len(talked)} more", *tail]))
    left = room("resolve", {**data, "conversations": []}) - around
    lines, shown = fitting(rows, min(LISTED, left))
    if len(shown) < len(talked):
        lines.append(f"… and {len(talked) - len(shown)} more")
    return result("resolve", "\n".join([head, *lines, *tail]), {**data, "conversations": shown})


def matching(ledger: Ledger, text: str) -> list[str]:
    """The captured names holding every word of `text`, most talked about first."""
    words = [w for w in canonical(text[:400]).split() if len(w) > 1][:_MAX_WORDS]
    return [s.display for s in subjects.without_article_matching(ledger, words, SEARCH_NAMES)]
