"""`list` (by kind, type and category, together), `category` and `status`: what the
vault holds."""

from __future__ import annotations

from collections.abc import Callable

from dreaming.ledger import Ledger, nav_index, runs
from dreaming.query.budget import (
    BUDGET,
    Listing,
    Result,
    again,
    fitting,
    paged,
    quoted,
    result,
    short,
)
from dreaming.subjects.names import canonical

NAMED = BUDGET // 2
"""Bytes of JSON for the names an empty answer offers instead (the kinds, categories)."""


def list_by(
    ledger: Ledger, *, kind: str | None, category: str | None, type: str | None, page: int
) -> Result:
    """The articles with every filter given; with none, what there is to filter by."""
    bare = _bare(category) if category is not None else None
    asked = {k: v for k, v in (("kind", kind), ("type", type), ("category", bare)) if v is not None}
    if not asked:
        return _overview(ledger, page)
    found = nav_index.stems_where(
        ledger,
        kind=kind,
        type=type,
        category_key=canonical(bare) if bare is not None else None,
    )
    said = " and ".join(f"{k} {quoted(short(v))}" for k, v in asked.items())
    title = " · ".join(f"{k}: {short(v)}" for k, v in asked.items())
    data: dict[str, object] = {k: short(v) for k, v in asked.items()}
    if not found:
        offered = [f"{k}s: {_values(ledger, k)}" for k in asked]
        text = f"No article has {said}. " + "; ".join(offered)
        return result("list", text, {**data, "stems": []})
    args = " ".join(f"{k}={quoted(v)}" for k, v in asked.items())
    return _members(
        "list",
        f"# {title} ({len(found)} articles)",
        found,
        page,
        lambda n: again("list", args, n),
        data,
    )


def _overview(ledger: Ledger, page: int) -> Result:
    lines = ["# What the vault holds"]
    for column in ("kind", "type", "category"):
        lines.append(f"{column}s: {_values(ledger, column)}")
    lines.append("Next: list kind=K, list type=T or category NAME (given together, all must hold)")
    return paged(
        "list",
        header=lines[0],
        body="\n".join(lines[1:]),
        page=page,
        next_read=lambda n: again("list", "", n),
        data={},
    )


def _values(ledger: Ledger, column: str) -> str:
    """Each kind, type or category with its count, one line."""
    if column == "category":
        pairs = [(n, c) for _, n, c in nav_index.categories(ledger)]
    else:
        pairs = nav_index.values_of(ledger, column)
    return ", ".join(f"{short(v)} ({n})" for v, n in pairs) or "none"


def _bare(name: str) -> str:
    bare = name.strip()
    if bare.casefold().startswith("category:"):
        bare = bare[len("category:") :]
    return bare


def category_members(ledger: Ledger, name: str, *, page: int) -> Result:
    bare = _bare(name)
    found = nav_index.in_category(ledger, canonical(bare)) if bare else []
    if not found:
        rows = ((short(n), short(n)) for _, n, _ in nav_index.categories(ledger))
        names, shown = fitting(rows, NAMED)
        text = f"No category {quoted(short(bare))}. Categories: {', '.join(names) or 'none'}"
        return result("category", text, {"category": short(bare), "stems": [], "categories": shown})
    return _members(
        "category",
        f"# Category: {short(bare)} ({len(found)} articles)",
        found,
        page,
        lambda n: again("category", quoted(bare), n),
        {"category": short(bare)},
    )


def _members(
    tool: str,
    header: str,
    found: list[tuple[str, str]],
    page: int,
    next_read: Callable[[int], str],
    data: dict[str, object],
) -> Result:
    listing = Listing.of(("stems",), ((f"- {s} — {short(t)}", ("stems", s)) for s, t in found))
    return paged(
        tool,
        header=header,
        body=listing.body,
        page=page,
        next_read=next_read,
        data=data,
        shown=listing.shown,
    )


def status(ledger: Ledger) -> Result:
    counts = nav_index.counts(ledger)
    lines = [
        f"articles: {counts['articles']} (+ {counts['redirects']} redirects, "
        f"{counts['unreadable']} unreadable)",
        f"conversations: {counts['conversations']} ({counts['messages']} messages)",
    ]
    last = runs.last(ledger)
    run = None
    if last is not None:
        run = {
            "id": last.id,
            "kind": last.kind,
            "status": last.status,
            "started_at": last.started_at,
            "finished_at": last.finished_at,
        }
        lines.append(
            f"last run: {last.kind} {last.status}, started {last.started_at}"
            + (f", finished {last.finished_at}" if last.finished_at else "")
        )
    else:
        lines.append("last run: none yet")
    bad = nav_index.unreadable(ledger)
    rows = ((f"unreadable: articles/{stem}.md: {why}", stem) for stem, why in bad[:5])
    said, shown = fitting(rows, NAMED)
    lines += said
    if len(bad) > len(shown):
        lines.append(f"… and {len(bad) - len(shown)} more unreadable")
    data = {**counts, "last_run": run, "unreadable_files": shown}
    return result("status", "\n".join(lines), data)
