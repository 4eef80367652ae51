"""Section surgery on article text: find, extract, replace, add; and the table of contents.

These work on the text, not on a parsed Article, so that an edit to one
section leaves every other byte of a person's file as it was. A section is
addressed by its heading (compared like titles: case and spacing ignored);
LEAD addresses the lead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dreaming.article.document import LEAD, Article, Section, parse, render, tail_rank
from dreaming.article.fences import (
    detect_eol,
    fence_blocks,
    is_blank,
    line_content,
    mask_code,
    repair_fences,
    split_lines,
)
from dreaming.article.layout import (
    BOM,
    clean_block,
    close_fences,
    layout,
    split_block,
    split_frontmatter,
)
from dreaming.article.markup import atx_heading
from dreaming.article.titles import heading_key
from dreaming.errors import DreamingError


class SectionNotFoundError(DreamingError, LookupError):
    """replace_section was asked for a heading the article does not have."""


@dataclass(frozen=True)
class _Span:
    start: int
    body_start: int | None
    content_end: int
    end: int
    level: int


def _locate(text: str, heading: str) -> _Span | None:
    lay = layout(text)
    key = heading_key(heading)
    found = [h for h in lay.headings if h[0] != lay.title_line and heading_key(h[2]) == key]
    if not found:
        return None
    line, level, _ = min(found, key=lambda h: (h[1] if h[1] >= 2 else 7, h[0]))
    # A second H1 is a section like a `##` one: the next `#`/`##` ends it.
    nxt = [i for i, lv, _ in lay.headings if i > line and lv <= max(level, 2)]
    stop = nxt[0] if nxt else len(lay.lines)
    offsets = [0]
    for ln in lay.lines:
        offsets.append(offsets[-1] + len(ln))
    pre, body, _ = split_block(lay.lines[line + 1 : stop])
    # A BOM before a first-line heading stays where it is, outside the section.
    start = offsets[line] + (line == 0 and text.startswith(BOM))
    if body:
        body_start = offsets[line + 1] + len(pre)
        content_end = body_start + len(body)
    else:
        body_start, content_end = None, start + len(line_content(lay.lines[line]))
    return _Span(start, body_start, content_end, offsets[stop], level)


def section_start(text: str, heading: str) -> int | None:
    """Where a `##` section's heading line starts in `text`; None if it has none."""
    span = _locate(text, heading)
    return None if span is None else span.start


def extract_section(text: str, heading: str) -> str | None:
    """A section's text, heading line included (the lead for LEAD); None if absent."""
    if heading_key(heading) == LEAD:
        return parse(text).lead
    span = _locate(text, heading)
    return None if span is None else text[span.start : span.content_end]


def replace_section(text: str, heading: str, new_section_text: str) -> str:
    """Swap one section (or the lead) for new text; every other byte stays as it was.

    The new text is the whole replacement section. If it does not start with a
    heading of the section's level, the old heading is kept above it. Empty
    text deletes the section. A dangling fence in it is closed first, so it
    cannot swallow the sections after it.
    """
    eol = detect_eol(text)
    new = clean_block(repair_fences(new_section_text), eol)
    if heading_key(heading) == LEAD:
        article = parse(text)
        return render(replace(article, lead=new))
    span = _locate(text, heading)
    if span is None:
        raise SectionNotFoundError(f"no section {heading!r} in the article; cannot replace it")
    if not new:
        return text[: span.start] + text[span.end :]
    first = atx_heading(split_lines(new)[0])
    if first is not None and first[0] == span.level:
        replacement = new
    elif span.body_start is not None:
        replacement = text[span.start : span.body_start] + new
    else:
        replacement = text[span.start : span.content_end] + eol + eol + new
    return text[: span.start] + replacement + text[span.content_end :]


def add_section(text: str, section_text: str) -> str:
    """Insert new `##` section(s) before See also / Notes / References.

    A fence the text leaves open is closed at its end first, where NORMALIZE and the
    gate read it closed: the new section follows that code instead of joining it."""
    new = parse(section_text)
    if new.title is not None or new.lead or new.infobox is not None or not new.sections:
        raise ValueError("section text must start with a '## Heading' line")
    article = parse(close_fences(text))
    fresh = [Section(s.heading, s.level, s.body) for s in new.sections]
    secs = list(article.sections)
    at = next((i for i, s in enumerate(secs) if tail_rank(s)), len(secs))
    return render(replace(article, sections=(*secs[:at], *fresh, *secs[at:])))


def final_block(text: str) -> tuple[str, ...]:
    """The lines (without endings, fences included) of the code block that ends the text;
    () when text follows the last one."""
    lines = split_lines(split_frontmatter(text)[1])
    blocks = fence_blocks(lines)
    if not blocks or not all(is_blank(line) for line in lines[blocks[-1].end :]):
        return ()
    return tuple(line_content(x) for x in lines[blocks[-1].start : blocks[-1].end])


def swallowed_tails(text: str) -> list[str]:
    """`## See also` / `## Notes` / `## References` lines inside a code block that ends the text.

    That is what a fence left open does to the sections after it once
    NORMALIZE closes it at the end: they read as code, not as sections.
    """
    inside = final_block(text)[1:]
    heads = [h for line in inside if (h := atx_heading(line)) is not None and h[0] <= 2]
    return [text for _, text in heads if tail_rank(Section(text))]


def toc(article: Article) -> list[tuple[int, str]]:
    """(level, heading) of every section and subsection, in order."""
    out = []
    for s in article.sections:
        out.append((s.level, s.heading))
        out += [h for line in split_lines(mask_code(s.body)) if (h := atx_heading(line))]
    return out
