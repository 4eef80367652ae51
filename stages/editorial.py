"""EDITORIAL, its first duty: two articles that are probably one subject under two
names get a merge proposal on `Talk/<stem>.md`. Code only, and never a merge: which
name stays, what the redirect says and what the person meant are theirs to decide.

One unit a pair (`dreaming.article.overlap`), keyed on both articles' bytes, so a pair
is proposed once and again only when one of them changed. A proposal already on the
page (the person's copy of it included) is not written twice; a person's own text on
the Talk page stays, the proposal goes below it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from dreaming.article import parse, title_for_stem
from dreaming.article.document import REFERENCES, SEE_ALSO, Article
from dreaming.article.linking import wikilink
from dreaming.article.overlap import Draft, Pair, near_duplicates
from dreaming.article.queries import aliases, footnote_defs, is_redirect
from dreaming.article.titles import heading_key
from dreaming.article.words import words
from dreaming.errors import RefusedFileError
from dreaming.vault import checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_articles, read_optional
from stages.runner.contract import StageContext, StageName, Unit, UnitResult, unwritten
from stages.runner.write import Edit

VERSION = "1"
"""Part of every unit's input: a changed rule proposes again."""


class EditorialStage:
    name: StageName = "editorial"
    policy: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._pairs: tuple[str, dict[str, tuple[Pair, dict[str, Draft]]]] = ("", {})

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        texts = read_articles(ctx.vault)
        pairs = _pairs(texts)
        self._pairs = (ctx.run_id, pairs)
        for key, (pair, _) in pairs.items():
            both = f"{checksum(texts[pair.first])}\x00{checksum(texts[pair.second])}"
            digest = hashlib.sha256(f"{VERSION}\x00{both}".encode()).hexdigest()
            label = f"merge {title_for_stem(pair.first)} and {title_for_stem(pair.second)}?"
            yield Unit(key, digest, label)

    def _current(self, ctx: StageContext) -> dict[str, tuple[Pair, dict[str, Draft]]]:
        run_id, pairs = self._pairs
        return pairs if run_id == ctx.run_id else _pairs(read_articles(ctx.vault))

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if ctx.writer is None:
            return UnitResult("failed", "a dry run writes nothing")
        found = self._current(ctx).get(unit.key)
        if found is None:
            return UnitResult("done", "no longer alike")
        pair, drafts = found
        keep, fold = _direction(drafts[pair.first], drafts[pair.second])
        rel = f"Talk/{keep}.md"
        try:
            before = read_optional(
                ctx.vault, ctx.vault.root / rel, cap=MAX_PAGE_BYTES, what="a Talk page"
            )
            old = None if before is None else before.decode("utf-8")
        except RefusedFileError as e:
            return UnitResult("failed", str(e))
        except UnicodeDecodeError:
            return UnitResult("failed", f"{rel} is not UTF-8 text; save it as UTF-8")
        if _proposed(ctx, pair):
            return UnitResult("done", "proposed already")
        text = talk_page(old, keep, proposal(pair, keep, fold))
        edit = Edit(
            rel,
            text,
            None if before is None else checksum(before),
            stage="editorial",
            unit=unit.key,
        )
        refused = unwritten(ctx.writer.write(edit))
        if refused is not None:
            return refused
        return UnitResult("done", f"merge proposed on {rel}")


def _pairs(texts: dict[str, str]) -> dict[str, tuple[Pair, dict[str, Draft]]]:
    """Each near-duplicate pair by its unit key, with the drafts it was found among."""
    drafts = {
        stem: _draft(stem, article)
        for stem, article in ((s, parse(t)) for s, t in texts.items())
        if not is_redirect(article)
    }
    return {_key(p): (p, drafts) for p in near_duplicates(list(drafts.values()))}


def _key(pair: Pair) -> str:
    return f"merge/{pair.first}/{pair.second}"


def _draft(stem: str, article: Article) -> Draft:
    names = (article.title or title_for_stem(stem), *aliases(article))
    convs = frozenset(f.hash for f in footnote_defs(article))
    body = [s.body for s in article.sections if heading_key(s.heading) not in _LISTS]
    return Draft(stem, names, convs, "\n".join([article.lead, *body]), article.lead)


_LISTS = {heading_key(SEE_ALSO), heading_key(REFERENCES)}


def _direction(a: Draft, b: Draft) -> tuple[str, str]:
    """(the article to keep, the one to fold into it): the longer stays, the first by
    stem on a tie."""
    if len(words(b.text)) > len(words(a.text)):
        return b.stem, a.stem
    return a.stem, b.stem


def proposal_heading(pair: Pair) -> str:
    """The same whichever way the merge goes: a pair is proposed once."""
    return f"## Merge {_link(pair.first)} and {_link(pair.second)}?"


def _link(stem: str) -> str:
    return wikilink(stem, title_for_stem(stem))


def _proposed(ctx: StageContext, pair: Pair) -> bool:
    """Whether either article's Talk page holds the pair's proposal already."""
    wanted = heading_key(proposal_heading(pair))
    for stem in (pair.first, pair.second):
        try:
            data = read_optional(
                ctx.vault, ctx.vault.talk / f"{stem}.md", cap=MAX_PAGE_BYTES, what="a Talk page"
            )
        except RefusedFileError:
            continue
        if data is not None and wanted in _headings(data.decode("utf-8", "replace")):
            return True
    return False


def proposal(pair: Pair, keep: str, fold: str) -> str:
    cites = ", ".join(f"`conv:{c}`" for c in pair.shared) or "none in common"
    return "\n".join(
        [
            proposal_heading(pair),
            "",
            "*Proposed by dreaming, not applied: merge by hand, or delete this proposal.*",
            "",
            f"- **What**: fold {_link(fold)} into {_link(keep)} and leave "
            f"`*Redirects to [[{keep}]].*` in its place.",
            f"- **Why**: {pair.why}; {round(100 * pair.alike)} % of their words in common.",
            f"- **Citations both carry**: {cites}.",
            "",
        ]
    )


def talk_page(old: str | None, keep: str, section: str) -> str:
    """The Talk page with `section` after whatever it held (a new page gets its title)."""
    if old is None or not old.strip():
        return f"# Talk: {title_for_stem(keep)}\n\n{section}"
    return f"{old.rstrip()}\n\n{section}"


def _headings(text: str) -> set[str]:
    return {heading_key(line) for line in text.splitlines() if line.startswith("## ")}
