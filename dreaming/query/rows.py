"""One article's rows of the ledger's article index, shared by `dreaming reindex` and
the read path's navigation index, so one parse of a file serves both."""

from __future__ import annotations

from dataclasses import replace

from dreaming.article.document import Article, tail_rank
from dreaming.article.fences import line_content, split_lines
from dreaming.article.markup import MAIN_LINE, category_name, wikilinks
from dreaming.article.queries import aliases, categories, redirect_target, see_also
from dreaming.article.titles import heading_key, nfc, title_for_stem
from dreaming.ledger.article_index import IndexedArticle, IndexRows


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


def resolved(rows: IndexRows, by_key: dict[str, str]) -> IndexRows:
    """Rows made with no `by_key` (link targets as written, spaces as `_`), their link
    targets and redirects resolved now that every stem is known: the same rows as
    `index_article` given `by_key` at first."""

    def resolve(target: str) -> str:
        return by_key.get(heading_key(target), target)

    return IndexRows(
        [replace(a, redirect_to=resolve(a.redirect_to)) if a.redirect_to else a
         for a in rows.articles],
        rows.aliases,
        rows.categories,
        rows.article_categories,
        rows.facts,
        {(src, resolve(dst), via) for src, dst, via in rows.links},
    )  # fmt: skip
