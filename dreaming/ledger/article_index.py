"""The article index: a cache of `articles/*.md` that `dreaming reindex` rebuilds.

Markdown is the truth; these tables can be dropped and rebuilt from the vault at
any time, so nothing of the pipeline's own (its subjects included) lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dreaming.ledger.connection import Ledger

DERIVED_TABLES = (
    "article_index",
    "article_aliases",
    "categories",
    "article_categories",
    "infobox_facts",
    "links",
)


@dataclass(frozen=True, slots=True)
class IndexedArticle:
    stem: str
    title: str
    kind: str | None
    type: str | None
    lead: str
    is_redirect: bool
    redirect_to: str | None
    checksum: str


@dataclass
class IndexRows:
    """Everything the index holds, as read from the articles."""

    articles: list[IndexedArticle] = field(default_factory=list)
    aliases: set[tuple[str, str]] = field(default_factory=set)
    """(casefolded alias, stem)"""
    categories: set[str] = field(default_factory=set)
    article_categories: set[tuple[str, str]] = field(default_factory=set)
    """(stem, category)"""
    facts: list[tuple[str, int, str, str]] = field(default_factory=list)
    """(stem, position, field, value)"""
    links: set[tuple[str, str, str]] = field(default_factory=set)
    """(src stem, dst stem, via: prose | infobox | seealso | series | main | redirect)"""


def rebuild(ledger: Ledger, rows: IndexRows) -> None:
    """Replace the whole index with `rows`, in one transaction, in a deterministic order."""
    with ledger.transaction() as db:
        for table in DERIVED_TABLES:
            db.execute(f"DELETE FROM {table}")
        db.executemany(
            "INSERT INTO article_index(stem, title, kind, type, lead, is_redirect, "
            "redirect_to, checksum) VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    a.stem,
                    a.title,
                    a.kind,
                    a.type,
                    a.lead,
                    int(a.is_redirect),
                    a.redirect_to,
                    a.checksum,
                )
                for a in rows.articles
            ],
        )
        db.executemany("INSERT INTO article_aliases VALUES (?,?)", sorted(rows.aliases))
        db.executemany("INSERT INTO categories VALUES (?)", [(c,) for c in sorted(rows.categories)])
        db.executemany(
            "INSERT INTO article_categories VALUES (?,?)", sorted(rows.article_categories)
        )
        db.executemany("INSERT INTO infobox_facts VALUES (?,?,?,?)", rows.facts)
        db.executemany("INSERT INTO links VALUES (?,?,?)", sorted(rows.links))


def count(ledger: Ledger) -> int:
    """Articles in the index (redirects included)."""
    return int(ledger.db.execute("SELECT COUNT(*) FROM article_index").fetchone()[0])


def alias_titles(ledger: Ledger) -> list[tuple[str, str]]:
    """(name, article title) for every article's title and infobox alias, redirects
    to their target's title; in a deterministic order."""
    return [
        (name, title)
        for name, title in ledger.db.execute(
            "SELECT a.title, coalesce(t.title, a.title) FROM article_index a "
            "LEFT JOIN article_index t ON a.is_redirect AND t.stem = a.redirect_to "
            "UNION SELECT x.alias, a.title FROM article_aliases x "
            "JOIN article_index a ON a.stem = x.stem AND NOT a.is_redirect "
            "ORDER BY 2, 1"
        )
    ]
