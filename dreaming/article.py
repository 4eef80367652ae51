"""Article grammar: parse ⇄ render with a byte-identical round trip.

`render(parse(text)) == text` for every string. Parsing keeps the exact bytes
of every part (frontmatter, H1, banner, infobox, lead, each section); render
emits those bytes for every part whose value is unchanged and renders only a
changed part canonically, keeping the blank lines around it. That is how a
pipeline edit touches one section and leaves the rest of a person's file
byte-identical. docs/article-grammar.md describes the grammar for people.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from dreaming.errors import DreamingError, UnsafePathError
from dreaming.fences import (
    dangling_fence,
    detect_eol,
    fence_blocks,
    is_blank,
    line_content,
    line_ending,
    mask_code,
    repair_fences,
    scan_lines,
    split_lines,
)

KINDS = ("thing", "person", "domain", "project", "standard")
"""The closed set of infobox `kind:` values."""
LEAD = ""
"""The heading name that addresses the lead in section functions."""
SEE_ALSO, NOTES, REFERENCES = "See also", "Notes", "References"
STUB = "{{stub}}"
THIN_WORDS = 150
"""An article with fewer words of prose than this is thin and carries {{stub}}."""
MAX_STEM_BYTES = 200
"""Leaves room under the usual 255-byte file-name limit for ".md" and temp suffixes."""

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$", re.DOTALL)
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_LINK = r"\[\[([^\[\]|#\r\n]+)(?:#[^\[\]|\r\n]*)?(?:\|[^\[\]\r\n]*)?\]\]"
_BANNER = re.compile(r"^\*Part of a series on " + _LINK + r"\.\*[ \t]*$")
_REDIRECT = re.compile(r"^\*Redirects to " + _LINK + r"\.?\*[ \t]*$")
_TEMPLATE_LINE = re.compile(
    r"^[ \t]*\*(?:Part of a series on\b|Redirects to\b|Main articles?:).*\*[ \t]*$"
)
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\r\n]*)\]\]")
_MARKER = re.compile(r"(?<!\\)\[\^([^\[\]\s^]+)\]")
_DEF = re.compile(r"^ {0,3}\[\^([^\[\]\s^]+)\]:", re.MULTILINE)
_TEMPLATE = re.compile(r"\{\{[^{}\r\n]*\}\}")
_STUB_RE = re.compile(r"\{\{[ \t]*stub[ \t]*\}\}", re.IGNORECASE)
_CONV = re.compile(r"(?<![0-9A-Za-z])conv:([0-9a-f]{8})(?![0-9A-Za-z])")
_FOOTNOTE = re.compile(
    r"^`conv:([0-9a-f]{8})`[ \t]+\((\d{4}-\d{2}-\d{2}),[ \t]*([^()\r\n]*?)[ \t]*\)"
    r"(?:[ \t]+[\u2014\u2013-][ \t]*(.*?))?[ \t]*$"
)
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
_SEE_ALSO_ITEM = re.compile(r"^[-*+][ \t]+" + _LINK)
_CATEGORY = re.compile(r"^[ \t]*category[ \t]*:[ \t]*(.*?)[ \t]*$", re.IGNORECASE)


class SectionNotFoundError(DreamingError, LookupError):
    """replace_section was asked for a heading the article does not have."""


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


@dataclass(frozen=True)
class Footnote:
    """A citation in the standard form `[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc`."""

    number: int
    hash: str
    date: str
    source: str
    desc: str = ""

    def line(self) -> str:
        return footnote_def_line(self.number, self.hash, self.date, self.source, self.desc)


@dataclass(frozen=True)
class Definition:
    """Any footnote definition line `[^label]: text`, standard form or not."""

    label: str
    text: str


@dataclass(frozen=True)
class WikiLink:
    target: str
    alias: str | None
    anchor: str | None
    embed: bool
    start: int
    end: int

    @property
    def display(self) -> str:
        """What a reader sees (for word counts)."""
        if self.alias is not None and self.alias.strip():
            return self.alias
        return self.target.replace("_", " ")


# ---------------------------------------------------------------- small helpers


def heading_key(text: str) -> str:
    """How headings and titles are compared: case-insensitive, `_` ≡ space, spacing collapsed."""
    return " ".join(text.replace("_", " ").casefold().split())


def _atx(line: str) -> tuple[int, str] | None:
    m = _ATX.match(line_content(line))
    if m is None:
        return None
    text = _CLOSING_HASHES.sub("", (m.group(2) or "").strip(" \t"))
    return len(m.group(1)), text.strip(" \t")


def _one_line(text: str) -> str:
    return re.sub(r"[ \t]*[\r\n]+[ \t]*", " ", text).strip(" \t")


def _to_eol(text: str, eol: str) -> str:
    text = text.replace("\r\n", "\n")
    return text.replace("\n", eol) if eol != "\n" else text


def _split_block(lines: Sequence[str]) -> tuple[str, str, str]:
    """(blank lines before, content without its final line ending, ending + blank lines after)."""
    a, b = 0, len(lines)
    while a < b and is_blank(lines[a]):
        a += 1
    while b > a and is_blank(lines[b - 1]):
        b -= 1
    if a == b:
        return "".join(lines), "", ""
    ending = line_ending(lines[b - 1])
    content = "".join(lines[a:b])
    return "".join(lines[:a]), content[: len(content) - len(ending)], ending + "".join(lines[b:])


def _clean(text: str, eol: str) -> str:
    """Text as a part's content: the article's line endings, no blank lines around it."""
    return _split_block(split_lines(_to_eol(text, eol)))[1]


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


# ---------------------------------------------------------------- parse


@dataclass(frozen=True)
class _Layout:
    lines: list[str]
    fm_end: int
    headings: list[tuple[int, int, str]]
    """(line index, level, text) of every ATX heading outside code and frontmatter."""
    title_line: int | None


def _frontmatter_end(lines: Sequence[str]) -> int:
    if not lines or line_content(lines[0]).rstrip(" \t") != "---":
        return 0
    for i in range(1, len(lines)):
        if line_content(lines[i]).rstrip(" \t") == "---":
            return i + 1
    return 0


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter block, the rest of the text).

    Fence scans start after the frontmatter: a ``` line inside YAML is not a code fence.
    """
    lines = split_lines(text)
    cut = len("".join(lines[: _frontmatter_end(lines)]))
    return text[:cut], text[cut:]


def _layout(text: str) -> _Layout:
    lines = split_lines(text)
    fm_end = _frontmatter_end(lines)
    code = [False] * len(lines)
    for block in fence_blocks(lines[fm_end:]):
        for k in range(block.start + fm_end, block.end + fm_end):
            code[k] = True
    headings = []
    for i in range(fm_end, len(lines)):
        if not code[i] and (h := _atx(lines[i])) is not None:
            headings.append((i, h[0], h[1]))
    top = [h for h in headings if h[1] <= 2]
    title_line = top[0][0] if top and top[0][1] == 1 else None
    return _Layout(lines, fm_end, headings, title_line)


def _skip_blank(lines: Sequence[str], i: int, stop: int) -> int:
    while i < stop and is_blank(lines[i]):
        i += 1
    return i


def parse(text: str) -> Article:
    """Parse any string; never raises. Grammar violations are for problems()."""
    lay = _layout(text)
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
        title = h[1] if (h := _atx(lines[t])) else ""
        title_raw = raw(t, head, title, line_content(lines[t]))
    else:
        head = _skip_blank(lines, lay.fm_end, first)
        preamble = raw(lay.fm_end, head, "".join(lines[lay.fm_end : head]))

    banner: str | None = None
    banner_raw: _Raw | None = None
    if head < first and (m := _BANNER.match(line_content(lines[head]))):
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
    lead = _split_block(lines[head:first])[1]
    lead_raw = raw(head, first, lead, lead) if lead else None

    sections = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(lines)
        level, heading = _atx(lines[s]) or (2, "")
        pre, body, post = _split_block(lines[s + 1 : e])
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


# ---------------------------------------------------------------- render

_Piece = tuple[str, int | None]


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


def _render_section(s: Section, eol: str) -> _Piece:
    r = s._raw
    canonical_head = "#" * max(1, min(6, s.level)) + (" " + _one_line(s.heading)).rstrip(" ")
    if r is None:
        body = _clean(s.body, eol)
        return (canonical_head + eol + eol + body + eol if body else canonical_head + eol), None
    if (s.heading, s.level) == (r.heading, r.level):
        head = r.heading_line
    else:
        head = canonical_head + (line_ending(r.heading_line) or eol)
    if s.body == r.body:
        return head + r.pre + r.body + r.post, r.index
    body = _clean(s.body, eol)
    if not body or not r.body:
        if not head.endswith("\n"):
            head += eol
        return (head + eol + body + eol if body else head), None
    return head + r.pre + body + r.post, r.index


def _ends_with_blank_line(text: str) -> bool:
    if not text.endswith("\n"):
        return False
    return text.split("\n")[-2].strip(" \t\r") == ""


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
            pieces.append((value if value.endswith("\n") else value + eol, None))
    if a.title is not None:
        pieces.append(_part(src.title, a.title, ("# " + _one_line(a.title)).rstrip(" "), eol))
    if a.banner is not None:
        banner = f"*Part of a series on [[{_one_line(a.banner)}]].*"
        pieces.append(_part(src.banner, a.banner, banner, eol))
    if a.infobox is not None:
        pieces.append(_part(src.infobox, a.infobox, _infobox_block(a.infobox, eol), eol))
    if a.lead:
        lead_raw = src.lead
        if lead_raw is not None and lead_raw.value == a.lead:
            pieces.append((lead_raw.text, lead_raw.index))
        elif (lead := _clean(a.lead, eol)) and lead_raw is not None:
            pieces.append((lead + lead_raw.post, lead_raw.index))
        elif lead:
            pieces.append((lead + eol, None))
    pieces.extend(_render_section(s, eol) for s in a.sections)

    out, prev = "", None
    for text, index in pieces:
        if not text:
            continue
        if out and not out.endswith("\n"):
            out += eol
        # Parts that were neighbours in the source join verbatim; anything
        # moved, new or re-rendered gets one blank line above it.
        adjacent = index is not None and prev is not None and index == prev + 1
        if out and not adjacent and not _ends_with_blank_line(out):
            out += eol
        out += text
        prev = index
    if out and (prev is None or prev != src.last_index):
        out = _strip_trailing_blank_lines(out) + eol
    return out


# ---------------------------------------------------------------- queries over text


def _def_starts(masked: str) -> set[int]:
    return {m.start(1) - 2 for m in _DEF.finditer(masked)}


def markers(text: str) -> list[str]:
    """Footnote marker labels in prose order (repeats kept); code and definition labels excluded."""
    masked = mask_code(text)
    defs = _def_starts(masked)
    return [m.group(1) for m in _MARKER.finditer(masked) if m.start() not in defs]


def definitions(text: str) -> list[Definition]:
    """Every footnote definition line outside code, in order."""
    masked = mask_code(text)
    out = []
    for m in _DEF.finditer(masked):
        end = text.find("\n", m.end())
        rest = text[m.end() : len(text) if end < 0 else end]
        out.append(Definition(m.group(1), rest.strip()))
    return out


def parse_footnote(definition: Definition) -> Footnote | None:
    """The standard-form citation a definition holds, or None."""
    m = _FOOTNOTE.match(definition.text)
    if m is None or not definition.label.isdigit():
        return None
    return Footnote(int(definition.label), m.group(1), m.group(2), m.group(3), m.group(4) or "")


def wikilinks(text: str) -> list[WikiLink]:
    """`[[target#anchor|alias]]` links outside code spans and fences."""
    out = []
    for m in _WIKILINK.finditer(mask_code(text)):
        inner = text[m.start(2) : m.end(2)]
        if not inner.strip():
            continue
        target, bar, alias = inner.partition("|")
        target, hash_, anchor = target.partition("#")
        out.append(
            WikiLink(
                target,
                alias if bar else None,
                anchor if hash_ else None,
                m.group(1) == "!",
                m.start(),
                m.end(),
            )
        )
    return out


def category_name(link: WikiLink) -> str | None:
    """The category a `[[Category:Name]]` link declares, else None."""
    m = _CATEGORY.match(link.target)
    return m.group(1) if m and m.group(1) else None


def conv_hashes(text: str) -> set[str]:
    """Every `conv:HASH` outside fenced code (inline code counts: citations use it)."""
    return set(_CONV.findall(mask_code(text, inline=False)))


def _shown(m: re.Match[str]) -> str:
    """A wikilink as the reader sees it; embeds and category links show nothing."""
    target, bar, alias = m.group(2).partition("|")
    if m.group(1) or _CATEGORY.match(target):
        return " "
    return " " + (alias if bar and alias.strip() else target.split("#")[0].replace("_", " "))


def words(text: str) -> int:
    """Words of prose: code, headings, definitions, templates and markers do not count."""
    count = 0
    for line in mask_code(text).split("\n"):
        line = line.removesuffix("\r")
        if not line.strip() or _atx(line) or _DEF.match(line) or _TEMPLATE_LINE.match(line):
            continue
        line = _MARKER.sub(" ", _TEMPLATE.sub(" ", _WIKILINK.sub(_shown, line)))
        count += sum(1 for tok in line.split() if any(c.isalnum() for c in tok))
    return count


# ---------------------------------------------------------------- queries over articles

_TAILS = {heading_key(SEE_ALSO): 1, heading_key(NOTES): 2, heading_key(REFERENCES): 3}


def tail_rank(section: Section) -> int:
    """0 for a body section; 1, 2, 3 for See also, Notes, References (their required order)."""
    return _TAILS.get(heading_key(section.heading), 0)


def blocks(article: Article) -> list[str]:
    """The lead and every section body: where prose, markers and definitions live."""
    return [article.lead, *(s.body for s in article.sections)]


def prose(article: Article) -> str:
    return "\n".join(blocks(article))


def footnote_defs(article: Article) -> list[Footnote]:
    """Standard-form citations defined anywhere in the article body, in order."""
    found = (parse_footnote(d) for b in blocks(article) for d in definitions(b))
    return [f for f in found if f is not None]


def article_markers(article: Article) -> list[str]:
    return [m for b in blocks(article) for m in markers(b)]


def article_definitions(article: Article) -> list[Definition]:
    return [d for b in blocks(article) for d in definitions(b)]


def article_wikilinks(article: Article) -> list[WikiLink]:
    """Links in the lead, section bodies, banner and infobox values (offsets are per part)."""
    parts = [f"[[{article.banner}]]"] if article.banner else []
    parts += [v for _, v in article.infobox or ()]
    return [link for p in [*parts, *blocks(article)] for link in wikilinks(p)]


def categories(article: Article) -> list[str]:
    names = (category_name(link) for b in blocks(article) for link in wikilinks(b))
    return list(dict.fromkeys(n for n in names if n))


def redirect_target(article: Article) -> str | None:
    first = article.lead.split("\n", 1)[0] if article.lead else ""
    m = _REDIRECT.match(line_content(first))
    return m.group(1).strip() if m else None


def is_redirect(article: Article) -> bool:
    return redirect_target(article) is not None


def is_stub(article: Article) -> bool:
    return any(_STUB_RE.search(mask_code(b)) for b in blocks(article))


def prose_words(article: Article) -> int:
    """Words in the lead and body sections (See also and References are lists, not prose)."""
    parts = [article.lead, *(s.body for s in article.sections if tail_rank(s) in (0, 2))]
    return sum(words(p) for p in parts)


def is_thin(article: Article) -> bool:
    return prose_words(article) < THIN_WORDS


def see_also(article: Article) -> list[str]:
    section = article.section(SEE_ALSO)
    if section is None:
        return []
    items = (_SEE_ALSO_ITEM.match(line.strip()) for line in mask_code(section.body).split("\n"))
    return [m.group(1).strip() for m in items if m]


def toc(article: Article) -> list[tuple[int, str]]:
    """(level, heading) of every section and subsection, in order."""
    out = []
    for s in article.sections:
        out.append((s.level, s.heading))
        out += [h for line in split_lines(mask_code(s.body)) if (h := _atx(line))]
    return out


def infobox_malformed(article: Article) -> list[str]:
    """Infobox lines that are not `key: value`, plus "(unclosed)" for a fence never closed."""
    src = article._source
    if src is None or src.infobox is None or src.infobox.value != article.infobox:
        return []
    return [*src.infobox_malformed, *([] if src.infobox_closed else ["(unclosed)"])]


# ---------------------------------------------------------------- section surgery


@dataclass(frozen=True)
class _Span:
    start: int
    body_start: int | None
    content_end: int
    end: int
    level: int


def _locate(text: str, heading: str) -> _Span | None:
    lay = _layout(text)
    key = heading_key(heading)
    found = [h for h in lay.headings if h[0] != lay.title_line and heading_key(h[2]) == key]
    if not found:
        return None
    line, level, _ = min(found, key=lambda h: (h[1] if h[1] >= 2 else 7, h[0]))
    nxt = [i for i, lv, _ in lay.headings if i > line and lv <= level]
    stop = nxt[0] if nxt else len(lay.lines)
    offsets = [0]
    for ln in lay.lines:
        offsets.append(offsets[-1] + len(ln))
    pre, body, _ = _split_block(lay.lines[line + 1 : stop])
    start = offsets[line]
    if body:
        body_start = offsets[line + 1] + len(pre)
        content_end = body_start + len(body)
    else:
        body_start, content_end = None, start + len(line_content(lay.lines[line]))
    return _Span(start, body_start, content_end, offsets[stop], level)


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
    new = _clean(repair_fences(new_section_text), eol)
    if heading_key(heading) == LEAD:
        article = parse(text)
        return render(replace(article, lead=new))
    span = _locate(text, heading)
    if span is None:
        raise SectionNotFoundError(f"no section {heading!r} in the article; cannot replace it")
    if not new:
        return text[: span.start] + text[span.end :]
    first = _atx(split_lines(new)[0])
    if first is not None and first[0] == span.level:
        replacement = new
    elif span.body_start is not None:
        replacement = text[span.start : span.body_start] + new
    else:
        replacement = text[span.start : span.content_end] + eol + eol + new
    return text[: span.start] + replacement + text[span.content_end :]


def add_section(text: str, section_text: str) -> str:
    """Insert new `##` section(s) before See also / Notes / References."""
    new = parse(section_text)
    if new.title is not None or new.lead or new.infobox is not None or not new.sections:
        raise ValueError("section text must start with a '## Heading' line")
    article = parse(text)
    fresh = [Section(s.heading, s.level, s.body) for s in new.sections]
    secs = list(article.sections)
    at = next((i for i, s in enumerate(secs) if tail_rank(s)), len(secs))
    return render(replace(article, sections=(*secs[:at], *fresh, *secs[at:])))


# ---------------------------------------------------------------- building


def footnote_def_line(n: int, hash: str, date: str, source: str, desc: str) -> str:
    """The one definition line code writes for a citation."""
    if n < 1:
        raise ValueError(f"footnote number {n} must be 1 or more")
    if not re.fullmatch(r"[0-9a-f]{8}", hash):
        raise ValueError(f"conv hash {hash!r} must be 8 lowercase hex digits")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise ValueError(f"date {date!r} must be YYYY-MM-DD") from None
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise ValueError(f"date {date!r} must be YYYY-MM-DD")
    source = " ".join(source.split())
    if not source or "(" in source or ")" in source:
        raise ValueError(f"source {source!r} must be a non-empty name without parentheses")
    desc = " ".join(desc.split())
    line = f"[^{n}]: `conv:{hash}` ({date}, {source})"
    return f"{line} — {desc}" if desc else line


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
    lead_text = _clean(lead, "\n")
    if stub and not _STUB_RE.search(lead_text):
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
        secs[-1] = replace(secs[-1], body=f"{_clean(secs[-1].body, eol)}{eol}{eol}{cats}")
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


# ---------------------------------------------------------------- titles and stems

_FORBIDDEN = '/\\:*?"<>|#^[]'
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
_RESERVED = {"con", "prn", "aux", "nul", *(f"{p}{i}" for p in ("com", "lpt") for i in range(1, 10))}


def stem_for_title(title: str) -> str:
    """The file stem for a title: spaces → `_`. Raises UnsafePathError for unsafe titles.

    Harmless fixes only (Unicode NFC, `_` read as a space, runs of whitespace
    collapsed); anything that could name another place, hide the file or
    collide with another subject is refused, so a stem is always one plain
    file name inside articles/.
    """
    t = unicodedata.normalize("NFC", title)
    for c in t:
        control = unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") and c not in "\t\n\r"
        if control or c in _BIDI:
            raise UnsafePathError(
                f"title {title!r} contains control character U+{ord(c):04X}; "
                "propose the name without it"
            )
    t = " ".join(t.replace("_", " ").split())
    if not t:
        raise UnsafePathError(f"title {title!r} is empty; give the subject a name")
    bad = sorted({c for c in t if c in _FORBIDDEN})
    if bad:
        raise UnsafePathError(
            f"title {title!r} contains {' '.join(bad)}, which cannot be in an article file name; "
            'propose the name without / \\ : * ? " < > | # ^ [ ]'
        )
    if t.startswith("."):
        raise UnsafePathError(
            f"title {title!r} starts with '.', which would hide the article file; "
            "propose the name without the leading dot"
        )
    stem = t.replace(" ", "_")
    if stem.split(".")[0].casefold() in _RESERVED:
        raise UnsafePathError(
            f"title {title!r} is a reserved device name on Windows; propose a longer name"
        )
    if len(stem.encode()) > MAX_STEM_BYTES:
        raise UnsafePathError(
            f"title {title[:40]!r}… is {len(stem.encode())} bytes; "
            f"propose a name of at most {MAX_STEM_BYTES} bytes"
        )
    return stem


def title_for_stem(stem: str) -> str:
    """The title a file stem stands for: `_` read as a space."""
    return stem.replace("_", " ")


# ---------------------------------------------------------------- validation


def _section_line_problems(article: Article) -> list[str]:
    out = []
    for s in article.sections:
        rank = tail_rank(s)
        if rank not in (1, 3):
            continue
        for raw_line, in_code in scan_lines(s.body):
            line = line_content(raw_line).strip()
            if not line or in_code or _is_category_line(line):
                continue
            if rank == 1 and not _SEE_ALSO_ITEM.match(line):
                out.append(f"See also line {line!r} is not '- [[Title]]'")
            if rank == 3:
                d = definitions(line)
                if not d or parse_footnote(d[0]) is None:
                    out.append(
                        f"References line {line[:60]!r} is not "
                        "'[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc'"
                    )
                elif (f := parse_footnote(d[0])) and not _valid_date(f.date):
                    out.append(f"footnote [^{f.number}] has an impossible date {f.date}")
    return out


def _is_category_line(line: str) -> bool:
    links = wikilinks(line)
    only_links = not _WIKILINK.sub("", line).strip()
    return bool(links) and only_links and all(category_name(w) for w in links)


def _valid_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _footnote_problems(article: Article) -> list[str]:
    cited = article_markers(article)
    refs = article.section(REFERENCES)
    out = []
    labels: dict[str, int] = {}
    placed = [(article.lead, False), *((s.body, s is refs) for s in article.sections)]
    for block, in_refs in placed:
        for d in definitions(block):
            labels[d.label] = labels.get(d.label, 0) + 1
            if not in_refs:
                out.append(f"footnote [^{d.label}] is defined outside ## References")
    out += [f"footnote [^{lb}] is defined {n} times" for lb, n in labels.items() if n > 1]
    undefined = [lb for lb in dict.fromkeys(cited) if lb not in labels]
    out += [f"footnote [^{lb}] is cited but never defined" for lb in undefined]
    out += [f"footnote [^{lb}] is defined but never cited" for lb in labels if lb not in cited]
    order = list(dict.fromkeys(cited))
    if order != [str(i) for i in range(1, len(order) + 1)]:
        out.append("footnotes are not numbered 1..n in order of first citation")
    if (cited or labels) and refs is None:
        out.append("the article cites sources but has no '## References' section")
    return out


def problems(article: Article, *, stem: str | None = None) -> list[str]:
    """Everything that breaks the grammar, one readable line each; [] when well-formed."""
    a = article
    out = []
    if a.title is None:
        out.append("no '# Title' line: the article needs an H1")
    elif stem is not None and a.title != title_for_stem(stem):
        want = title_for_stem(stem)
        out.append(f"H1 {a.title!r} does not match the file name: expected '# {want}'")
    if a.preamble.strip():
        out.append("text before the H1: move it below the title")
    out += [f"infobox line {line!r} is not 'key: value'" for line in infobox_malformed(a)]
    keys = [k for k, _ in a.infobox or ()]
    out += [f"infobox key {k!r} is not snake_case" for k in keys if not _SNAKE.match(k)]
    dup = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
    out += [f"infobox key {k!r} appears more than once" for k in dup]
    out += [
        f"infobox kind {v!r} is not one of {', '.join(KINDS)}"
        for k, v in a.infobox or ()
        if k == "kind" and v not in KINDS
    ]
    redirect = is_redirect(a)
    if not redirect and not _STUB_RE.sub("", a.lead).strip():
        out.append("no lead paragraph under the title")
    seen: dict[str, int] = {}
    for s in a.sections:
        seen[heading_key(s.heading)] = seen.get(heading_key(s.heading), 0) + 1
        if s.level == 1:
            out.append(f"second H1 {s.heading!r}: make it '## {s.heading}'")
        if not s.heading.strip():
            out.append("a section heading is empty")
    out += [f"heading {h!r} appears {n} times" for h, n in seen.items() if n > 1 and h]
    ranks = [tail_rank(s) for s in a.sections]
    tail = ranks[next((i for i, r in enumerate(ranks) if r), len(ranks)) :]
    if tail != sorted(tail) or 0 in tail:
        out.append("'## See also', '## Notes', '## References' must end the article, in that order")
    out += _section_line_problems(a)
    out += _footnote_problems(a)
    if dangling_fence(split_frontmatter(render(a))[1]) is not None:
        out.append("a code fence is never closed")
    if not redirect:
        n = prose_words(a)
        if n < THIN_WORDS and not is_stub(a):
            out.append(f"thin article ({n} words) without {STUB}")
        if n >= THIN_WORDS and is_stub(a):
            out.append(f"{STUB} on an article of {n} words (not thin)")
    return out
