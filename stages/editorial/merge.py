"""EDITORIAL's merge proposals: two articles that are probably one subject under two
names (`dreaming.article.overlap`) get a proposal on the Talk page of the one to
keep. Code only, and never a merge: which name stays, what the redirect says and
what the person meant are theirs to decide.

A proposal already on either article's Talk page (the person's copy of it included)
is not written twice; a person's own text on the Talk page stays, the proposal goes
below it.
"""

from __future__ import annotations

from dreaming.article import title_for_stem
from dreaming.article.document import REFERENCES, SEE_ALSO, Article
from dreaming.article.fences import detect_eol, repair_fences
from dreaming.article.linking import page_link, wikilink
from dreaming.article.markup import MAIN_LINE, unlinked, wikilinks
from dreaming.article.overlap import Draft, Pair, near_duplicates
from dreaming.article.queries import aliases, footnote_defs, is_redirect
from dreaming.article.titles import heading_key
from dreaming.article.words import words
from dreaming.errors import RefusedFileError
from dreaming.vault import Vault, checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional, read_page
from stages.runner.contract import UnitResult, unwritten
from stages.runner.write import Edit, Writer

PREFIX = "merge/"
_LISTS = {heading_key(SEE_ALSO), heading_key(REFERENCES)}

Drafts = dict[str, Draft]


def drafts(articles: dict[str, Article]) -> Drafts:
    """What the comparison needs of every article that is no redirect, by stem."""
    out: Drafts = {}
    for stem, article in articles.items():
        if not is_redirect(article):
            out[stem] = _draft(stem, article)
    return out


def pairs(found: Drafts) -> dict[str, Pair]:
    """Each near-duplicate pair by its unit key."""
    return {f"{PREFIX}{p.first}/{p.second}": p for p in near_duplicates(list(found.values()))}


def propose(vault: Vault, writer: Writer, unit: str, pair: Pair, found: Drafts) -> UnitResult:
    keep, fold = _direction(found[pair.first], found[pair.second])
    rel = f"Talk/{keep}.md"
    try:
        page = read_page(vault, vault.root / rel, what="a Talk page")
    except RefusedFileError as e:
        return UnitResult("failed", str(e))
    if _proposed(vault, pair):
        return UnitResult("done", "proposed already")
    text = talk_page(None if page is None else page[1], keep, proposal(pair, keep, fold))
    base = None if page is None else checksum(page[0])
    refused = unwritten(writer.write(Edit(rel, text, base, stage="editorial", unit=unit)))
    if refused is not None:
        return refused
    return UnitResult("done", f"merge proposed on {rel}")


def _draft(stem: str, article: Article) -> Draft:
    names = (article.title or title_for_stem(stem), *aliases(article))
    convs = frozenset(f.hash for f in footnote_defs(article))
    body = [s.body for s in article.sections if heading_key(s.heading) not in _LISTS]
    mains = [
        link.target
        for b in body
        for line in b.splitlines()
        if (m := MAIN_LINE.fullmatch(line))
        for link in wikilinks(m.group(1))
    ]
    family = frozenset(
        heading_key(t) for t in (*mains, *([article.banner] if article.banner else []))
    )
    return Draft(stem, names, convs, "\n".join([article.lead, *body]), article.lead, family)


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
    return page_link(stem)


def _proposed(vault: Vault, pair: Pair) -> bool:
    """Whether either article's Talk page holds the pair's proposal already."""
    wanted = heading_key(unlinked(proposal_heading(pair)))
    for stem in (pair.first, pair.second):
        try:
            data = read_optional(
                vault, vault.talk / f"{stem}.md", cap=MAX_PAGE_BYTES, what="a Talk page"
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
            f"`*Redirects to {wikilink(keep, title_for_stem(keep))}.*` in its place.",
            f"- **Why**: {pair.why}; {round(100 * pair.alike)} % of their words in common.",
            f"- **Citations both carry**: {cites}.",
            "",
        ]
    )


def talk_page(old: str | None, keep: str, section: str) -> str:
    """The Talk page with `section` after whatever it held (a new page gets its title)."""
    if old is None or not old.strip():
        return f"# Talk: {title_for_stem(keep)}\n\n{section}"
    # In the page's own line endings, and after a fence it left open (closed, as
    # CommonMark reads it already), or the proposal would read as code.
    eol = detect_eol(old)
    mine = repair_fences(old.rstrip())
    return f"{mine.rstrip()}{eol}{eol}{section.replace(chr(10), eol)}"


def _headings(text: str) -> set[str]:
    # Read as the reader sees them: a proposal made before links named the article's
    # path (`[[Beads]]`, now `[[articles/Beads|Beads]]`) is the same proposal.
    return {heading_key(unlinked(line)) for line in text.splitlines() if line.startswith("## ")}
