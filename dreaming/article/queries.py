"""What a parsed article says: its prose blocks, citations, links and categories,
and whether it is a redirect, a stub or thin.

Queries over an Article's parts; the markup they read is dreaming.article.markup's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from dreaming.article.document import SEE_ALSO, Article, tail_rank
from dreaming.article.fences import line_content, mask_code, split_lines
from dreaming.article.markup import (
    REDIRECT_LINE,
    SEE_ALSO_ITEM,
    STUB_RE,
    Definition,
    Footnote,
    WikiLink,
    category_name,
    definitions,
    markers,
    parse_footnote,
    wikilinks,
    words,
)

THIN_WORDS = 150
"""An article with fewer words of prose than this is thin and carries {{stub}}."""


def blocks(article: Article) -> list[str]:
    """The lead and every section body: where prose, markers and definitions live."""
    return [article.lead, *(s.body for s in article.sections)]


def prose(article: Article) -> str:
    return "\n".join(blocks(article))


def footnote_defs(article: Article) -> list[Footnote]:
    """Standard-form citations defined anywhere in the article body, in order."""
    found = (parse_footnote(d) for b in blocks(article) for d in definitions(b))
    return [f for f in found if f is not None]


def article_markers(article: Article) -> list[str]:
    """Citation markers in reading order: infobox values, lead, each heading and its body."""
    parts = [v for _, v in article.infobox or ()] + [article.lead]
    parts += [text for s in article.sections for text in (s.heading, s.body)]
    return [m for p in parts for m in markers(p)]


def article_definitions(article: Article) -> list[Definition]:
    return [d for b in blocks(article) for d in definitions(b)]


@dataclass(frozen=True)
class FootnoteBalance:
    """How an article's footnote markers and definitions pair up."""

    cited: tuple[str, ...]
    """Marker labels in order of first citation."""
    defined: Mapping[str, int]
    """How often each label is defined, in order of first definition."""
    undefined: tuple[str, ...]
    """Cited labels with no definition, in order of first citation."""
    orphans: tuple[Definition, ...]
    """Definitions whose label nothing cites, in order."""

    @property
    def repeated(self) -> dict[str, int]:
        """Labels defined more than once, with their counts."""
        return {label: n for label, n in self.defined.items() if n > 1}


def footnote_balance(article: Article) -> FootnoteBalance:
    """The one reading of markers against definitions that the grammar and the gate share."""
    cited = tuple(dict.fromkeys(article_markers(article)))
    found = article_definitions(article)
    defined = Counter(d.label for d in found)
    return FootnoteBalance(
        cited=cited,
        defined=dict(defined),
        undefined=tuple(label for label in cited if label not in defined),
        orphans=tuple(d for d in found if d.label not in cited),
    )


def article_wikilinks(article: Article) -> list[WikiLink]:
    """Links in the lead, section bodies, banner and infobox values (offsets are per part)."""
    parts = [f"[[{article.banner}]]"] if article.banner else []
    parts += [v for _, v in article.infobox or ()]
    return [link for p in [*parts, *blocks(article)] for link in wikilinks(p)]


def aliases(article: Article) -> list[str]:
    """The infobox's `aliases`, comma-separated, each stripped; empty ones left out."""
    listed = dict(article.infobox or ()).get("aliases", "")
    return [a.strip() for a in listed.split(",") if a.strip()]


def categories(article: Article) -> list[str]:
    names = (category_name(link) for b in blocks(article) for link in wikilinks(b))
    return list(dict.fromkeys(n for n in names if n))


def redirect_target(article: Article) -> str | None:
    first = split_lines(article.lead)[0] if article.lead else ""
    m = REDIRECT_LINE.match(line_content(first))
    return m.group(1).strip() if m else None


def is_redirect(article: Article) -> bool:
    return redirect_target(article) is not None


def is_stub(article: Article) -> bool:
    return any(STUB_RE.search(mask_code(b)) for b in blocks(article))


def prose_words(article: Article) -> int:
    """Words in the lead and body sections (See also and References are lists, not prose)."""
    parts = [article.lead, *(s.body for s in article.sections if tail_rank(s) in (0, 2))]
    return sum(words(p) for p in parts)


def is_thin(article: Article) -> bool:
    return prose_words(article) < THIN_WORDS


def see_also(article: Article) -> list[str]:
    section = article.section(SEE_ALSO)
    if section is None:
        return []
    items = (SEE_ALSO_ITEM.match(line.strip()) for line in split_lines(mask_code(section.body)))
    return [m.group(1).strip() for m in items if m]
