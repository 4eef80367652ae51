"""`dreaming reindex`: rebuild the ledger's article cache from the vault.

Markdown is the truth. This drops exactly the derived tables and rebuilds
them from `articles/*.md` in sorted-stem order, so the same vault always
gives the same rows; the synthesis ledger (conversations, chunks, runs) is
never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dreaming.article.document import Article, parse, tail_rank
from dreaming.article.fences import line_content, split_lines
from dreaming.article.markup import MAIN_LINE, category_name, wikilinks
from dreaming.article.queries import aliases, categories, redirect_target, see_also
from dreaming.article.titles import heading_key, nfc, title_for_stem
from dreaming.errors import RefusedFileError
from dreaming.ledger import Ledger, article_index
from dreaming.ledger.article_index import IndexedArticle, IndexRows
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
    for path in paths:
        read = refused.get(path) or _read(vault, path)
        if isinstance(read, str):
            report.unreadable.append((vault.rel(path), read))
            continue
        data, text = read
        index_article(path.stem, parse(text), checksum(data), by_key, rows)
    article_index.rebuild(ledger, rows)
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


def index_article(
    stem: str, article: Article, digest: str, by_key: dict[str, str], rows: IndexRows
) -> None:
    """Add one article's rows; a link target not in `by_key` (heading key → stem) stays
    the name as written, spaces as `_` (the read path resolves it when read)."""

    def resolve(target: str) -> str:
        return by_key.get(heading_key(target), target.strip().replace(" ", "_"))

    box = dict(article.infobox or ())
    redirect = redirect_target(article)
    title = article.title or title_for_stem(stem)
    lead = " ".join(article.lead.split())[:500]
    rows.articles.append(
        IndexedArticle(
            stem,
            title,
            box.get("kind"),
            box.get("type"),
            lead,
            redirect is not None,
            resolve(redirect) if redirect else None,
            digest,
        )
    )
    names = {title, title_for_stem(stem)}
    names.update(aliases(article))
    rows.aliases.update((" ".join(nfc(n).casefold().split()), stem) for n in names)
    for position, (key, value) in enumerate(article.infobox or ()):
        rows.facts.append((stem, position, key, value))
        for link in wikilinks(value):
            rows.links.add((stem, resolve(link.target), "infobox"))
    for name in categories(article):
        rows.categories.add(name)
        rows.article_categories.add((stem, name))
    body = [article.lead, *(s.body for s in article.sections if tail_rank(s) in (0, 2))]
    for block in body:
        for link in wikilinks(block):
            if category_name(link) is None:
                rows.links.add((stem, resolve(link.target), "prose"))
        mains = (MAIN_LINE.fullmatch(line_content(line)) for line in split_lines(block))
        for m in (m for m in mains if m is not None):
            for link in wikilinks(m.group(1)):
                rows.links.add((stem, resolve(link.target), "main"))
    for target in see_also(article):
        rows.links.add((stem, resolve(target), "seealso"))
    if article.banner:
        rows.links.add((stem, resolve(article.banner), "series"))
    if redirect:
        rows.links.add((stem, resolve(redirect), "redirect"))
