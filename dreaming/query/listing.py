"""`list` (by kind, type or category), `category` and `status`: what the vault holds."""

from __future__ import annotations

from collections.abc import Callable

from dreaming.ledger import Ledger, nav_index, runs
from dreaming.query.budget import Result, clip, paged, quoted, result
from dreaming.subjects import canonical


def list_by(
    ledger: Ledger, *, kind: str | None, category: str | None, type: str | None, page: int
) -> Result:
    if category is not None:
        return category_members(ledger, category, page=page, tool="list")
    if kind is not None or type is not None:
        column, value = ("kind", kind) if kind is not None else ("type", type)
        assert value is not None
        found = nav_index.stems_where(ledger, column, value)
        if not found:
            have = ", ".join(f"{v} ({n})" for v, n in nav_index.values_of(ledger, column))
            text = (
                f"No article has {column} {quoted(clip(value, 120))}. {column}s: {have or 'none'}"
            )
            return result("list", clip(text, 2000), {column: value, "stems": []})
        return _members(
            "list",
            f"# {column}: {clip(value, 200)} ({len(found)} articles)",
            found,
            page,
            lambda n: f"list {column}={quoted(value)} page={n}",
            {column: value},
        )
    lines = ["# What the vault holds"]
    for column in ("kind", "type"):
        values = nav_index.values_of(ledger, column)
        lines.append(f"{column}s: " + (", ".join(f"{v} ({n})" for v, n in values) or "none"))
    cats = nav_index.categories(ledger)
    lines.append("categories: " + (", ".join(f"{n} ({c})" for _, n, c in cats) or "none"))
    lines.append("Next: list kind=K, list type=T or category NAME")
    return paged(
        "list",
        header=lines[0],
        body="\n".join(lines[1:]),
        page=page,
        next_read=lambda n: f"list page={n}",
        data={},
    )


def category_members(ledger: Ledger, name: str, *, page: int, tool: str = "category") -> Result:
    bare = name.strip()
    if bare.casefold().startswith("category:"):
        bare = bare[len("category:") :]
    found = nav_index.in_category(ledger, canonical(bare)) if bare else []
    if not found:
        names = [n for _, n, _ in nav_index.categories(ledger)]
        text = f"No category {quoted(clip(bare, 120))}. Categories: {', '.join(names) or 'none'}"
        return result(tool, clip(text, 2000), {"category": bare, "stems": [], "categories": names})
    return _members(
        tool,
        f"# Category: {clip(bare, 200)} ({len(found)} articles)",
        found,
        page,
        lambda n: (
            f"{tool} {quoted(bare)} page={n}"
            if tool == "category"
            else f"list category={quoted(bare)} page={n}"
        ),
        {"category": bare},
    )


def _members(
    tool: str,
    header: str,
    found: list[tuple[str, str]],
    page: int,
    next_read: Callable[[int], str],
    data: dict[str, object],
) -> Result:
    body = "\n".join(f"- {stem} — {title}" for stem, title in found)
    return paged(
        tool,
        header=header,
        body=body,
        page=page,
        next_read=next_read,
        data={**data, "stems": [s for s, _ in found]},
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
    for stem, why in bad[:5]:
        lines.append(f"unreadable: articles/{stem}.md: {why}")
    if len(bad) > 5:
        lines.append(f"… and {len(bad) - 5} more unreadable")
    data = {**counts, "last_run": run, "unreadable_files": [s for s, _ in bad]}
    return result("status", clip("\n".join(lines), 2048), data)
