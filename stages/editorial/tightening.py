"""EDITORIAL's tighten: a body sentence that repeats an earlier one of its article is
left out, its citation kept (dreaming.article.tighten). A sure repeat (no word the
earlier sentence lacks) goes by code; a near one (most of its words) goes only when
the model, given `Meta/Editorial_Guidelines.md`, says it adds nothing, asked both ways
round. Nothing is
reworded, so every number, name, date and code block stays; the write gate checks
the citations. An article the person wrote or edited since dreaming's last write is
left as they wrote it.
"""

from __future__ import annotations

from collections.abc import Callable

from dreaming.article import parse, title_for_stem
from dreaming.article.document import infobox_malformed
from dreaming.article.queries import is_redirect
from dreaming.article.tighten import Repeat, repeats, without
from dreaming.model import Choice, ModelCallError, TextModel
from dreaming.vault import checksum
from dreaming.vault.repo import VaultRepo
from stages.prompts import tighten as prompt
from stages.runner.contract import StageContext, UnitResult, unwritten, writable_article
from stages.runner.write import Edit

PREFIX = "tighten/"
VERSION = "1"
"""Part of every tighten unit's input: a changed rule looks at every article again."""
YES_NO = Choice(("yes", "no"))


def tighten(
    ctx: StageContext, stem: str, guidelines: str, model: Callable[[], TextModel]
) -> UnitResult:
    found = writable_article(ctx, stem)
    if isinstance(found, UnitResult):
        return found
    writer, before, text = found
    article = parse(text)
    if is_redirect(article) or infobox_malformed(article):
        return UnitResult("done")
    if not VaultRepo(ctx.vault.root).last_ours(ctx.vault.articles / f"{stem}.md", before):
        # A person's words are theirs to cut: LINK wraps them, EDITORIAL proposes.
        return UnitResult("done", "yours since our last write: left as you wrote it")
    title = article.title or title_for_stem(stem)
    try:
        dropped = [
            r for r in repeats(article) if r.sure or _adds_nothing(r, title, guidelines, model)
        ]
    except ModelCallError as e:
        return UnitResult("failed", str(e))
    if not dropped:
        return UnitResult("done")
    tightened, changed = without(text, dropped, stem)
    if tightened == text:
        return UnitResult("done")
    edit = Edit(
        stem,
        tightened,
        checksum(before),
        changed,
        stage="editorial",
        unit=f"{PREFIX}{stem}",
        # Only whole sentences an earlier one already says go: the words stand there.
        word_floor=0.0,
    )
    refused = unwritten(writer.write(edit))
    if refused is not None:
        return refused
    n = len(dropped)
    return UnitResult("done", f"{n} repeated sentence{'s' if n != 1 else ''} left out")


def _adds_nothing(r: Repeat, title: str, guidelines: str, model: Callable[[], TextModel]) -> bool:
    """Whether the model says the repeat adds nothing, asked both ways round: "adds
    anything?" no, and "does the earlier say it all?" yes."""
    system = prompt.system(guidelines)

    def ask(question: str) -> str:
        unit = f"{PREFIX}{title}"
        answer = model().complete("editorial", system, question, unit=unit, constraint=YES_NO)
        return answer.text.strip()

    return ask(prompt.adds(title, r.earlier, r.sentence)) == "no" and (
        ask(prompt.covers(title, r.earlier, r.sentence)) == "yes"
    )
