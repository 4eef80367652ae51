"""`source`: the conversation behind a `conv:HASH` footnote, by message, redacted.

Message text is the ledger's, redacted at ingest; nothing here reads Raw/.
"""

from __future__ import annotations

from dreaming.ledger import Ledger, nav_index
from dreaming.query.budget import BUDGET, Result, again, fitting, paged, quoted, result, short

MAX_MESSAGES = 2000
"""One source read spans at most this many messages; `from`/`to` pick others."""


def conv_ref(conv: str) -> str:
    """`conv:HASH`, `[^3]: `conv:HASH` …`-style pastes and bare ids all name the id or hash."""
    ref = conv.strip().strip("`").strip()
    if ref.casefold().startswith("conv:"):
        ref = ref[len("conv:") :]
    return ref.strip("`").strip()


def source(ledger: Ledger, conv: str, *, start: int | None, end: int | None, page: int) -> Result:
    ref = conv_ref(conv)
    found = nav_index.conversation(ledger, ref) if ref and len(ref) <= 300 else []
    asked = quoted(short(conv))
    if not found:
        text = f"No conversation {asked}. Ask for the `conv:HASH` a footnote cites (8 hex digits)."
        return result("source", text, {"conv": short(conv), "id": None})
    if len(found) > 1:
        ids, shown = fitting(((short(i), short(i)) for i, _, _, _ in found), BUDGET // 2)
        text = f"{asked} names {len(found)} conversations; ask by id: {', '.join(ids)}"
        data = {"conv": short(conv), "id": None, "candidates": shown}
        return result("source", text, data)
    conv_id, hash8, title, count = found[0]
    first = max(start or 0, 0)
    last = min(end if end is not None else count - 1, count - 1, first + MAX_MESSAGES - 1)
    messages = nav_index.messages(ledger, conv_id, first, last)
    body = "\n\n".join(f"[{p}] {role}: {text}" for p, role, text in messages)
    if not messages:
        body = f"(no messages {first}-{last}; it has messages 0-{count - 1})"
    bounds = f"from={first} to={last}"
    header = (
        f"# conv:{short(hash8, 40)} — {short(title or 'untitled')}\n"
        f"messages {first}-{last} of 0-{count - 1}"
    )
    return paged(
        "source",
        header=header,
        body=body,
        page=page,
        next_read=lambda n: again("source", f"conv:{ref} {bounds}", n),
        data={"conv": short(conv), "id": short(conv_id), "hash8": short(hash8, 40),
              "from": first, "to": last, "messages": count},
    )  # fmt: skip
