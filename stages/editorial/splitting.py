"""EDITORIAL's splits: a section that outgrew its article (`Meta/Summary_Style.md`'s
```split rule) moves into an article of its own named after it, and the parent keeps a
one-sentence summary under `*Main article: [[Child]]*` (dreaming.article.split). Code
only: every word and citation moves, none is written anew.

The child is written first, then the parent (the only edit allowed to shrink a section
below the word floor, because its words stand in the child): killed in between, the
next night finds the child as it would write it and finishes the parent. The parent may
lose the section's code too: it stands in the child. A child whose
name is taken, or an article the person edited since dreaming last wrote it, gets the
split proposed on its Talk page instead of made.
"""

from __future__ import annotations

from dreaming.article import Part, normalize, parse, stem_for_title, title_for_stem
from dreaming.article.document import infobox_malformed
from dreaming.article.linking import page_link
from dreaming.article.markup import unlinked
from dreaming.article.queries import is_redirect
from dreaming.article.split import SplitRule, outgrown, split
from dreaming.article.titles import heading_key
from dreaming.errors import RefusedFileError
from dreaming.vault import Vault, checksum
from dreaming.vault.files import read_page
from dreaming.vault.repo import VaultRepo
from stages.editorial.merge import talk_page
from stages.runner.contract import UnitResult, read_article, stuck, unwritten
from stages.runner.write import Edit, Writer
from stages.synthesize.update_text import heading_from

PREFIX = "split/"


def split_unit(vault: Vault, writer: Writer, stem: str, rule: SplitRule) -> UnitResult:
    page = read_article(vault, stem)
    if isinstance(page, UnitResult):
        return page
    before, text = page
    if (waits := stuck(writer, stem, before, text)) is not None:
        return waits
    article = parse(text)
    if is_redirect(article) or infobox_malformed(article):
        return UnitResult("done")
    section = outgrown(article, rule)
    if section is None:
        return UnitResult("done", "no section outgrew the article")
    parent = article.title or title_for_stem(stem)
    child = section.heading
    child_stem = stem_for_title(child)
    made = split(article, section, child, heading_from)
    child_path = vault.articles / f"{child_stem}.md"
    try:
        there = read_page(vault, child_path, what="an article")
    except RefusedFileError as e:
        return UnitResult("failed", str(e))
    repo = VaultRepo(vault.root)
    # A night killed after writing the child finds it as it would write it: not taken.
    taken = there is not None and not (
        repo.last_ours(child_path, there[0]) and there[1] == normalize(made.child, stem=child_stem)
    )
    if taken or not repo.last_ours(vault.articles / f"{stem}.md", before):
        why = (
            f"{page_link(child_stem, child)} is taken"
            if taken
            else "you edited the article since our last write"
        )
        return _propose(vault, writer, stem, parent, child, why, taken)
    if there is None:
        refused = unwritten(writer.write(Edit(child_stem, made.child, None, (), "editorial", stem)))
        if refused is not None:
            return refused
    edit = Edit(
        stem,
        made.parent,
        checksum(before),
        (section.heading, Part.CODE),  # the section's code stands in the child now
        "editorial",
        f"{PREFIX}{stem}",
        allow_dropped=made.dropped,
        word_floor=0.0,
    )
    refused = unwritten(writer.write(edit))
    if refused is not None:
        return refused
    return UnitResult("done", f"{child} split out of {parent}")


def _propose(
    vault: Vault, writer: Writer, stem: str, parent: str, child: str, why: str, taken: bool
) -> UnitResult:
    rel = f"Talk/{stem}.md"
    try:
        page = read_page(vault, vault.root / rel, what="a Talk page")
    except RefusedFileError as e:
        return UnitResult("failed", str(e))
    heading = f"## Split {child} out of {page_link(stem, parent)}?"
    # Before links named the article's path the heading read `[[Parent]]`: the same one.
    if page is not None and heading_key(unlinked(heading)) in _headings(page[1]):
        return UnitResult("done", "proposed already")
    # A link to an article that is not there yet would be one to no note: Obsidian would
    # make an empty one at the vault's top on a click.
    named = page_link(stem_for_title(child), child) if taken else f"*{child}*"
    proposal = (
        f"{heading}\n\nThe section {child} holds most of this article: by "
        f"`Meta/Summary_Style.md` it would become its own article, {named}, with a "
        f"summary here under `*Main article: [[{child}]]*`. Not done by dreaming because "
        f"{why}. Split it yourself, or rename the section and the next night splits it.\n"
    )
    text = talk_page(None if page is None else page[1], stem, proposal)
    base = None if page is None else checksum(page[0])
    refused = unwritten(writer.write(Edit(rel, text, base, stage="editorial", unit=stem)))
    if refused is not None:
        return refused
    return UnitResult("done", f"split of {child} proposed on Talk: {why}")


def _headings(text: str) -> set[str]:
    """The page's `##` headings as the reader sees them, links read as their words."""
    return {heading_key(unlinked(line)) for line in text.splitlines() if line.startswith("## ")}
