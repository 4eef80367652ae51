"""NORMALIZE: pure, idempotent article normalisation, run inside every write.

normalize(normalize(x)) == normalize(x). Each step either applies completely
or leaves the article as it was (a step whose precondition fails does
nothing; the gate then decides). Steps work on parsed parts, so a part no
step changed keeps its exact bytes, and text inside code fences is never
touched (the infobox is the one fenced block we own and rewrite).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from dreaming.article.document import Article, infobox_malformed, parse, render, tail_rank
from dreaming.article.fences import (
    add_eol,
    code_flags,
    ends_line,
    is_blank,
    line_content,
    line_ending,
    mask_code,
    split_lines,
)
from dreaming.article.gate import check
from dreaming.article.known import KnownArticles
from dreaming.article.layout import close_fences
from dreaming.article.markup import (
    DEFINITION,
    MARKER,
    STUB,
    STUB_RE,
    Definition,
    WikiLink,
    category_name,
    markers,
    parse_footnote,
    table_lines,
    wikilinks,
)
from dreaming.article.queries import article_markers, is_redirect, is_stub, is_thin
from dreaming.article.titles import heading_key, title_for_stem

INFOBOX_FIRST = ("kind", "type", "aliases")
"""Infobox keys that lead, in this order; every other key follows alphabetically."""

_CONTINUATION = re.compile(r"(?: {4}|\t)[ \t]*\S")


def normalize(text: str, *, stem: str, known_stems: KnownArticles | Iterable[str] = ()) -> str:
    """The article in normal form; `stem` is its own file stem, `known_stems` the
    articles its links may be spelled as.

    The normal form passes the gate against `text`, touching nothing: it adds no
    rejection `text` did not already earn as it stands. Where the steps cannot keep
    that promise (markup whose reading the rewrite would change: an info block in the
    lead that a new title would make the infobox), the text is left as it is, and the
    gate decides on that."""
    known = known_stems if isinstance(known_stems, KnownArticles) else KnownArticles(known_stems)
    out = _normal_form(text, stem, known)
    if out == text:
        return out
    verdict = check(text, out, stem=stem, known_stems=known)
    if verdict.ok or set(verdict.codes) <= set(check(text, text, known_stems=known).codes):
        return out
    return text


def _normal_form(text: str, stem: str, known: KnownArticles) -> str:
    # Fences first: an unclosed one would hide every section after it.
    article = parse(close_fences(text))
    index = known.index(stem)
    # Sections are ordered before footnotes are numbered: numbers follow reading order.
    article = fix_title(article, stem)
    article = order_sections(article)
    article = canonical_links(article, index)
    article = sort_infobox(article, index)
    article = renumber_footnotes(article)
    article = mark_stub(article)
    return render(article)


# ---------------------------------------------------------------- title


def fix_title(article: Article, stem: str) -> Article:
    """Title = H1 = stem: the file name is the subject's identity, the H1 follows it."""
    title = title_for_stem(stem)
    return article if article.title == title else replace(article, title=title)


# ---------------------------------------------------------------- sections


def order_sections(article: Article) -> Article:
    """See also, Notes, References close the article in that order; others keep theirs."""
    body = [s for s in article.sections if not tail_rank(s)]
    tails = sorted((s for s in article.sections if tail_rank(s)), key=tail_rank)
    new = (*body, *tails)
    if all(x is y for x, y in zip(new, article.sections, strict=True)):
        return article
    return replace(article, sections=new)


def _with_blocks(article: Article, lead: str, bodies: Sequence[str]) -> Article:
    """Swap in new lead/bodies, touching only the parts that changed."""
    sections = tuple(
        s if s.body == b else replace(s, body=b)
        for s, b in zip(article.sections, bodies, strict=True)
    )
    changed = lead != article.lead or any(
        x is not y for x, y in zip(sections, article.sections, strict=True)
    )
    return replace(article, lead=lead, sections=sections) if changed else article


# ---------------------------------------------------------------- wikilinks


def _canonical_link(
    link: WikiLink, index: Mapping[str, str], keep_surface: bool, in_table: bool, as_title: bool
) -> str | None:
    """The rewritten `[[...]]`, or None to leave the link as written."""
    if link.embed or category_name(link) or "`" in link.target or "/" in link.target:
        return None
    stem = index.get(heading_key(link.target))
    if stem is None:
        return None
    target = title_for_stem(stem) if as_title else stem
    if target == link.target:
        return None
    anchor = f"#{link.anchor}" if link.anchor is not None else ""
    bar = "\\|" if in_table else "|"
    if link.alias is not None:
        alias = f"{bar}{link.alias}"
    elif anchor:
        # Obsidian shows an anchored link as "Page > Heading" without being told.
        alias = ""
    else:
        # Keep what the reader saw: "[[foo bar]]" becomes "[[Foo_Bar|foo bar]]"; a list
        # of links (See also) reads as titles: "[[foo bar]]" becomes "[[Foo_Bar|Foo Bar]]",
        # but a link by another name (an alias) keeps that name.
        shown = link.target.replace("_", " ").strip()
        if not keep_surface and heading_key(shown) == heading_key(stem):
            shown = title_for_stem(stem)
        alias = f"{bar}{shown}" if shown != target else ""
    return f"[[{target}{anchor}{alias}]]"


def relink(
    text: str, index: Mapping[str, str], *, keep_surface: bool = True, as_title: bool = False
) -> str:
    """Point every resolvable wikilink in `text` at its article's file stem, so that
    Obsidian, which finds a note by its file name only, opens it.

    With keep_surface, a link without an alias gets one holding the text the reader
    saw, so prose reads the same; lists of links (See also) get the title. With
    as_title the link names the title instead (`[[Foo Bar]]`): the infobox is a code
    block to Obsidian, text no one follows there, so it is written to read best.
    """
    out, pos = [], 0
    links = wikilinks(text)
    if not links:
        return text
    tables = table_lines(text)
    starts = list(itertools.accumulate(len(line) for line in split_lines(text)))
    for link in links:
        in_table = tables[bisect.bisect_right(starts, link.start)]
        new = _canonical_link(link, index, keep_surface, in_table, as_title)
        if new is not None:
            out += [text[pos : link.start], new]
            pos = link.end
    return "".join(out) + text[pos:] if out else text


def canonical_links(article: Article, index: Mapping[str, str]) -> Article:
    """Links point at their articles' file stems, as the files spell them."""
    lead = relink(article.lead, index)
    bodies = [relink(s.body, index, keep_surface=tail_rank(s) != 1) for s in article.sections]
    article = _with_blocks(article, lead, bodies)
    if article.banner is not None:
        banner = index.get(heading_key(article.banner), article.banner)
        if banner != article.banner:
            article = replace(article, banner=banner)
    return article


# ---------------------------------------------------------------- infobox


def _infobox_order(item: tuple[int, tuple[str, str]]) -> tuple[int, str, int]:
    position, (key, _) = item
    first = INFOBOX_FIRST.index(key) if key in INFOBOX_FIRST else len(INFOBOX_FIRST)
    return first, key.casefold() if first == len(INFOBOX_FIRST) else "", position


def sort_infobox(article: Article, index: Mapping[str, str]) -> Article:
    """kind, type, aliases first, the rest alphabetical; entity links canonical.

    Skipped when the block has lines that are not `key: value` (or is never
    closed): re-rendering it would drop those lines.
    """
    if article.infobox is None or infobox_malformed(article):
        return article
    ordered = sorted(enumerate(article.infobox), key=_infobox_order)
    fields = tuple(
        (k, relink(v, index, keep_surface=False, as_title=True)) for _, (k, v) in ordered
    )
    return article if fields == article.infobox else replace(article, infobox=fields)


# ---------------------------------------------------------------- footnotes


@dataclass(frozen=True)
class _Def:
    block: int
    line: int
    end: int
    """Lines [line, end) of its block: the definition and its indented continuation
    paragraphs (CommonMark: blank lines may separate them)."""
    label: str
    key: tuple[str, ...]


def _def_key(d: Definition, continuation: Sequence[str]) -> tuple[str, ...]:
    """Two definitions with one key are one citation: they say the same thing.

    Same conversation, date and source with another description stay two
    citations; merging them would delete what the second one says.
    """
    f = parse_footnote(Definition("1", d.text))
    head = ("conv", f.hash, f.date, f.source, " ".join(f.desc.split())) if f else ("text", d.text)
    return (*head, *(" ".join(line.split()) for line in continuation if line.strip()))


def _continuation_end(lines: Sequence[str], flags: Sequence[bool], start: int) -> int:
    """The line after a definition's continuation: indented lines, blank lines between them."""
    end = k = start
    while k < len(lines) and not flags[k]:
        if _CONTINUATION.match(lines[k]):
            end = k = k + 1
        elif is_blank(lines[k]):
            k += 1
        else:
            break
    return end


def _find_defs(index: int, text: str) -> list[_Def]:
    lines = split_lines(text)
    flags = code_flags(lines)
    masked = split_lines(mask_code(text))
    found = []
    for i, line in enumerate(masked):
        m = DEFINITION.match(line)
        if flags[i] or m is None:
            continue
        end = _continuation_end(lines, flags, i + 1)
        first = Definition(m.group(1), line_content(lines[i])[m.end() :].strip())
        found.append(_Def(index, i, end, m.group(1), _def_key(first, lines[i + 1 : end])))
    return found


def _relabel_line(line: str, masked: str, mapping: dict[str, str], is_def: bool) -> str:
    """Rename marker labels (and the definition label) on one line, code spans untouched."""
    out, pos = [], 0
    if is_def and (m := DEFINITION.match(masked)) and m.group(1) in mapping:
        out += [line[: m.start(1)], mapping[m.group(1)]]
        pos = m.end(1)
    for mk in MARKER.finditer(masked, pos):
        if mk.group(1) in mapping:
            out += [line[pos : mk.start(1)], mapping[mk.group(1)]]
            pos = mk.end(1)
    return "".join(out) + line[pos:]


def renumber_footnotes(article: Article) -> Article:
    """Markers 1..n by first citation; identical definitions merged; orphans kept, last.

    Markers are relabelled wherever they are read as citations: infobox
    values, the lead, headings and bodies. Skipped when a marker has no
    definition, one label has two different definitions, or a marker sits in
    an infobox that cannot be rewritten: renumbering then could silently
    point a claim at the wrong source. The gate rejects such an article instead.
    """
    boxed = any(markers(v) for _, v in article.infobox or ())
    if boxed and infobox_malformed(article):
        return article
    texts = [article.lead, *(s.body for s in article.sections)]
    defs = [d for i, t in enumerate(texts) for d in _find_defs(i, t)]
    defined: dict[str, set[tuple[str, ...]]] = {}
    for d in defs:
        defined.setdefault(d.label, set()).add(d.key)
    cited = list(dict.fromkeys(article_markers(article)))
    if not defs or any(lb not in defined for lb in cited):
        return article
    if any(len(keys) > 1 for keys in defined.values()):
        return article
    number: dict[tuple[str, ...], int] = {}
    for label in cited:
        number.setdefault(next(iter(defined[label])), len(number) + 1)
    for d in defs:
        number.setdefault(d.key, len(number) + 1)
    mapping = {label: str(number[next(iter(keys))]) for label, keys in defined.items()}
    first: dict[tuple[str, ...], _Def] = {}
    for d in defs:
        first.setdefault(d.key, d)
    refs = next((i + 1 for i, s in enumerate(article.sections) if tail_rank(s) == 3), None)
    new_texts = [
        _rewrite_block(text, [d for d in defs if d.block == i], first, number, mapping, i == refs)
        for i, text in enumerate(texts)
    ]
    article = _with_blocks(article, new_texts[0], new_texts[1:])
    return _relabel_one_liners(article, mapping)


def _relabel(text: str, mapping: dict[str, str]) -> str:
    return _relabel_line(text, mask_code(text), mapping, False)


def _relabel_one_liners(article: Article, mapping: dict[str, str]) -> Article:
    """Relabel markers in infobox values and section headings (one line each)."""
    sections = tuple(
        s if (h := _relabel(s.heading, mapping)) == s.heading else replace(s, heading=h)
        for s in article.sections
    )
    if any(x is not y for x, y in zip(sections, article.sections, strict=True)):
        article = replace(article, sections=sections)
    if article.infobox is not None:
        box = tuple((k, _relabel(v, mapping)) for k, v in article.infobox)
        if box != article.infobox:
            article = replace(article, infobox=box)
    return article


def _rewrite_block(
    text: str,
    defs: Sequence[_Def],
    first: dict[tuple[str, ...], _Def],
    number: dict[tuple[str, ...], int],
    mapping: dict[str, str],
    is_references: bool,
) -> str:
    lines = split_lines(text)
    if not lines:
        return text
    masked = split_lines(mask_code(text))
    flags = code_flags(lines)
    eol = line_ending(lines[0]) or "\n"
    at = {d.line: d for d in defs}
    units: dict[int, str] = {}
    out: list[str | int] = []
    j = 0
    while j < len(lines):
        d = at.get(j)
        if d is None:
            relabel = not flags[j]
            out.append(_relabel_line(lines[j], masked[j], mapping, False) if relabel else lines[j])
            j += 1
            continue
        if first[d.key] is d:
            unit = [_relabel_line(lines[k], masked[k], mapping, k == j) for k in range(j, d.end)]
            body = "".join(unit)
            units[number[d.key]] = body if ends_line(body) else add_eol(body, eol)
            out.append(number[d.key])
        j = d.end
    if is_references:
        # References lists its definitions by number, in the slots they had.
        order = iter(sorted(x for x in out if isinstance(x, int)))
        out = [next(order) if isinstance(x, int) else x for x in out]
    joined = "".join(x if isinstance(x, str) else units[x] for x in out)
    if not ends_line(text) and ends_line(joined):
        joined = joined[: -len(line_ending(joined))]
    return joined


# ---------------------------------------------------------------- stub


def _drop_stub(text: str) -> str:
    lines = split_lines(text)
    flags = code_flags(lines)
    masked = split_lines(mask_code(text))
    out: list[str] = []
    for j, line in enumerate(lines):
        if flags[j] or "{{" not in masked[j]:
            out.append(line)
        elif STUB_RE.fullmatch(line_content(masked[j]).strip(" \t")):
            nxt_blank = j + 1 >= len(lines) or not lines[j + 1].strip()
            if out and not out[-1].strip() and nxt_blank:
                out.pop()
        else:
            spans = [(m.start(), m.end()) for m in STUB_RE.finditer(masked[j])]
            for a, b in reversed(spans):
                # The spaces before an inline stub go with it.
                a = len(line[:a].rstrip(" \t"))
                line = line[:a] + line[b:]
            out.append(line)
    return "".join(out)


def mark_stub(article: Article) -> Article:
    """{{stub}} ends the lead of a thin article and leaves one that has grown."""
    if is_redirect(article):
        return article
    thin, marked = is_thin(article), is_stub(article)
    if thin and not marked:
        eol = article.eol
        lead = f"{article.lead}{eol}{eol}{STUB}" if article.lead.strip() else STUB
        return replace(article, lead=lead)
    if marked and not thin:
        return _with_blocks(
            article, _drop_stub(article.lead), [_drop_stub(s.body) for s in article.sections]
        )
    return article
