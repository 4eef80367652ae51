"""EDITORIAL: the readability pass after LINK. Four duties, one unit kind each:

- `merge/A/B`, code only (`merge.py`): a near-duplicate pair gets a merge proposal on
  a Talk page, keyed on both articles' bytes: proposed once, again only when one of
  them changed;
- `category/<stem>` (`filing.py`): an article is asked about each category of
  `Meta/Category_Definitions.md`, keyed on its bytes, the categories, the prompt and
  the model: every article once, then the ones that changed or when the page does.
  No category defined, no unit and no model call;
- `split/<stem>`, code only (`splitting.py`): an article with a section that outgrew it
  by `Meta/Summary_Style.md`'s rule, keyed on its bytes and the rule: the section moves
  into a child article and the parent keeps its summary (or the split is proposed on
  the Talk page);
- `tighten/<stem>` (`tightening.py`): an article's body sentences that repeat an earlier
  one are left out, keyed on its bytes, `Meta/Editorial_Guidelines.md`, the prompt
  and the model. The cadence: every article once, then the ones that changed, those
  touched tonight first and then the least recently edited, so a night whose budget
  runs out leaves the longest-untouched for the next (a rolling sweep).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime

from dreaming.article import parse, title_for_stem
from dreaming.article.overlap import Pair
from dreaming.article.split import outgrown
from dreaming.article.tighten import repeats
from dreaming.ledger import runs
from dreaming.policy.categories import CATEGORIES_PAGE, defined_categories
from dreaming.policy.summary import SUMMARY_PAGE, split_rule
from dreaming.vault import Vault, checksum
from dreaming.vault.files import read_articles
from stages.editorial import filing, merge, splitting, tightening
from stages.prompts import editorial as prompt
from stages.prompts import tighten as tighten_prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult

VERSION = "1"
GUIDELINES_PAGE = "Editorial_Guidelines"
"""Part of every merge unit's input: a changed rule proposes again."""


class EditorialStage:
    name: StageName = "editorial"
    policy: tuple[str, ...] = (CATEGORIES_PAGE, SUMMARY_PAGE, GUIDELINES_PAGE)

    def __init__(self) -> None:
        self._listed: tuple[str, merge.Drafts, dict[str, Pair]] = ("", {}, {})
        """The run whose units were listed, its articles' drafts and pairs then."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        texts = read_articles(ctx.vault)
        parsed = {stem: parse(text) for stem, text in texts.items()}
        drafts = merge.drafts(parsed)
        pairs = merge.pairs(drafts)
        self._listed = (ctx.run_id, drafts, pairs)
        for key, pair in pairs.items():
            both = f"{checksum(texts[pair.first])}\x00{checksum(texts[pair.second])}"
            digest = hashlib.sha256(f"{VERSION}\x00{both}".encode()).hexdigest()
            label = f"merge {title_for_stem(pair.first)} and {title_for_stem(pair.second)}?"
            yield Unit(key, digest, label)
        rule = split_rule(ctx.policy.text(SUMMARY_PAGE))
        for stem in drafts:
            if outgrown(parsed[stem], rule) is not None:
                said = (VERSION, repr(rule), checksum(texts[stem]))
                digest = hashlib.sha256("\x00".join(said).encode()).hexdigest()
                yield Unit(f"{splitting.PREFIX}{stem}", digest, f"split {title_for_stem(stem)}")
        yield from self._tighten_units(ctx, texts, [s for s in drafts if repeats(parsed[s])])
        defined = defined_categories(ctx.policy.text(CATEGORIES_PAGE))
        if not defined:
            return
        asked = "\x01".join(f"{n}\x02{w}" for n, w in defined)
        for stem in drafts:
            parts = (prompt.VERSION, ctx.settings.model, asked, checksum(texts[stem]))
            digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
            yield Unit(f"{filing.PREFIX}{stem}", digest, f"categories of {title_for_stem(stem)}")

    def _tighten_units(
        self, ctx: StageContext, texts: dict[str, str], stems: list[str]
    ) -> Iterator[Unit]:
        guidelines = ctx.policy.page(GUIDELINES_PAGE).checksum
        said = (tightening.VERSION, tighten_prompt.VERSION, ctx.settings.model, guidelines)
        run = runs.get(ctx.ledger, ctx.run_id)
        for stem in _sweep(ctx.vault, stems, run.started_at if run else ""):
            digest = hashlib.sha256("\x00".join((*said, checksum(texts[stem]))).encode())
            yield Unit(
                f"{tightening.PREFIX}{stem}", digest.hexdigest(), f"tighten {title_for_stem(stem)}"
            )

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if ctx.writer is None:
            return UnitResult("failed", "a dry run writes nothing")
        if unit.key.startswith(tightening.PREFIX):
            stem = unit.key.removeprefix(tightening.PREFIX)
            guidelines = ctx.policy.text(GUIDELINES_PAGE)
            return tightening.tighten(ctx, stem, guidelines, ctx.model)
        if unit.key.startswith(splitting.PREFIX):
            rule = split_rule(ctx.policy.text(SUMMARY_PAGE))
            stem = unit.key.removeprefix(splitting.PREFIX)
            return splitting.split_unit(ctx.vault, ctx.writer, stem, rule)
        if unit.key.startswith(filing.PREFIX):
            defined = defined_categories(ctx.policy.text(CATEGORIES_PAGE))
            stem = unit.key.removeprefix(filing.PREFIX)
            return filing.file(ctx.vault, ctx.writer, ctx.model, stem, defined)
        run_id, drafts, pairs = self._listed
        if run_id != ctx.run_id:
            drafts = merge.drafts({s: parse(t) for s, t in read_articles(ctx.vault).items()})
            pairs = merge.pairs(drafts)
        pair = pairs.get(unit.key)
        if pair is None:
            return UnitResult("done", "no longer alike")
        return merge.propose(ctx.vault, ctx.writer, unit.key, pair, drafts)


def _sweep(vault: Vault, stems: list[str], since: str) -> list[str]:
    """The articles in tighten's order: those written since `since` (tonight's run
    started; ISO 8601) first, then the least recently edited; by stem within a time."""
    start = _epoch(since)

    def when(stem: str) -> float:
        try:
            return (vault.articles / f"{stem}.md").stat().st_mtime
        except OSError:
            return 0.0

    times = {stem: when(stem) for stem in stems}
    return sorted(stems, key=lambda s: (times[s] < start, times[s], s))


def _epoch(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")
