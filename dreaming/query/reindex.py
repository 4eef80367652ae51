"""`dreaming reindex`: rebuild the ledger's article cache from the vault.

Markdown is the truth. This drops exactly the derived tables and rebuilds
them from `articles/*.md` in sorted-stem order, so the same vault always
gives the same rows; the synthesis ledger (conversations, chunks, runs) is
never touched. The same parse brings the navigation index up to date.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dreaming.article.document import parse
from dreaming.article.titles import heading_key
from dreaming.errors import RefusedFileError
from dreaming.ledger import Ledger, article_index
from dreaming.ledger.article_index import IndexRows
from dreaming.ledger.nav_index import NavArticle, Stamp
from dreaming.query.index import NavIndex, nav_article
from dreaming.query.rows import index_article, resolved
from dreaming.vault import Vault, checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_bytes, refusal


@dataclass
class ReindexReport:
    articles: int = 0
    links: int = 0
    aliases: int = 0
    categories: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def reindex(vault: Vault, ledger: Ledger) -> ReindexReport:
    """Rebuild the index from the real files of `articles/`: a link (even to another
    article: the name it gives is no article's file), a named pipe or a file over its
    cap is reported in `unreadable` and left out, never read."""
    report = ReindexReport()
    paths = sorted(vault.articles.glob("*.md"), key=lambda p: p.stem)
    refused = {p: why for p in paths if (why := refusal(vault, p)) is not None}
    by_key = {heading_key(p.stem): p.stem for p in paths if p not in refused}
    rows = IndexRows()
    parsed: dict[str, NavArticle] = {}
    for path in paths:
        read = refused.get(path) or _read(vault, path)
        if isinstance(read, str):
            report.unreadable.append((vault.rel(path), read))
            continue
        data, text = read
        article, digest, mine = parse(text), checksum(data), IndexRows()
        index_article(path.stem, article, digest, {}, mine)
        parsed[path.stem] = nav_article(path.stem, Stamp(0, 0, digest), article, mine)
        rows.articles += mine.articles
        rows.aliases.update(mine.aliases)
        rows.links.update(mine.links)
        rows.categories.update(mine.categories)
        rows.article_categories.update(mine.article_categories)
        rows.facts += mine.facts
    rows = resolved(rows, by_key)
    article_index.rebuild(ledger, rows)
    # The navigation index from the same parse: a file still holding the bytes read here
    # is not parsed again, so the first query after a reindex finds it built.
    NavIndex(vault, ledger).refresh(parsed=parsed)
    report.articles = len(rows.articles)
    report.links = len(rows.links)
    report.aliases = len(rows.aliases)
    report.categories = len(rows.categories)
    return report


def _read(vault: Vault, path: Path) -> tuple[bytes, str] | str:
    """The article's bytes and text, or why it cannot be indexed."""
    try:
        data = read_bytes(vault, path, cap=MAX_PAGE_BYTES, what="an article")
        return data, data.decode("utf-8")
    except RefusedFileError as e:
        return e.reason
    except (OSError, UnicodeDecodeError) as e:
        return f"cannot read as UTF-8 text ({e}); save it as UTF-8"
