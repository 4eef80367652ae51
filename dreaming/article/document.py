"""The article model: parse ⇄ render with a byte-identical round trip.

`render(parse(text)) == text` for every string. Parsing keeps the exact bytes
of every part (frontmatter, H1, banner, infobox, lead, each section); render
emits those bytes for every part whose value is unchanged and renders only a
changed part canonically, keeping the blank lines around it. That is how a
pipeline edit touches one section and leaves the rest of a person's file
byte-identical. `build` writes a new article in the canonical layout.

The markup inside parts (links, footnotes, templates) is dreaming.article.markup's;
what an article says is dreaming.article.queries'; section surgery on text is
dreaming.article.sections'; grammar checks are dreaming.article.validate's.
docs/article-grammar.md describes the grammar for people.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from dreaming.article.fences import (
    add_eol,
    detect_eol,
    ends_line,
    fence_blocks,
    is_blank,
    line_content,
    line_ending,
    repair_fences,
    split_lines,
)
from dreaming.article.layout import BOM, clean_block, layout, split_block
from dreaming.article.markup import BANNER_LINE, STUB, STUB_RE, Footnote, atx_heading
from dreaming.article.titles import heading_key, title_for_stem

LEAD = ""
"""The heading name that addresses the lead in section functions."""
SEE_ALSO, NOTES, REFERENCES = "See also", "Notes", "References"


# ---------------------------------------------------------------- data model


@dataclass(frozen=True)
class _Raw:
    """The exact source bytes of one part, and what they parsed to."""

    index: int
    """Position among the source's non-empty parts; adjacent parts join verbatim."""
    text: str
    value: object
    pre: str = ""
    """Bytes before the content (kept when only the content changes)."""
    post: str = ""
    """The content's last line ending plus the blank lines after it."""


@dataclass(frozen=True)
class _SectionRaw:
    index: int
    heading_line: str
    heading: str
    level: int
    pre: str
    body: str
    post: str


@dataclass(frozen=True)
class Section:
    """A `#`/`##` section. `body` is its text without the blank lines around it.

    `###` subsections stay inside the body of the `##` section above them.
    """

    heading: str
    level: int = 2
    body: str = ""
    _raw: _SectionRaw | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class _Source:
    frontmatter: _Raw | None
    preamble: _Raw | None
    title: _Raw | None
    banner: _Raw | None
    infobox: _Raw | None
    lead: _Raw | None
    last_index: int
    infobox_closed: bool
    infobox_malformed: tuple[str, ...]
    bom: str = ""
    """A byte-order mark before everything, kept for the round trip."""


_NO_SOURCE = _Source(None, None, None, None, None, None, -1, True, ())


@dataclass(frozen=True)
class Article:
    """An article as parts. Change parts with dataclasses.replace, then render()."""

    title: str | None = None
    lead: str = ""
    sections: tuple[Section, ...] = ()
    infobox: tuple[tuple[str, str], ...] | None = None
    banner: str | None = None
    """Target of `*Part of a series on [[X]].*`."""
    frontmatter: str | None = None
    """Verbatim `---` … `---` block, delimiters and line endings included."""
    preamble: str = ""
    """Whatever stands between the frontmatter and the H1 (normally nothing)."""
    eol: str = "\n"
    """Line ending for canonically rendered parts: the file's own."""
    _source: _Source | None = field(default=None, repr=False, compare=False)

    def section(self, heading: str) -> Section | None:
        """The first section whose heading matches, ignoring case and spacing."""
        key = heading_key(heading)
        return next((s for s in self.sections if heading_key(s.heading) == key), None)


_TAILS = {heading_key(SEE_ALSO): 1, heading_key(NOTES): 2, heading_key(REFERENCES): 3}


def tail_rank(section: Section) -> int:
    """0 for a body section; 1, 2, 3 for See also, Notes, References (their required order)."""
    return _TAILS.get(heading_key(section.heading), 0)


# ---------------------------------------------------------------- parse


def _infobox_fields(lines: Sequence[str]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    fields: list[tuple[str, str]] = []
    malformed: list[str] = []
    for line in lines:
        content = line_content(line).strip()
        if not content:
            continue
        key, colon, value = content.partition(":")
        if colon and key.strip():
            fields.append((key.strip(), value.strip()))
        else:
            malformed.append(content)
    return tuple(fields), tuple(malformed)


def _skip_blank(lines: Sequence[str], i: int, stop: int) -> int:
    while i < stop and is_blank(lines[i]):
        i += 1
    return i


@functools.lru_cache(maxsize=32)
def parse(text: str) -> Article:
    """Parse any string; never raises. Grammar violations are for problems().

    Cached (an Article is immutable): one write parses the same text in its stage,
    in NORMALIZE and in the gate, and parsing was most of a write's cost."""
    if not text.startswith(BOM):
        return _parse(text)
    article = _parse(text[len(BOM) :])
    source = replace(article._source or _NO_SOURCE, bom=BOM)
    return replace(article, _source=source)


def _parse(text: str) -> Article:
    lay = layout(text)
    lines = lay.lines
    counter = 0

    def raw(lo: int, hi: int, value: object, content: str | None = None) -> _Raw | None:
        nonlocal counter
        chunk = "".join(lines[lo:hi])
        if not chunk:
            return None
        counter += 1
        if content is None:
            return _Raw(counter - 1, chunk, value)
        return _Raw(counter - 1, chunk, value, "", chunk[len(content) :])

    def content_of(lo: int, hi: int) -> str:
        chunk = "".join(lines[lo:hi])
        return chunk[: len(chunk) - len(line_ending(lines[hi - 1]))]

    fm = raw(0, lay.fm_end, "".join(lines[: lay.fm_end]))
    starts = [i for i, level, _ in lay.headings if level <= 2 and i != lay.title_line]
    first = starts[0] if starts else len(lines)
    title: str | None = None
    title_raw: _Raw | None = None
    if lay.title_line is not None:
        t = lay.title_line
        preamble = raw(lay.fm_end, t, "".join(lines[lay.fm_end : t]))
        head = _skip_blank(lines, t + 1, first)
        title = h[1] if (h := atx_heading(lines[t])) else ""
        title_raw = raw(t, head, title, line_content(lines[t]))
    else:
        head = _skip_blank(lines, lay.fm_end, first)
        preamble = raw(lay.fm_end, head, "".join(lines[lay.fm_end : head]))

    banner: str | None = None
    banner_raw: _Raw | None = None
    if head < first and (m := BANNER_LINE.match(line_content(lines[head]))):
        banner = m.group(1).strip()
        nxt = _skip_blank(lines, head + 1, first)
        banner_raw = raw(head, nxt, banner, line_content(lines[head]))
        head = nxt

    infobox: tuple[tuple[str, str], ...] | None = None
    info_raw: _Raw | None = None
    closed, malformed = True, tuple[str, ...]()
    blocks = fence_blocks(lines[head:first])
    if blocks and blocks[0].start == 0 and blocks[0].label.casefold() == "info":
        end = head + blocks[0].end
        closed = blocks[0].closed
        inner = lines[head + 1 : end - 1 if closed else end]
        infobox, malformed = _infobox_fields(inner)
        nxt = _skip_blank(lines, end, first)
        info_raw = raw(head, nxt, infobox, content_of(head, end))
        head = nxt

    # Blank lines before the lead already belong to the part above it.
    lead = split_block(lines[head:first])[1]
    lead_raw = raw(head, first, lead, lead) if lead else None

    sections = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(lines)
        level, heading = atx_heading(lines[s]) or (2, "")
        pre, body, post = split_block(lines[s + 1 : e])
        counter += 1
        sraw = _SectionRaw(counter - 1, lines[s], heading, level, pre, body, post)
        sections.append(Section(heading, level, body, sraw))

    source = _Source(
        frontmatter=fm,
        preamble=preamble,
        title=title_raw,
        banner=banner_raw,
        infobox=info_raw,
        lead=lead_raw,
        last_index=counter - 1,
        infobox_closed=closed,
        infobox_malformed=malformed,
    )
    return Article(
        title=title,
        lead=lead,
        sections=tuple(sections),
        infobox=infobox,
        banner=banner,
        frontmatter=fm.text if fm else None,
        preamble=preamble.text if preamble else "",
        eol=detect_eol(text),
        _source=source,
    )


def infobox_malformed(article: Article) -> list[str]:
    """Infobox lines that are not `key: value`, plus "(unclosed)" for a fence never closed."""
    src = article._source
    if src is None or src.infobox is None or src.infobox.value != article.infobox:
        return []
    return [*src.infobox_malformed, *([] if src.infobox_closed else ["(unclosed)"])]


# ---------------------------------------------------------------- render

_Piece = tuple[str, int | None]


def _one_line(text: str) -> str:
    return " ".join(piece.strip(" \t") for piece in re.split(r"[\r\n]+", text)).strip(" \t")


def _part(raw: _Raw | None, value: object, canonical: str, eol: str) -> _Piece:
    if raw is not None and raw.value == value:
        return raw.text, raw.index
    if raw is not None:
        return raw.pre + canonical + raw.post, raw.index
    return canonical + eol, None


def _infobox_block(fields: Iterable[tuple[str, str]], eol: str) -> str:
    rows = [f"{_one_line(k)}: {_one_line(v)}".rstrip(" ") for k, v in fields]
    longest = max((len(m) for r in rows for m in re.findall(r"`+", r)), default=0)
    fence = "`" * max(3, longest + 1)
    return eol.join([fence + "info", *rows, fence])


def _block(text: str, eol: str) -> str:
    """A lead or body as written canonically; a fence it leaves open is closed in it,
    so that it cannot swallow the parts after it."""
    return clean_block(repair_fences(text), eol)


def _render_section(s: Section, eol: str) -> _Piece:
    r = s._raw
    canonical_head = "#" * max(1, min(6, s.level)) + (" " + _one_line(s.heading)).rstrip(" ")
    if r is None:
        body = _block(s.body, eol)
        return (canonical_head + eol + eol + body + eol if body else canonical_head + eol), None
    if (s.heading, s.level) == (r.heading, r.level):
        head = r.heading_line
    else:
        head = canonical_head + (line_ending(r.heading_line) or eol)
    if s.body == r.body:
        return head + r.pre + r.body + r.post, r.index
    body = _block(s.body, eol)
    if not body or not r.body:
        if not ends_line(head):
            head = add_eol(head, eol)
        return (add_eol(head, eol) + body + eol if body else head), None
    return head + r.pre + body + r.post, r.index


def _ends_with_blank_line(text: str) -> bool:
    if not ends_line(text):
        return False
    last = text[: len(text) - len(line_ending(text))]
    cut = max(last.rfind("\n"), last.rfind("\r"))
    return last[cut + 1 :].strip(" \t") == ""


def _strip_trailing_blank_lines(text: str) -> str:
    lines = split_lines(text)
    while lines and is_blank(lines[-1]):
        lines.pop()
    if not lines:
        return ""
    return "".join(lines[:-1]) + line_content(lines[-1])


def render(article: Article) -> str:
    """The article's text: source bytes for unchanged parts, canonical text for changed ones."""
    a, eol = article, article.eol
    src = a._source or _NO_SOURCE
    pieces: list[_Piece] = []
    for raw, value in ((src.frontmatter, a.frontmatter), (src.preamble, a.preamble)):
        if raw is not None and raw.value == value:
            pieces.append((raw.text, raw.index))
        elif value:
            pieces.append((value if ends_line(value) else add_eol(value, eol), None))
    if a.title is not None:
        pieces.append(_part(src.title, a.title, ("# " + _one_line(a.title)).rstrip(" "), eol))
    if a.banner is not None:
        banner = f"*Part of a series on [[{_banner_link(_one_line(a.banner))}]].*"
        pieces.append(_part(src.banner, a.banner, banner, eol))
    if a.infobox is not None:
        pieces.append(_part(src.infobox, a.infobox, _infobox_block(a.infobox, eol), eol))
    if a.lead:
        lead_raw = src.lead
        if lead_raw is not None and lead_raw.value == a.lead:
            pieces.append((lead_raw.text, lead_raw.index))
        elif (lead := _block(a.lead, eol)) and lead_raw is not None:
            pieces.append((lead + lead_raw.post, lead_raw.index))
        elif lead:
            pieces.append((lead + eol, None))
    pieces.extend(_render_section(s, eol) for s in a.sections)

    out, prev = "", None
    for text, index in pieces:
        if not text:
            continue
        if out and not ends_line(out):
            out = add_eol(out, eol)
        # Parts that were neighbours in the source join verbatim; anything
        # moved, new or re-rendered gets one blank line above it.
        adjacent = index is not None and prev is not None and index == prev + 1
        if out and not adjacent and not _ends_with_blank_line(out):
            out = add_eol(out, eol)
        out += text
        prev = index
    if out and (prev is None or prev != src.last_index):
        out = add_eol(_strip_trailing_blank_lines(out), eol)
    return src.bom + out


def _banner_link(target: str) -> str:
    """The inside of the banner's link: a stem read as its title when they differ
    (`Garden_Shed|Garden Shed`), so that Obsidian, which shows a link's target as it is
    written, shows the parent's title."""
    shown = title_for_stem(target)
    return target if shown == target else f"{target}|{shown}"


# ---------------------------------------------------------------- building


def build(
    title: str,
    *,
    lead: str,
    sections: Iterable[tuple[str, str] | Section],
    infobox: Iterable[tuple[str, str]] | Mapping[str, str] | None = None,
    see_also: Iterable[str] = (),
    footnotes: Iterable[Footnote] = (),
    categories: Iterable[str] = (),
    banner: str | None = None,
    stub: bool = False,
    notes: str | None = None,
    eol: str = "\n",
) -> str:
    """A new article in the canonical layout (docs/article-grammar.md)."""
    lead_text = _block(lead, "\n")
    if stub and not STUB_RE.search(lead_text):
        lead_text = f"{lead_text}\n\n{STUB}" if lead_text else STUB
    secs = [s if isinstance(s, Section) else Section(s[0], 2, s[1]) for s in sections]
    if links := list(see_also):
        secs.append(Section(SEE_ALSO, 2, "\n".join(f"- [[{t}]]" for t in links)))
    if notes:
        secs.append(Section(NOTES, 2, notes))
    cats = "\n".join(f"[[Category:{c}]]" for c in categories)
    defs = "\n".join(f.line() for f in footnotes)
    if defs:
        secs.append(Section(REFERENCES, 2, f"{defs}\n\n{cats}" if cats else defs))
    elif cats and secs:
        secs[-1] = replace(secs[-1], body=f"{_block(secs[-1].body, eol)}{eol}{eol}{cats}")
    elif cats:
        lead_text = f"{lead_text}\n\n{cats}" if lead_text else cats
    fields = infobox.items() if isinstance(infobox, Mapping) else infobox
    article = Article(
        title=title,
        lead=lead_text,
        sections=tuple(secs),
        infobox=tuple(fields) if fields is not None else None,
        banner=banner,
        eol=eol,
    )
    return render(article)
