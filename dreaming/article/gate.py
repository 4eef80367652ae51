"""The conservative write gate: it can only reject, never rewrite.

Every pipeline write (create, patch, new section, reconcile, link, wikify)
passes NORMALIZE and then `check(before, after)`. A rejection makes the write
a NO-OP, logged with its codes, and the work is retried on the next run, so
weak model output never reaches disk. The gate catches lost citations, broken
footnotes, lost structure, bulk prose loss, changes to parts the edit did not
name, schematic placeholders, links that leave the vault and HTML outside the
allow-list (`htmlcheck`); nuance loss is the judge's job, not this one's.

Rules that would freeze a person's own article are relative to `before`: a
defect that was already there (an orphan footnote, a second See also, a
strange link) is tolerated; only new ones are rejected.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

from dreaming.article.document import LEAD, REFERENCES, SEE_ALSO, Article, parse
from dreaming.article.fences import dangling_fence, mask_code
from dreaming.article.htmlcheck import refused_html
from dreaming.article.keep import Part, changed_parts, code_blocks, definition_key, lost_code
from dreaming.article.known import KnownArticles
from dreaming.article.layout import close_fences, split_frontmatter
from dreaming.article.linkcheck import LinkKind, link_targets, unsafe_link
from dreaming.article.markup import MARKER, category_name, conv_hashes, wikilinks, words
from dreaming.article.queries import article_wikilinks, footnote_balance, prose
from dreaming.article.schematic import leaks
from dreaming.article.sections import extract_section, final_block, swallowed_tails
from dreaming.article.titles import heading_key, title_for_stem

__all__ = ["CODES", "Code", "GateResult", "Part", "Rejection", "check", "unsafe_link"]

Code = Literal[
    "fence_unclosed",
    "h1_lost",
    "title_changed",
    "references_lost",
    "references_missing",
    "see_also_duplicate",
    "citation_lost",
    "footnote_unbalanced",
    "word_floor",
    "part_changed",
    "code_lost",
    "placeholder_leak",
    "path_escape",
    "html_refused",
    "wikilink_unresolved",
]
CODES: tuple[Code, ...] = get_args(Code)
"""Every rejection code, for callers that count or route them."""


@dataclass(frozen=True)
class Rejection:
    code: Code
    detail: str


@dataclass(frozen=True)
class GateResult:
    """The verdict. The gate hands back no text: it cannot change the edit."""

    rejections: tuple[Rejection, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.rejections

    @property
    def codes(self) -> tuple[Code, ...]:
        return tuple(dict.fromkeys(r.code for r in self.rejections))

    def __str__(self) -> str:
        if self.ok:
            return "accepted"
        return "rejected: " + "; ".join(f"{r.code} ({r.detail})" for r in self.rejections)


def check(
    before: str | None,
    after: str,
    *,
    touched: Iterable[str | Part] = (),
    allow_dropped: Iterable[str] = (),
    floor: float = 0.7,
    known_stems: KnownArticles | Iterable[str] | None = None,
    stem: str | None = None,
) -> GateResult:
    """Judge an edit from `before` (None: a new article) to `after`.

    touched: what the edit may change: section headings (LEAD for the lead and
      its banner) and Parts. Each named section that existed must keep `floor` of
      its words and, unless Part.CODE is named, its code blocks; every part not
      named must read the same as before, up to what NORMALIZE rewrites
      (footnote numbers, link spelling, {{stub}}, blank lines, line endings).
    allow_dropped: conv hashes an edit may drop on purpose (a corrected error); such an
      edit may leave a section citing nothing, any other may not.
    known_stems: when given, a new wikilink must resolve to one of them.
    stem: the file's stem; when given, the H1 must be its title.
    """
    if not 0.0 <= floor <= 1.0:
        raise ValueError(f"floor {floor} must be between 0 and 1")
    named = list(touched)
    headings = [t for t in named if isinstance(t, str)]
    parts = {t for t in named if isinstance(t, Part)}
    # A fence `before` left open reads as closed at its end, as NORMALIZE closes it.
    old = parse(close_fences(before)) if before is not None else None
    new = parse(after)
    found: list[Rejection] = []
    found += _structure(old, new, after, stem)
    found += _swallowed(old, before, after)
    dropped = set(allow_dropped)
    found += _citations(old, new, dropped)
    if not dropped:  # a deliberate correction says what it stops citing
        found += _uncited(before, after, headings)
    found += _footnotes(old, new)
    if old is not None and before is not None:
        found += _word_floor(before, after, headings, floor)
        found += [Rejection("part_changed", d) for d in changed_parts(old, new, headings, parts)]
        if Part.CODE not in parts:
            found += [Rejection("code_lost", d) for d in lost_code(old, new)]
    found += [
        Rejection("placeholder_leak", f"{p!r} is a schematic placeholder, not text to copy")
        for p in leaks(before or "", after)
    ]
    found += _links(old, new, before, after, known_stems)
    found += _html(before, after)
    return GateResult(tuple(found))


def _structure(old: Article | None, new: Article, after: str, stem: str | None) -> list[Rejection]:
    out = []
    if (run := dangling_fence(split_frontmatter(after)[1])) is not None:
        out.append(Rejection("fence_unclosed", f"a {run} code fence is never closed"))
    if new.title is None:
        out.append(Rejection("h1_lost", "the '# Title' line is missing"))
    elif stem is not None and heading_key(new.title) != heading_key(title_for_stem(stem)):
        want = title_for_stem(stem)
        out.append(Rejection("title_changed", f"H1 {new.title!r} is not the file's title {want!r}"))
    elif (
        stem is None
        and old is not None
        and old.title is not None
        and heading_key(old.title) != heading_key(new.title)
    ):
        out.append(Rejection("title_changed", f"H1 {old.title!r} became {new.title!r}"))
    had_refs = old is not None and old.section(REFERENCES) is not None
    has_refs = new.section(REFERENCES) is not None
    if had_refs and not has_refs:
        out.append(Rejection("references_lost", "the '## References' section is gone"))
    elif not has_refs and ((balance := footnote_balance(new)).cited or balance.defined):
        out.append(Rejection("references_missing", "footnotes without a '## References' section"))
    see = heading_key(SEE_ALSO)
    n_new = sum(heading_key(s.heading) == see for s in new.sections)
    n_old = sum(heading_key(s.heading) == see for s in old.sections) if old else 0
    if n_new > max(1, n_old):
        out.append(Rejection("see_also_duplicate", f"{n_new} '## See also' sections"))
    return out


def _swallowed(old: Article | None, before: str | None, after: str) -> list[Rejection]:
    """A fence left open, closed by NORMALIZE at the end, has turned a tail section into code."""
    was = set(swallowed_tails(before)) if before is not None else set()
    lost = [h for h in swallowed_tails(after) if h not in was]
    if lost and old is not None and final_block(after) in code_blocks(old):
        return []  # a block that was code already, now last: Notes moved after See also
    return [Rejection("fence_unclosed", f"a code fence left open swallows '## {h}'") for h in lost]


def _hashes(article: Article) -> set[str]:
    return conv_hashes(prose(article))


def _citations(old: Article | None, new: Article, allowed: set[str]) -> list[Rejection]:
    if old is None:
        return []
    lost = sorted(_hashes(old) - _hashes(new) - allowed)
    return [Rejection("citation_lost", f"conv:{h} is no longer cited") for h in lost]


def _uncited(before: str | None, after: str, touched: list[str]) -> list[Rejection]:
    """A body section the edit touched that cited a source and now cites none (the
    audit's "carries no citation": its words no longer say where they come from)."""
    if before is None:
        return []
    out = []
    for heading in dict.fromkeys(touched):
        if heading_key(heading) in (LEAD, heading_key(REFERENCES), heading_key(SEE_ALSO)):
            continue
        was, now = extract_section(before, heading), extract_section(after, heading)
        cited_before = was is not None and MARKER.search(mask_code(was))
        if cited_before and now is not None and not MARKER.search(mask_code(now)):
            out.append(Rejection("citation_lost", f"section {heading!r} no longer cites a source"))
    return out


def _footnotes(old: Article | None, new: Article) -> list[Rejection]:
    balance = footnote_balance(new)
    tolerated = (
        {definition_key(d.text) for d in footnote_balance(old).orphans}
        if old is not None and balance.orphans
        else set()
    )
    out = [
        Rejection("footnote_unbalanced", f"[^{label}] is cited but never defined")
        for label in balance.undefined
    ]
    out += [
        Rejection("footnote_unbalanced", f"[^{label}] is defined {n} times")
        for label, n in balance.repeated.items()
    ]
    out += [
        Rejection("footnote_unbalanced", f"a definition is never cited: {d.text[:60]}")
        for d in balance.orphans
        if definition_key(d.text) not in tolerated
    ]
    return out


def _word_floor(before: str, after: str, touched: list[str], floor: float) -> list[Rejection]:
    # The floor as an exact decimal: 7 of 10 words passes 0.7, float rounding aside.
    share = Fraction(repr(floor))
    out = []
    for heading in dict.fromkeys(touched):
        was = extract_section(before, heading)
        if was is None:
            continue
        now = extract_section(after, heading)
        name = "the lead" if heading_key(heading) == LEAD else repr(heading)
        was_n = words(was)
        if now is None:
            out.append(Rejection("word_floor", f"section {name} is gone"))
        elif was_n and (now_n := words(now)) < share * was_n:
            out.append(Rejection("word_floor", f"{name} kept {now_n} of {was_n} words"))
    return out


def _link_targets(article: Article, text: str) -> set[tuple[LinkKind, str]]:
    """(kind, target) for every link outside code; banner, infobox and properties included."""
    frontmatter, body = split_frontmatter(text)
    found = link_targets(body)
    # Obsidian shows `[[links]]` in properties; nothing else there is a link.
    found |= {("wikilink", link.target) for link in wikilinks(frontmatter)}
    if article.banner:
        found.add(("wikilink", article.banner))
    for _, value in article.infobox or ():
        found |= link_targets(value)
    return found


def _html(before: str | None, after: str) -> list[Rejection]:
    """New HTML outside the allow-list; frontmatter is YAML, never rendered as HTML."""
    now = refused_html(split_frontmatter(after)[1])
    was = refused_html(split_frontmatter(before)[1]) if before is not None else set()
    return [Rejection("html_refused", f"{what} is not allowed") for what in sorted(now - was)]


def _links(
    old: Article | None,
    new: Article,
    before: str | None,
    after: str,
    known_stems: KnownArticles | Iterable[str] | None,
) -> list[Rejection]:
    now = _link_targets(new, after)
    was = _link_targets(old, before) if old is not None and before is not None else set()
    out = []
    for kind, target in sorted(now - was):
        why = unsafe_link(target, kind)
        if why is not None:
            out.append(Rejection("path_escape", f"link target {target!r} has {why}"))
    if known_stems is not None:
        seen = {heading_key(t) for kind, t in was if kind == "wikilink"}
        if new.title:
            seen.add(heading_key(new.title))
        added = [
            link
            for link in article_wikilinks(new)
            if not (link.embed or category_name(link)) and heading_key(link.target) not in seen
        ]
        if isinstance(known_stems, KnownArticles):
            known = known_stems
        else:  # keyed only when needed: most edits add no link
            known = KnownArticles(known_stems if added else ())
        for link in added:
            key = heading_key(link.target)
            if not key or known.resolves(key) or key in seen:
                continue
            seen.add(key)
            out.append(Rejection("wikilink_unresolved", f"[[{link.target}]] names no article"))
    return out
