"""The article's markup, read from plain text: headings, links, footnotes, templates.

Everything here works on a string (a line, a section body, a lead) and knows
nothing of the Article model: heading lines, `[[wikilinks]]` and
`[[Category:…]]` links, footnote markers `[^N]` and definitions `[^N]: …`,
the standard citation form and the one line code writes for it, `conv:HASH`
references, `{{templates}}`, and word counts of prose. Code (fenced blocks and
inline spans) is never markup; dreaming.article.fences says where it is.
docs/article-grammar.md describes the syntax for people.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from dreaming.article.fences import is_blank, line_content, mask_code, split_lines

STUB = "{{stub}}"
STUB_RE = re.compile(r"\{\{[ \t]*stub[ \t]*\}\}", re.IGNORECASE)
"""`{{stub}}` as written by people: any case, spaces inside the braces."""
LINK_PATTERN = r"\[\[([^\[\]|#\r\n]+)(?:#[^\[\]|\r\n]*)?(?:\|[^\[\]\r\n]*)?\]\]"
"""A `[[target#anchor|alias]]` link; group 1 is the target."""
SEE_ALSO_ITEM = re.compile(r"^[-*+][ \t]+" + LINK_PATTERN)
"""A See also list item, `- [[Title]]` (on a stripped line)."""

_SERIES, _REDIRECTS, _MAIN = r"Part of a series on", r"Redirects to", r"Main articles?:"
BANNER_LINE = re.compile(r"^\*" + _SERIES + " " + LINK_PATTERN + r"\.\*[ \t]*$")
"""The banner, `*Part of a series on [[Parent]].*`; group 1 is the parent."""
REDIRECT_LINE = re.compile(r"^\*" + _REDIRECTS + " " + LINK_PATTERN + r"\.?\*[ \t]*$")
"""A redirect's first line, `*Redirects to [[Target]]*`; group 1 is the target."""
MAIN_LINE = re.compile(r"[ \t]*\*" + _MAIN + r"(.*)\*[ \t]*")
"""`*Main article: [[A]], [[B]]*` (fullmatch); group 1 holds the links."""
TEMPLATE_LINE = re.compile(
    r"^[ \t]*\*(?:" + _SERIES + r"\b|" + _REDIRECTS + r"\b|" + _MAIN + r").*\*[ \t]*$"
)
"""Any of the three template lines, written or not in their exact form: not prose."""

_ATX_OPEN = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\r\n]*)\]\]")
"""Any `[[…]]` or `![[…]]`; group 1 is the `!`, group 2 the inside."""
MARKER = re.compile(r"(?<!\\)\[\^([^\[\]\s^]+)\]")
"""A footnote marker `[^label]`; group 1 is the label."""
DEFINITION = re.compile(r" {0,3}\[\^([^\[\]\s^]+)\]:")
"""The start of a footnote definition line (match); group 1 is the label."""
_TEMPLATE = re.compile(r"\{\{[^{}\r\n]*\}\}")
_HASH, _DATE = re.compile(r"[0-9a-f]{8}"), re.compile(r"\d{4}-\d{2}-\d{2}")
"""A conversation hash (8 lowercase hex digits) and a YYYY-MM-DD date."""
_CONV = re.compile(r"(?<![0-9A-Za-z])conv:(" + _HASH.pattern + r")(?![0-9A-Za-z])")
# Regexes here read untrusted text, so none has two unbounded runs that can
# match the same characters (that backtracks quadratically); trimming the
# spaces around a captured run is done with str.strip instead.
_FOOTNOTE = re.compile(
    r"`conv:(" + _HASH.pattern + r")`[ \t]+\((" + _DATE.pattern + r"),([^()\r\n]*)\)(.*)"
)
_DASHES = "\u2014\u2013-"
_DELIMITER_CELL = re.compile(r"[ \t]*:?-+:?[ \t]*")
_CATEGORY = re.compile(r"[ \t]*category[ \t]*:(.*)", re.IGNORECASE | re.DOTALL)
# Scripts written without spaces between words: Thai, Lao, Tibetan, Myanmar, Khmer,
# kana, Han (with its extension planes) and Yi.
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f]"
)


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


# ---------------------------------------------------------------- headings


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line (`## Text ##`), or None."""
    content = line_content(line)
    m = _ATX_OPEN.match(content)
    if m is None:
        return None
    text = content[m.end() :].strip(" \t")
    # A closing run of `#` counts only when it stands alone: "## C# ##" is "C#".
    bare = text.rstrip("#")
    if len(bare) < len(text) and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return len(m.group(1)), text


# ---------------------------------------------------------------- footnotes


def _def_lines(text: str) -> Iterator[tuple[int, str, re.Match[str]]]:
    """(offset, line, match) for each definition line; matched on the masked line."""
    pos = 0
    for line, masked in zip(split_lines(text), split_lines(mask_code(text)), strict=True):
        if (m := DEFINITION.match(masked)) is not None:
            yield pos, line, m
        pos += len(line)


def markers(text: str) -> list[str]:
    """Footnote marker labels in prose order (repeats kept); code and definition labels excluded."""
    defs = {pos + m.start(1) - 2 for pos, _, m in _def_lines(text)}
    return [m.group(1) for m in MARKER.finditer(mask_code(text)) if m.start() not in defs]


def definitions(text: str) -> list[Definition]:
    """Every footnote definition line outside code, in order."""
    return [
        Definition(m.group(1), line_content(line)[m.end() :].strip())
        for _, line, m in _def_lines(text)
    ]


def parse_footnote(definition: Definition) -> Footnote | None:
    """The standard-form citation a definition holds, or None."""
    m = _FOOTNOTE.fullmatch(definition.text.strip(" \t"))
    # An ASCII number only: "²" and "٣" pass isdigit(), and int() refuses or misreads them.
    if m is None or not (definition.label.isascii() and definition.label.isdigit()):
        return None
    tail = m.group(4)
    desc = tail.lstrip(" \t")
    if desc:
        if desc == tail or desc[0] not in _DASHES:
            return None
        desc = desc[1:].strip(" \t")
    source = m.group(3).strip(" \t")
    return Footnote(int(definition.label), m.group(1), m.group(2), source, desc)


def footnote_def_line(n: int, hash: str, date: str, source: str, desc: str) -> str:
    """The one definition line code writes for a citation."""
    if n < 1:
        raise ValueError(f"footnote number {n} must be 1 or more")
    if not _HASH.fullmatch(hash):
        raise ValueError(f"conv hash {hash!r} must be 8 lowercase hex digits")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise ValueError(f"date {date!r} must be YYYY-MM-DD") from None
    if not _DATE.fullmatch(date):
        raise ValueError(f"date {date!r} must be YYYY-MM-DD")
    source = " ".join(source.split())
    if not source or "(" in source or ")" in source:
        raise ValueError(f"source {source!r} must be a non-empty name without parentheses")
    desc = " ".join(desc.split())
    line = f"[^{n}]: `conv:{hash}` ({date}, {source})"
    return f"{line} — {desc}" if desc else line


def conv_hashes(text: str) -> set[str]:
    """Every `conv:HASH` outside fenced code (inline code counts: citations use it)."""
    return set(_CONV.findall(mask_code(text, inline=False)))


# ---------------------------------------------------------------- links


def wikilinks(text: str) -> list[WikiLink]:
    """`[[target#anchor|alias]]` links outside code spans and fences."""
    out = []
    for m in WIKILINK.finditer(mask_code(text)):
        inner = text[m.start(2) : m.end(2)]
        if not inner.strip():
            continue
        target, bar, alias = split_alias(inner)
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


def split_alias(inner: str) -> tuple[str, str, str]:
    """(target, "|" or "", alias). A table writes the bar `\\|`; its `\\` is not the target's."""
    target, bar, alias = inner.partition("|")
    if bar and target.endswith("\\"):
        target = target[:-1]
    return target, bar, alias


def _is_delimiter_row(line: str) -> bool:
    row = line_content(line).strip(" \t")
    cells = row.removeprefix("|").removesuffix("|").split("|")
    return "|" in row and all(_DELIMITER_CELL.fullmatch(c) for c in cells)


def table_lines(text: str) -> list[bool]:
    """For each line (split_lines): whether it is a row of a table.

    A table is a header line with a `|`, a delimiter row (`| --- | :-: |`) and
    the lines after it up to a blank line, outside code. In a table cell a
    wikilink's alias bar is written `\\|`, or it would split the cell.
    """
    lines = split_lines(mask_code(text))
    flags = [False] * len(lines)
    i = 1
    while i < len(lines):
        head = lines[i - 1]
        if flags[i - 1] or "|" not in head or is_blank(head) or not _is_delimiter_row(lines[i]):
            i += 1
            continue
        j = i - 1
        while j < len(lines) and not is_blank(lines[j]):
            flags[j] = True
            j += 1
        i = j + 1
    return flags


def category_name(link: WikiLink) -> str | None:
    """The category a `[[Category:Name]]` link declares, else None."""
    m = _CATEGORY.match(link.target)
    name = m.group(1).strip(" \t") if m else ""
    return name or None


def is_category_line(line: str) -> bool:
    """Whether a line holds nothing but `[[Category:…]]` links."""
    links = wikilinks(line)
    only_links = not WIKILINK.sub("", line).strip()
    return bool(links) and only_links and all(category_name(w) for w in links)


# ---------------------------------------------------------------- words


def _shown(m: re.Match[str]) -> str:
    """A wikilink as the reader sees it; embeds and category links show nothing."""
    target, bar, alias = split_alias(m.group(2))
    if m.group(1) or _CATEGORY.match(target):
        return " "
    return " " + (alias if bar and alias.strip() else target.split("#")[0].replace("_", " "))


def unlinked(text: str) -> str:
    """`text` with every wikilink as the reader sees it (`[[Stem|surface]]` is `surface`)."""
    return WIKILINK.sub(lambda m: _shown(m)[1:], text)


def unstubbed(text: str) -> str:
    """`text` without its `{{stub}}` marks: a mark for the wiki's upkeep, not something
    a reader of the lead is told."""
    return STUB_RE.sub(" ", text)


def text_units(line: str) -> int:
    """How much text a line holds, in words, for every script.

    A space-separated token with a letter or digit is one word; in scripts
    written without spaces each letter or digit counts as one, so cutting half
    of a Chinese or Thai paragraph halves its measure as it would an English one.
    """
    unspaced = sum(unicodedata.category(c)[0] in "LN" for c in _UNSPACED.findall(line))
    spaced = _UNSPACED.sub(" ", line)
    # `\w` is exactly a letter, a digit or `_`, and `\s` exactly what split() splits on:
    # every token but those with no letter or digit, counted without a loop per token.
    return unspaced + len(spaced.split()) - len(_NO_WORD_TOKEN.findall(spaced))


_NO_WORD_TOKEN = re.compile(r"(?<!\S)(?:[^\w\s]|_)++(?!\S)")
"""A space-separated token without a letter or digit (`--`, `*`, `_`)."""


def words(text: str) -> int:
    """Words of prose (text_units); code, headings, definitions, templates, markers don't count."""
    count = 0
    for raw in split_lines(mask_code(text)):
        line = line_content(raw)
        if (
            not line.strip()
            or atx_heading(line)
            or DEFINITION.match(line)
            or TEMPLATE_LINE.match(line)
        ):
            continue
        line = MARKER.sub(" ", _TEMPLATE.sub(" ", WIKILINK.sub(_shown, line)))
        count += text_units(line)
    return count
