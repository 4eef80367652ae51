"""RECONCILE: after SYNTHESIZE, each article's infobox is brought to what its own cited
sentences say, the latest dated statement winning, and a sentence still stating a
superseded position is scoped to when it held, with the trace under `## History`.

Code first: `dreaming.article.fields` proposes each value a sentence states in words a
pattern knows (and only a value copied from it); an article with no proposal is no
unit, and a proposal its infobox already holds asks nothing, so a consistent article
costs no model call. The model judges the rest, one yes/no a proposal over the one
sentence. A unit is keyed on the proposals (sentence words and dates, not footnote
numbers or links, which NORMALIZE and LINK change), the schema, the prompt and the
model: an article LINK or EDITORIAL rewrote is not asked about again. What it cannot
settle (two sources of one date disagreeing; a person's value the newest sentence
contradicts) goes in the run report as unresolved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence

from dreaming.article import parse, title_for_stem
from dreaming.article.cited import cited_sentences
from dreaming.article.document import Article, infobox_malformed
from dreaming.article.fields import STATUS, Proposal, propose
from dreaming.article.history import HISTORY, as_of, trace_line, undated
from dreaming.article.queries import aliases, is_redirect
from dreaming.article.reconcile import settle
from dreaming.article.titles import heading_key
from dreaming.model import Choice, ModelCallError
from dreaming.policy.schemas import SCHEMAS_PAGE, schema_fields
from dreaming.vault import checksum
from dreaming.vault.files import read_articles
from stages.prompts import reconcile as prompt
from stages.runner.contract import (
    StageContext,
    StageName,
    Unit,
    UnitResult,
    unwritten,
    writable_article,
)
from stages.runner.write import Edit

VERSION = "1"
"""Part of every unit's input: a changed rule reconciles every article again."""
YES_NO = Choice(("yes", "no"))
Schemas = Mapping[str, tuple[tuple[str, str], ...]]


class ReconcileStage:
    name: StageName = "reconcile"
    policy: tuple[str, ...] = (SCHEMAS_PAGE,)

    def __init__(self) -> None:
        self._names: tuple[str, dict[str, tuple[str, ...]]] = ("", {})
        """The run whose units were listed, and every article's names then."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        schemas = schema_fields(ctx.policy.text(SCHEMAS_PAGE))
        articles = _boxed(read_articles(ctx.vault))
        names = _names(articles)
        self._names = (ctx.run_id, names)
        for stem, article in articles.items():
            fields = _fields(article, schemas)
            found = _proposals(stem, article, fields, names)
            if not found:
                continue
            # Words only: the "As of" this stage put before a sentence changed its
            # first letter's case, and that is no new statement.
            # A set: the sentence RECONCILE copied into the lead says nothing new.
            said = sorted(
                {
                    f"{p.field}\x01{p.value}\x01{p.cited.date}\x01"
                    + undated(p.cited.plain).casefold()
                    for p in found
                }
            )
            parts = (VERSION, prompt.VERSION, ctx.settings.model, repr(fields), *said)
            digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
            yield Unit(stem, digest, f"reconcile {title_for_stem(stem)}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        page = writable_article(ctx, unit.key)
        if isinstance(page, UnitResult):
            return page
        writer, before, text = page
        article = parse(text)
        if is_redirect(article) or article.infobox is None or infobox_malformed(article):
            return UnitResult("done")
        fields = _fields(article, schema_fields(ctx.policy.text(SCHEMAS_PAGE)))
        run_id, names = self._names
        if run_id != ctx.run_id:
            names = _names(_boxed(read_articles(ctx.vault)))
        found = _proposals(unit.key, article, fields, names)
        try:
            judged = _judged(ctx, unit.key, _title(unit.key, article), article, found)
        except ModelCallError as e:
            return UnitResult("failed", str(e))
        derivable: dict[str, set[str]] = {name: set() for name, _ in fields}
        for p in found:
            derivable[p.field].add(p.value)
        settled = settle(article, fields, judged, derivable)
        unresolved = settled.unresolved
        if settled.text == text:
            return UnitResult("done", None, unresolved=unresolved)
        edit = Edit(
            unit.key, settled.text, checksum(before), settled.touched, "reconcile", unit.key
        )
        refused = unwritten(writer.write(edit))
        if refused is not None:
            return refused
        return UnitResult("done", "; ".join(settled.changed), unresolved=unresolved)


def _judged(
    ctx: StageContext, stem: str, title: str, article: Article, found: Sequence[Proposal]
) -> list[Proposal]:
    """The proposals the sentence states: one the article already holds (in its infobox,
    or in its History trace, its sentence dated or in the past tense) without asking,
    every other one asked once (the same value of the same sentence is one question)."""
    box = dict(article.infobox or ())
    history = article.section(HISTORY)
    traced = history.body if history is not None else ""
    answers: dict[tuple[str, str, str], bool] = {}
    out: list[Proposal] = []
    for p in found:
        standing = {heading_key(v) for v in box.get(p.field, "").split(",") if v.strip()}
        key = (p.field, p.value, p.cited.plain)
        kept = p.field == STATUS and as_of(p.cited.sentence, p.cited.date) == p.cited.sentence
        if heading_key(p.value) in standing or (kept and _traced(traced, p)):
            answers[key] = True
        if key not in answers:
            question = prompt.states(title, p.cited.plain, p.field, p.value)
            answer = ctx.model().complete(
                "reconcile", prompt.SYSTEM, question, unit=stem, constraint=YES_NO
            )
            answers[key] = answer.text.strip() == "yes"
        if answers[key]:
            out.append(p)
    return out


def _traced(history: str, p: Proposal) -> bool:
    """Whether the History trace holds this position at this proposal's month."""
    line = trace_line(p.cited.date, p.value, ())
    return any(x.strip().startswith(line) for x in history.splitlines())


def _boxed(texts: Mapping[str, str]) -> dict[str, Article]:
    """The articles RECONCILE can work on: no redirect, an infobox that parses."""
    parsed = {stem: parse(text) for stem, text in texts.items()}
    return {
        stem: a
        for stem, a in parsed.items()
        if not is_redirect(a) and a.infobox is not None and not infobox_malformed(a)
    }


def _names(articles: Mapping[str, Article]) -> dict[str, tuple[str, ...]]:
    """Each article's title → the names it answers to (title first)."""
    return {stem: (_title(stem, a), *aliases(a)) for stem, a in articles.items()}


def _title(stem: str, article: Article) -> str:
    return article.title or title_for_stem(stem)


def _fields(article: Article, schemas: Schemas) -> tuple[tuple[str, str], ...]:
    kind = dict(article.infobox or ()).get("kind", "").strip()
    return schemas.get(kind, ())


def _proposals(
    stem: str,
    article: Article,
    fields: Sequence[tuple[str, str]],
    names: Mapping[str, tuple[str, ...]],
) -> list[Proposal]:
    if not fields:
        return []
    own = names.get(stem) or (_title(stem, article), *aliases(article))
    others = {n[0]: n[1:] for s, n in names.items() if s != stem}
    return propose(cited_sentences(article), own, fields, others)
