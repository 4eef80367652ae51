"""EDITORIAL: the readability pass after LINK. Three duties so far, one unit kind each:

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
  the Talk page).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from dreaming.article import parse, title_for_stem
from dreaming.article.overlap import Pair
from dreaming.article.split import outgrown
from dreaming.policy.categories import CATEGORIES_PAGE, defined_categories
from dreaming.policy.summary import SUMMARY_PAGE, split_rule
from dreaming.vault import checksum
from dreaming.vault.files import read_articles
from stages.editorial import filing, merge, splitting
from stages.prompts import editorial as prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult

VERSION = "1"
"""Part of every merge unit's input: a changed rule proposes again."""


class EditorialStage:
    name: StageName = "editorial"
    policy: tuple[str, ...] = (CATEGORIES_PAGE, SUMMARY_PAGE)

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
        defined = defined_categories(ctx.policy.text(CATEGORIES_PAGE))
        if not defined:
            return
        asked = "\x01".join(f"{n}\x02{w}" for n, w in defined)
        for stem in drafts:
            parts = (prompt.VERSION, ctx.settings.model, asked, checksum(texts[stem]))
            digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
            yield Unit(f"{filing.PREFIX}{stem}", digest, f"categories of {title_for_stem(stem)}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if ctx.writer is None:
            return UnitResult("failed", "a dry run writes nothing")
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
