"""The wiki's shape, gold-free: how linked it is, how its articles gather their
conversations, what waits in Talk. Counts over what is on disk.

- See-also coverage: articles with at least one See also item;
- links an article: wikilinks that reach an article of this vault (a title, a stem,
  an alias or a redirect), out of the lead, the body and See also;
- orphans: articles no other article links to; those with a co-occurring neighbour
  (another article citing one of its conversations) are the ones LINK should have
  reached;
- conversations an article: how many conversations each cites (topic aggregation);
- categories an article, and the Talk pages open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dreaming.article.titles import heading_key


@dataclass(frozen=True, slots=True)
class Page:
    """What the shape needs of one article."""

    names: tuple[str, ...]
    """Its stem, title and aliases: what a link to it may say."""
    links: tuple[str, ...]
    """The targets of its wikilinks (categories left out)."""
    see_also: int
    categories: int
    convs: frozenset[str]
    redirect_to: str | None = None


def shape(pages: Mapping[str, Page], talk_pages: int) -> dict[str, Any]:
    """The shape of the wiki whose articles (stem → Page) these are."""
    owner: dict[str, str] = {}
    for stem, page in pages.items():
        for name in page.names:
            owner.setdefault(heading_key(name), stem)
    real = {stem: p for stem, p in pages.items() if p.redirect_to is None}
    inbound: Counter[str] = Counter()
    resolved = 0
    for stem, page in real.items():
        reached = {_final(owner.get(heading_key(t)), pages, owner) for t in page.links}
        reached.discard(None)
        resolved += len(reached)
        inbound.update(r for r in reached if r is not None and r != stem)
    by_conv: dict[str, set[str]] = {}
    for stem, page in real.items():
        for conv in page.convs:
            by_conv.setdefault(conv, set()).add(stem)
    orphans = [stem for stem in real if not inbound[stem]]
    neighboured = [s for s in orphans if any(len(by_conv[c]) > 1 for c in real[s].convs)]
    n = max(1, len(real))
    spread = Counter(len(p.convs) for p in real.values())
    return {
        "see_also": {"hit": sum(p.see_also > 0 for p in real.values()), "of": len(real)},
        "links_per_article": resolved / n,
        "orphans": len(orphans),
        "orphans_with_neighbour": len(neighboured),
        "conversations_per_article": {str(k): spread[k] for k in sorted(spread)},
        "categories_per_article": sum(p.categories for p in real.values()) / n,
        "talk_pages": talk_pages,
    }


def _final(stem: str | None, pages: Mapping[str, Page], owner: Mapping[str, str]) -> str | None:
    """The article a link reaches: a redirect followed (a short chain at most)."""
    for _ in range(3):
        if stem is None:
            return None
        target = pages[stem].redirect_to
        if target is None:
            return stem
        stem = owner.get(heading_key(target))
    return None


def shape_text(s: Mapping[str, Any]) -> str:
    """One line of the shape, for the run report and `eval wiki`."""
    see = s["see_also"]
    share = f"{100 * see['hit'] / see['of']:.0f} %" if see["of"] else "n/a"
    spread = ", ".join(f"{k}: {v}" for k, v in s["conversations_per_article"].items())
    return (
        f"see also {see['hit']}/{see['of']} = {share}, links {s['links_per_article']:.1f} "
        f"an article, orphans {s['orphans']} ({s['orphans_with_neighbour']} with a "
        f"co-occurring neighbour), categories {s['categories_per_article']:.1f} an article, "
        f"talk pages {s['talk_pages']}, conversations an article {{{spread}}}"
    )
