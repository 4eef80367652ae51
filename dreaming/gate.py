"""The conservative write gate: it can only reject, never rewrite.

Every pipeline write (create, patch, new section, reconcile, link, wikify)
passes NORMALIZE and then `check(before, after)`. A rejection makes the write
a NO-OP, logged with its codes, and the work is retried on the next run, so
weak model output never reaches disk. The gate catches lost citations, broken
footnotes, lost structure, bulk prose loss and links that leave the vault;
nuance loss is the judge's job, not this one's.

Rules that would freeze a person's own article are relative to `before`: a
defect that was already there (an orphan footnote, a second See also, a
strange link) is tolerated; only new ones are rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from urllib.parse import unquote

from dreaming.article import LEAD, REFERENCES, SEE_ALSO, Article, parse
from dreaming.contents import (
    article_definitions,
    article_markers,
    article_wikilinks,
    prose,
    prose_words,
)
from dreaming.fences import dangling_fence, mask_code
from dreaming.layout import split_frontmatter
from dreaming.markup import category_name, conv_hashes, wikilinks, words
from dreaming.sections import extract_section, swallowed_tails
from dreaming.titles import heading_key, title_for_stem

CODES = (
    "fence_unclosed",
    "h1_lost",
    "title_changed",
    "references_lost",
    "references_missing",
    "see_also_duplicate",
    "citation_lost",
    "footnote_unbalanced",
    "word_floor",
    "path_escape",
    "wikilink_unresolved",
)
"""Every rejection code, for callers that count or route them."""

_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_MD_LINK = re.compile(r"\]\(\s*(<[^>\r\n]*>|[^\s)]+)")
_REF_DEF = re.compile(r"^ {0,3}\[(?!\^)[^\]\r\n]+\]:[ \t]*(<[^>\r\n]*>|\S+)", re.MULTILINE)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_HTML_ATTR = re.compile(r"\b(?:href|src)[ \t]*=[ \t]*[\"']?([^\"'\s>]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Rejection:
    code: str
    """One of CODES."""
    detail: str


@dataclass(frozen=True)
class GateResult:
    """The verdict. The gate hands back no text: it cannot change the edit."""

    rejections: tuple[Rejection, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.rejections

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.code for r in self.rejections))

    def __str__(self) -> str:
        if self.ok:
            return "accepted"
        return "rejected: " + "; ".join(f"{r.code} ({r.detail})" for r in self.rejections)


def check(
    before: str | None,
    after: str,
    *,
    touched: Sequence[str] = (),
    allow_dropped: Iterable[str] = (),
    floor: float = 0.7,
    known_stems: Iterable[str] | None = None,
    stem: str | None = None,
) -> GateResult:
    """Judge an edit from `before` (None: a new article) to `after`.

    touched: headings of the sections the edit rewrote (LEAD for the lead);
      each must keep `floor` of its words. Empty: the whole article's prose must.
    allow_dropped: conv hashes an edit may drop on purpose (a corrected error).
    known_stems: when given, a new wikilink must resolve to one of them.
    stem: the file's stem; when given, the H1 must be its title.
    """
    if not 0.0 <= floor <= 1.0:
        raise ValueError(f"floor {floor} must be between 0 and 1")
    old = parse(before) if before is not None else None
    new = parse(after)
    found: list[Rejection] = []
    found += _structure(old, new, after, stem)
    found += _swallowed(before, after)
    found += _citations(old, new, set(allow_dropped))
    found += _footnotes(old, new)
    if old is not None and before is not None:
        found += _word_floor(before, after, old, new, touched, floor)
    found += _links(old, new, before, after, known_stems)
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
    elif not has_refs and (article_markers(new) or article_definitions(new)):
        out.append(Rejection("references_missing", "footnotes without a '## References' section"))
    see = heading_key(SEE_ALSO)
    n_new = sum(heading_key(s.heading) == see for s in new.sections)
    n_old = sum(heading_key(s.heading) == see for s in old.sections) if old else 0
    if n_new > max(1, n_old):
        out.append(Rejection("see_also_duplicate", f"{n_new} '## See also' sections"))
    return out


def _swallowed(before: str | None, after: str) -> list[Rejection]:
    """A fence left open, closed by NORMALIZE at the end, has turned a tail section into code."""
    was = set(swallowed_tails(before)) if before is not None else set()
    lost = [h for h in swallowed_tails(after) if h not in was]
    return [Rejection("fence_unclosed", f"a code fence left open swallows '## {h}'") for h in lost]


def _hashes(article: Article) -> set[str]:
    return conv_hashes(prose(article))


def _citations(old: Article | None, new: Article, allowed: set[str]) -> list[Rejection]:
    if old is None:
        return []
    lost = sorted(_hashes(old) - _hashes(new) - allowed)
    return [Rejection("citation_lost", f"conv:{h} is no longer cited") for h in lost]


def _orphans(article: Article) -> tuple[dict[str, int], list[str]]:
    """(definition count per label, texts of definitions nothing cites)."""
    cited = set(article_markers(article))
    counts: dict[str, int] = {}
    orphan_texts = []
    for d in article_definitions(article):
        counts[d.label] = counts.get(d.label, 0) + 1
        if d.label not in cited:
            orphan_texts.append(d.text)
    return counts, orphan_texts


def _footnotes(old: Article | None, new: Article) -> list[Rejection]:
    counts, orphans = _orphans(new)
    tolerated = set(_orphans(old)[1]) if old is not None else set()
    out = []
    for label in dict.fromkeys(article_markers(new)):
        if label not in counts:
            out.append(Rejection("footnote_unbalanced", f"[^{label}] is cited but never defined"))
    for label, n in counts.items():
        if n > 1:
            out.append(Rejection("footnote_unbalanced", f"[^{label}] is defined {n} times"))
    for text in orphans:
        if text not in tolerated:
            detail = f"a definition is never cited: {text[:60]}"
            out.append(Rejection("footnote_unbalanced", detail))
    return out


def _word_floor(
    before: str,
    after: str,
    old: Article,
    new: Article,
    touched: Sequence[str],
    floor: float,
) -> list[Rejection]:
    # The floor as an exact decimal: 7 of 10 words passes 0.7, float rounding aside.
    share = Fraction(repr(floor))
    pairs: list[tuple[str, int, int | None]] = []
    if not touched:
        pairs.append(("the article", prose_words(old), prose_words(new)))
    for heading in dict.fromkeys(touched):
        was = extract_section(before, heading)
        if was is None:
            continue
        now = extract_section(after, heading)
        name = "the lead" if heading_key(heading) == LEAD else repr(heading)
        pairs.append((name, words(was), None if now is None else words(now)))
    out = []
    for name, was_n, now_n in pairs:
        if now_n is None:
            out.append(Rejection("word_floor", f"section {name} is gone"))
        elif was_n and now_n < share * was_n:
            out.append(Rejection("word_floor", f"{name} kept {now_n} of {was_n} words"))
    return out


def unsafe_link(target: str, *, wikilink: bool) -> str | None:
    """Why a link target could leave the vault, or None when it is safe."""
    t = target.strip()
    if wikilink:
        if "/" in t or "\\" in t:
            return "a path separator"
        if t in (".", ".."):
            return "a dot segment"
        if re.match(r"^[A-Za-z]:", t):
            return "a drive letter"
        if t.lower().startswith("file:"):
            return "a file: URL"
        return None
    t = unquote(t.strip("<>"))
    if t.startswith("#"):
        return None
    m = _SCHEME.match(t)
    if m:
        scheme = m.group(1).lower()
        if len(scheme) == 1:
            return "a drive letter"
        return None if scheme in _SAFE_SCHEMES else f"a {scheme}: URL"
    if t.startswith(("/", "\\", "~")):
        return "an absolute path"
    if ".." in re.split(r"[\\/]", t):
        return "a '..' segment"
    if "/" in t or "\\" in t:
        return "a path separator"
    return None


def _link_targets(article: Article, text: str) -> set[tuple[bool, str]]:
    """(is wikilink, target) for every link in the article outside code."""
    body = text[len(article.frontmatter or "") :]
    found = {(True, link.target) for link in article_wikilinks(article) + wikilinks(body)}
    masked = mask_code(body)
    infobox = "\n".join(v for _, v in article.infobox or ())
    for scan in (masked, infobox):
        for rx in (_MD_LINK, _REF_DEF, _AUTOLINK, _HTML_ATTR):
            found |= {(False, m.group(1)) for m in rx.finditer(scan)}
    return found


def _links(
    old: Article | None,
    new: Article,
    before: str | None,
    after: str,
    known_stems: Iterable[str] | None,
) -> list[Rejection]:
    now = _link_targets(new, after)
    was = _link_targets(old, before) if old is not None and before is not None else set()
    out = []
    for is_wiki, target in sorted(now - was):
        why = unsafe_link(target, wikilink=is_wiki)
        if why is not None:
            out.append(Rejection("path_escape", f"link target {target!r} has {why}"))
    if known_stems is not None:
        known = {heading_key(title_for_stem(s)) for s in known_stems}
        if new.title:
            known.add(heading_key(new.title))
        known |= {heading_key(t) for w, t in was if w}
        for link in article_wikilinks(new):
            key = heading_key(link.target)
            if link.embed or category_name(link) or not key or key in known:
                continue
            known.add(key)
            out.append(Rejection("wikilink_unresolved", f"[[{link.target}]] names no article"))
    return out
