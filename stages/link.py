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

from dreaming.article import LEAD, parse
from dreaming.article.document import SEE_ALSO, Article, tail_rank
from dreaming.article.linking import Target, link_article
from dreaming.article.markup import unlinked, wikilinks
from dreaming.article.queries import aliases, footnote_defs, is_redirect
from dreaming.article.sections import extract_section, replace_section
from dreaming.article.see_also import neighbours, with_see_also
from dreaming.article.titles import heading_key, title_for_stem
from dreaming.ledger import subjects
from dreaming.vault import checksum
from dreaming.vault.files import read_articles
from stages.runner.contract import (
    StageContext,
    StageName,
    Unit,
    UnitResult,
    unwritten,
    writable_article,
)
from stages.runner.write import Edit

VERSION = "3"
"""Part of every unit's input: a changed rule links every article again."""


class LinkStage:
    name: StageName = "link"
    policy: tuple[str, ...] = ()
    commit_every = 200
    """Units a commit: LINK only wraps words, each unit writes its own article, and one
    commit an article was most of a first night's LINK over a big wiki (40 ms each)."""

    def __init__(self) -> None:
        self._wiki: tuple[str, _Wiki] = ("", _Wiki([], {}))
        """The run whose units were listed, and the articles' names and neighbours then."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        texts = read_articles(ctx.vault)
        wiki = _wiki(texts, subjects.articles_named(ctx.ledger))
        self._wiki = (ctx.run_id, wiki)
        names = hashlib.sha256(
            "\x00".join(f"{t.stem}\x01{'|'.join(t.names)}" for t in wiki.targets).encode("utf-8")
        ).hexdigest()
        for stem, text in texts.items():
            # Keyed on the text as LINK does not change it (links read as their words, no
            # See also): what LINK wrote is no new input the next night, and listing stays
            # a read and a hash an article (a night with nothing new must stay cheap).
            near = "|".join(wiki.near.get(stem, ()))
            said = checksum(_unlinked(text))
            digest = hashlib.sha256(f"{VERSION}\x00{names}\x00{near}\x00{said}".encode())
            yield Unit(stem, digest.hexdigest(), f"link {title_for_stem(stem)}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        found = writable_article(ctx, unit.key)
        if isinstance(found, UnitResult):
            return found
        writer, before, text = found
        if is_redirect(parse(text)):
            return UnitResult("done")
        wiki = self._current(ctx)
        linked, changed = link_article(text, wiki.targets, unit.key)
        listed = with_see_also(linked, wiki.near.get(unit.key, ()))
        touched = [LEAD if heading == "" else heading for heading in changed]
        if listed != linked:
            touched.append(SEE_ALSO)
        if not touched:
            return UnitResult("done")
        edit = Edit(unit.key, listed, checksum(before), tuple(touched), stage="link", unit=unit.key)
        refused = unwritten(writer.write(edit))
        if refused is not None:
            return refused
        return UnitResult("done", _said(len(changed), listed != linked))

    def _current(self, ctx: StageContext) -> _Wiki:
        run_id, wiki = self._wiki
        if run_id == ctx.run_id:
            return wiki
        return _wiki(read_articles(ctx.vault), subjects.articles_named(ctx.ledger))


class _Wiki(NamedTuple):
    targets: Sequence[Target]
    """Every article's names."""
    near: dict[str, tuple[str, ...]]
    """Each article's neighbours by the conversations they share, links and subjects."""


def _wiki(texts: dict[str, str], named_in: dict[str, frozenset[str]]) -> _Wiki:
    parsed = {stem: parse(text) for stem, text in texts.items()}
    kept = {stem: a for stem, a in parsed.items() if not is_redirect(a)}
    targets = [_target(stem, a) for stem, a in kept.items()]
    cites = {stem: frozenset(f.hash for f in footnote_defs(a)) for stem, a in kept.items()}
    return _Wiki(targets, neighbours(cites, _linked_from(kept, targets), named_in))


def _linked_from(kept: dict[str, Article], targets: Sequence[Target]) -> dict[str, frozenset[str]]:
    """Each article → the articles whose prose links to it (their See also left out: a
    list copied from list to list would grow a hop a night)."""
    owner = {heading_key(n): t.stem for t in targets for n in (t.stem, *t.names)}
    found: dict[str, set[str]] = {}
    for stem, article in kept.items():
        prose = [article.lead, *(s.body for s in article.sections if tail_rank(s) == 0)]
        for link in (x for block in prose for x in wikilinks(block)):
            target = owner.get(heading_key(link.target))
            if target is not None and target != stem:
                found.setdefault(target, set()).add(stem)
    return {stem: frozenset(by) for stem, by in found.items()}


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
