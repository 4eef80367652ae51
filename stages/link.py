"""LINK: in every article, the first mention of each other article in a section's prose
becomes a wikilink, and the articles citing the same conversations (then those linking
to it, then those whose subjects its conversations name, or whose conversations name
its subject) are listed under `## See also`. Code only: no model call, the words never
change.

One unit an article, a person's included; its input is its own bytes, the names of
every article and its neighbours, so a night that adds or renames an article links
everything again and a night that changes nothing links nothing. Every change goes
through the write door (the person's edit since our read wins).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from dreaming.article import LEAD, parse, render
from dreaming.article.document import SEE_ALSO, Article, tail_rank
from dreaming.article.known import KnownArticles, linkable
from dreaming.article.linking import Names, Target, link_article, names_of
from dreaming.article.markup import unlinked, wikilinks
from dreaming.article.normalize import canonical_links
from dreaming.article.queries import aliases, footnote_defs, is_redirect
from dreaming.article.sections import extract_section, replace_section
from dreaming.article.see_also import neighbours, with_see_also
from dreaming.article.titles import heading_key, nfc, title_for_stem
from dreaming.ledger import subjects
from dreaming.vault import checksum
from dreaming.vault.files import read_articles
from stages.runner.contract import (
    StageContext,
    StageName,
    Unit,
    UnitResult,
    editable_article,
    read_article,
    unwritten,
)
from stages.runner.write import Edit

VERSION = "4"
"""Part of every unit's input: a changed rule links every article again. 4: links name
the file stem (Obsidian's rule), so every article is looked at once to respell its
links written before."""


class LinkStage:
    name: StageName = "link"
    policy: tuple[str, ...] = ()
    commit_every = 200
    """Units a commit: LINK only wraps words, each unit writes its own article, and one
    commit an article was most of a first night's LINK over a big wiki (40 ms each)."""

    def __init__(self) -> None:
        self._wiki: tuple[str, _Wiki] = ("", _Wiki([], names_of([]), {}, KnownArticles(), {}))
        """The run whose units were listed, and the articles' names and neighbours then."""
        self._read: dict[str, _Read] = {}
        """What LINK read of each article last time, kept while its bytes stay the same:
        a night after one edit parses one article, not the whole wiki."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        wiki = self._list(ctx)
        self._wiki = (ctx.run_id, wiki)
        names = hashlib.sha256(
            "\x00".join(f"{t.stem}\x01{'|'.join(t.names)}" for t in wiki.targets).encode("utf-8")
        ).hexdigest()
        for stem, read in self._read.items():
            # Keyed on the text as LINK does not change it, so what LINK wrote is no new
            # input the next night, and on the names and neighbours it links to.
            near = "|".join(wiki.near.get(stem, ()))
            digest = hashlib.sha256(f"{VERSION}\x00{names}\x00{near}\x00{read.said}".encode())
            yield Unit(stem, digest.hexdigest(), f"link {title_for_stem(stem)}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        # No model is asked, so whether the article is stuck is left to the write door
        # (asked of every article first, it cost more than linking them).
        found = editable_article(ctx, unit.key)
        if isinstance(found, UnitResult):
            return found
        writer, before, text = found
        wiki = self._current(ctx)
        if self._reading(unit.key, text).target is None:  # a redirect
            return UnitResult("done")
        linked, changed = link_article(text, wiki.names, unit.key)
        listed = with_see_also(linked, wiki.near.get(unit.key, ()))
        touched = [LEAD if heading == "" else heading for heading in changed]
        if listed != linked:
            touched.append(SEE_ALSO)
        listed, respelled = _respelled(listed, wiki, unit.key)
        touched += [part for part in respelled if part not in touched]
        if not touched and listed == text:
            return UnitResult("done")
        edit = Edit(unit.key, listed, checksum(before), tuple(touched), stage="link", unit=unit.key)
        refused = unwritten(writer.write(edit))
        if refused is not None:
            return refused
        self._remember(ctx, unit.key)
        return UnitResult("done", _said(len(changed), SEE_ALSO in touched))

    def _current(self, ctx: StageContext) -> _Wiki:
        run_id, wiki = self._wiki
        return wiki if run_id == ctx.run_id else self._list(ctx)

    def _list(self, ctx: StageContext) -> _Wiki:
        read = {stem: self._reading(stem, text) for stem, text in read_articles(ctx.vault).items()}
        self._read = read
        return _wiki(read, subjects.articles_named(ctx.ledger))

    def _reading(self, stem: str, text: str) -> _Read:
        sha = checksum(text)
        known = self._read.get(stem)
        return known if known is not None and known.text == sha else _reading(sha, stem, text)

    def _remember(self, ctx: StageContext, stem: str) -> None:
        """Read what was written (NORMALIZE's form), so the next night finds its bytes
        known; a person's save since reads as new then, as it should."""
        page = read_article(ctx.vault, stem)
        if not isinstance(page, UnitResult):
            self._read[stem] = self._reading(stem, page[1])


class _Wiki(NamedTuple):
    targets: Sequence[Target]
    """Every article's names."""
    names: Names
    """The same, keyed for linking."""
    near: dict[str, tuple[str, ...]]
    """Each article's neighbours by the conversations they share, links and subjects."""
    known: KnownArticles
    """Every article, redirects included: what a link is spelled against."""
    aliases: dict[str, str]
    """An alias's key → the one article it names, where it is no article's title."""


class _Read(NamedTuple):
    """What LINK needs of one article, read from its bytes."""

    text: str
    """The checksum of the text read."""
    said: str
    """The checksum of the text as LINK leaves it alone (links as words, no See also)."""
    target: Target | None
    """Its names; None for a redirect, which is never linked to nor from."""
    cites: frozenset[str]
    """The conversations its footnotes cite."""
    links: frozenset[str]
    """The keys its prose links to (See also left out: a list copied from list to list
    would grow a hop a night)."""


def _reading(sha: str, stem: str, text: str) -> _Read:
    article = parse(text)
    if is_redirect(article):
        return _Read(sha, checksum(_unlinked(text)), None, frozenset(), frozenset())
    prose = [article.lead, *(s.body for s in article.sections if tail_rank(s) == 0)]
    return _Read(
        sha,
        checksum(_unlinked(text)),
        _target(stem, article),
        frozenset(f.hash for f in footnote_defs(article)),
        frozenset(heading_key(x.target) for block in prose for x in wikilinks(block)),
    )


def _wiki(read: dict[str, _Read], named_in: dict[str, frozenset[str]]) -> _Wiki:
    targets = [r.target for r in read.values() if r.target is not None]
    cites = {stem: r.cites for stem, r in read.items() if r.target is not None}
    owner = {heading_key(n): t.stem for t in targets for n in (t.stem, *t.names)}
    linked_from: dict[str, set[str]] = {}
    for stem, r in read.items():
        for key in r.links:
            found = owner.get(key)
            if found is not None and found != stem:
                linked_from.setdefault(found, set()).add(stem)
    by = {stem: frozenset(s) for stem, s in linked_from.items()}
    known = KnownArticles(read)
    named: dict[str, set[str]] = {}
    for t in targets:
        for alias in t.names[1:]:
            named.setdefault(heading_key(alias), set()).add(t.stem)
    # An alias two articles share, or one that is also a title, names no one file.
    aliases = {
        key: nfc(stem)
        for key, stems in named.items()
        if key and len(stems) == 1 and not known.resolves(key)
        for stem in stems
        if linkable(stem)
    }
    return _Wiki(targets, names_of(targets), neighbours(cites, by, named_in), known, aliases)


def _respelled(text: str, wiki: _Wiki, stem: str) -> tuple[str, list[str]]:
    """`text` with every link naming its article's file, and the parts whose links an
    alias named. Obsidian opens a note by its file name alone: `[[Claude Code]]` (as
    earlier nights wrote links to `Claude_Code.md`) and `[[the agent]]` (an alias of
    ours) open none. Respelled as NORMALIZE spells links, the words kept; a part whose
    link named an alias names another key now, so it is named as changed."""
    article = parse(text)
    out = canonical_links(article, wiki.known.index(stem, wiki.aliases))
    if out is article:
        return text, []
    parts = [LEAD] if (out.lead, out.banner) != (article.lead, article.banner) else []
    parts += [a.heading for a, b in zip(article.sections, out.sections, strict=True) if a != b]
    return render(out), parts


def _unlinked(text: str) -> str:
    """`text` as LINK leaves it alone: every link as its words, the See also list gone."""
    if extract_section(text, SEE_ALSO) is not None:
        text = replace_section(text, SEE_ALSO, "")
    return unlinked(text)


def _said(sections: int, listed: bool) -> str:
    parts = [f"{sections} sections linked"] if sections else []
    return ", ".join([*parts, "See also added"] if listed else parts)


def _target(stem: str, article: Article) -> Target:
    """The names an article answers to: its title and infobox aliases."""
    return Target(stem, (article.title or title_for_stem(stem), *aliases(article)))
