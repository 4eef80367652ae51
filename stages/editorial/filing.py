"""EDITORIAL's categories: an article is filed under the categories of
`Meta/Category_Definitions.md` the model says it belongs in, one constrained yes/no a
category over its title and lead, asked only of a category whose name or definition
shares a word with the title or lead (code proposes, the model judges). A category
the article has, a person's included, is not asked about again.
"""

from __future__ import annotations

from collections.abc import Callable

from dreaming.article import parse, title_for_stem
from dreaming.article.filing import with_categories
from dreaming.article.queries import categories, is_redirect
from dreaming.article.titles import heading_key
from dreaming.article.words import stems
from dreaming.model import Choice, ModelCallError, TextModel
from dreaming.vault import Vault, checksum
from stages.prompts import editorial as prompt
from stages.runner.contract import UnitResult, read_article, stuck, unwritten
from stages.runner.write import Edit, Writer

PREFIX = "category/"
YES_NO = Choice(("yes", "no"))


def file(
    vault: Vault,
    writer: Writer,
    model: Callable[[], TextModel],
    stem: str,
    defined: list[tuple[str, str]],
) -> UnitResult:
    page = read_article(vault, stem)
    if isinstance(page, UnitResult):
        return page
    before, text = page
    if (waits := stuck(writer, stem, before, text)) is not None:
        return waits
    article = parse(text)
    if is_redirect(article):
        return UnitResult("done")
    title = article.title or title_for_stem(stem)
    have = {heading_key(c) for c in categories(article)}
    said = stems(f"{title} {article.lead}")
    chosen: list[str] = []
    try:
        for name, what in defined:
            # Code proposes, the model judges: asked of every category, the small model
            # said yes to all of them (Beads filed under "Web standards"). Only a
            # category whose words the title or lead share is asked about.
            if heading_key(name) in have or not said & stems(f"{name} {what}"):
                continue
            question = prompt.belongs(title, article.lead, name, what)
            answer = model().complete(
                "editorial", prompt.SYSTEM, question, unit=stem, constraint=YES_NO
            )
            if answer.text.strip() == "yes":
                chosen.append(name)
    except ModelCallError as e:
        return UnitResult("failed", str(e))
    filed, where = with_categories(text, chosen)
    if filed == text:
        return UnitResult("done", None if chosen else "no category fits")
    edit = Edit(stem, filed, checksum(before), (where,), stage="editorial", unit=f"{PREFIX}{stem}")
    refused = unwritten(writer.write(edit))
    if refused is not None:
        return refused
    return UnitResult("done", "filed under " + ", ".join(chosen))
