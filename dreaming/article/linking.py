"""LINK's text half: the first mention of another article in a block of prose, wrapped
as a wikilink. Pure functions.

A mention is a whole-word, case-insensitive match of an article's title or alias in
prose: never inside code (fenced or inline), a comment, a link of either kind, a
footnote marker or definition, a heading or a template line. The words are never
changed, only wrapped (`[[Stem|as written]]`), so a linked block read without its
brackets is the block it was. A target the block already links to, anywhere, is not
linked again, and a block linked once is its own result the second time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dreaming.article.fences import code_flags, line_content, mask_code
from dreaming.article.markup import DEFINITION, MARKER, WIKILINK, atx_heading, wikilinks
from dreaming.article.titles import heading_key, nfc, title_for_stem

_MARKDOWN_LINK = re.compile(r"!?\[[^\[\]\r\n]*\]\([^()\r\n]*\)")
_TEMPLATE = re.compile(r"\{\{[^{}\r\n]*\}\}")
_WORD = re.compile(r"\w")
# A word of prose: a run of anything but space; what may stand around it (opening
# quotes and brackets, closing punctuation, a possessive) is no part of it. A hyphen
# joins words: "research-beads" is one word, holding no mention of Beads.
_TOKEN = re.compile(r"[^\s\0]+")
_OPENING = "\"'([{*_"
_CLOSING = ".,;:!?\"')]}*_"
_SPACES = re.compile(r"[ \t]+")
_BLANKS = re.compile(" +")
_NOT_SPACE = re.compile("[^ ]")


@dataclass(frozen=True, slots=True)
class Target:
    stem: str
    """The article's file stem, as a link names it."""
    names: tuple[str, ...]
    """Its title and aliases: each mention of one of them may become the link."""


@dataclass(frozen=True, slots=True)
class Names:
    """Every target's names, keyed once for all the blocks a night links."""

    stems: dict[str, tuple[str, ...]]
    """A name's key → the stems that answer to it."""
    prefixes: frozenset[str]
    """Each key's leading words, one word more at a time: a run of prose is read on
    only while it can still become a name."""
    longest: int
    """The most words a name has."""


def names_of(targets: Sequence[Target]) -> Names:
    found: dict[str, list[str]] = {}
    for t in targets:
        for name in (title_for_stem(t.stem), *t.names):
            key = heading_key(name)
            if key and _WORD.search(key) and t.stem not in found.get(key, ()):
                found.setdefault(key, []).append(t.stem)
    prefixes = {
        " ".join(words[:n])
        for words in (k.split(" ") for k in found)
        for n in range(1, len(words) + 1)
    }
    longest = max((len(k.split()) for k in found), default=0)
    return Names({k: tuple(v) for k, v in found.items()}, frozenset(prefixes), longest)


def link_first_mentions(text: str, targets: Names | Sequence[Target], own: str = "") -> str:
    """`text` with the first mention of each target it does not link yet wrapped as a
    wikilink; the article `own` (its stem) is never linked from itself, and a mention
    of its own name is no mention of a shorter one inside it."""
    names = targets if isinstance(targets, Names) else names_of(targets)
    if not names.stems:
        return text
    linked = {heading_key(link.target) for link in wikilinks(text)}
    own_key = heading_key(own)
    out: list[str] = []
    pos = 0
    for start, end, key in _mentions(_prose(text), names):
        stems = names.stems[key]
        # Matched and left alone: the article's own name, and a name two articles share.
        if len(stems) != 1 or heading_key(stems[0]) in (own_key, *linked):
            continue
        stem = stems[0]
        linked.add(heading_key(stem))
        out += [text[pos:start], wikilink(stem, text[start:end])]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _word(m: re.Match[str]) -> tuple[int, int, str] | None:
    """(start, end, key) of the word in a run of prose, its surroundings left out, its
    key as `heading_key` reads it."""
    start = m.start()
    text = m.group()
    lead = len(text) - len(text.lstrip(_OPENING))
    text = text[lead:].rstrip(_CLOSING)
    for possessive in ("'s", "\u2019s"):
        if text.endswith(possessive) and len(text) > len(possessive):
            text = text[: -len(possessive)].rstrip(_CLOSING)
    key = " ".join(nfc(nfc(text).casefold()).replace("_", " ").split())
    if not key:
        return None
    return start + lead, start + lead + len(text), key


def _mentions(prose: str, names: Names) -> Iterator[tuple[int, int, str]]:
    """(start, end, name key) of each mention in `prose`, left to right, the longest
    name at each place first: its words read on while they can still become a name,
    never across a line end or anything blotted out."""
    words = [w for w in (_word(m) for m in _TOKEN.finditer(prose)) if w is not None]
    i = 0
    while i < len(words):
        found = None
        key = ""
        for j in range(i, min(i + names.longest, len(words))):
            if j > i and not _SPACES.fullmatch(prose[words[j - 1][1] : words[j][0]]):
                break
            key = f"{key} {words[j][2]}" if key else words[j][2]
            if key not in names.prefixes:
                break
            if key in names.stems:
                found = (words[i][0], words[j][1], key, j + 1)
        if found is None:
            i += 1
            continue
        yield found[0], found[1], found[2]
        i = found[3]


UNLINKED = ("references", "see also")
"""Sections whose lines are lists of sources and links, not prose."""


def link_article(text: str, targets: Names | Sequence[Target], own: str) -> tuple[str, list[str]]:
    """The article `text` (stem `own`) with the first mention of each other article
    linked in its lead and in each `##` section's prose (one section's links do not
    count for the next); frontmatter, headings, References and See also as they were.
    Returns the text and the sections changed ("" for the lead)."""
    names = targets if isinstance(targets, Names) else names_of(targets)
    lines = text.splitlines(keepends=True)
    start = _after_frontmatter(lines)
    in_code = code_flags(lines)
    cuts = [start]
    headings = [""]
    for i in range(start, len(lines)):
        found = atx_heading(line_content(lines[i])) if not in_code[i] else None
        if found is not None and found[0] == 2:
            cuts.append(i)
            headings.append(found[1])
    cuts.append(len(lines))
    out = ["".join(lines[:start])]
    changed: list[str] = []
    for k, name in enumerate(headings):
        block = "".join(lines[cuts[k] : cuts[k + 1]])
        if heading_key(name) in UNLINKED:
            out.append(block)
            continue
        linked = link_first_mentions(block, names, own)
        if linked != block:
            changed.append(name)
        out.append(linked)
    return "".join(out), changed


def _after_frontmatter(lines: Sequence[str]) -> int:
    """The first line after a `---` frontmatter block at the top, else 0."""
    if not lines or line_content(lines[0]).rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if line_content(lines[i]).rstrip() in ("---", "..."):
            return i + 1
    return 0


def wikilink(stem: str, surface: str) -> str:
    """The link to the article `stem` as NORMALIZE writes links (its file stem, the name
    Obsidian finds the note by: docs/article-grammar.md): `[[Stem]]` when the words are
    the stem itself, else `[[Stem|words]]`, so the write door has nothing to rewrite."""
    target = nfc(stem)
    return f"[[{target}]]" if surface == target else f"[[{target}|{surface}]]"


def page_link(stem: str, shown: str | None = None, *, bar: str = "|") -> str:
    """The link to the article `stem` from a page outside `articles/` (a Talk page, a run
    report, STATION.md): by its vault path, `[[articles/Stem|Title]]`. Obsidian opens
    the note a whole vault path names before any other; a bare `[[Stem]]` would open a
    note of that name beside the linking page first (a Talk page links to itself) or the
    shortest path of that name (`Talk/Stem.md` over `articles/Stem.md`). `bar` is `\\|`
    inside a table row."""
    return f"[[articles/{nfc(stem)}{bar}{title_for_stem(stem) if shown is None else shown}]]"


def _prose(text: str) -> str:
    """`text` with everything that is no prose blotted out, same length: code, comments,
    links, footnote markers and definitions, headings, template lines."""
    masked = mask_code(text)
    for pattern in (WIKILINK, _MARKDOWN_LINK, MARKER, _TEMPLATE):
        masked = pattern.sub(_spaces, masked)
    out: list[str] = []
    start = 0
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        end = start + len(line)
        if atx_heading(content) is not None or DEFINITION.match(content):
            out += [" " * len(content), masked[start + len(content) : end]]
        else:
            out.append(masked[start:end])
        start = end
    masked = "".join(out)
    if masked == text:
        return text
    # What was blanked becomes a character no name holds, so that no mention runs
    # across it ("Claude [^1] code" is no mention of Claude Code). Blanks are spaces,
    # so only a run of them can hold what was blanked.
    return _BLANKS.sub(lambda m: _NOT_SPACE.sub("\0", text[m.start() : m.end()]), masked)


def _spaces(m: re.Match[str]) -> str:
    return " " * (m.end() - m.start())
