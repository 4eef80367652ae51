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

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dreaming.article.fences import code_flags, line_content, mask_code
from dreaming.article.markup import DEFINITION, MARKER, WIKILINK, atx_heading, wikilinks
from dreaming.article.titles import heading_key, title_for_stem

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


@dataclass(frozen=True, slots=True)
class Target:
    stem: str
    """The article's file stem, as a link names it."""
    names: tuple[str, ...]
    """Its title and aliases: each mention of one of them may become the link."""


def link_first_mentions(text: str, targets: Sequence[Target], own: str = "") -> str:
    """`text` with the first mention of each target it does not link yet wrapped as a
    wikilink; the article `own` (its stem) is never linked from itself, and a mention
    of its own name is no mention of a shorter one inside it."""
    names, longest = _prepared(targets)
    if not names:
        return text
    linked = {heading_key(link.target) for link in wikilinks(text)}
    own_key = heading_key(own)
    out: list[str] = []
    pos = 0
    for start, end, key in _mentions(_prose(text), names, longest):
        stems = names[key]
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
    """(start, end, text) of the word in a run of prose, its surroundings left out."""
    start = m.start()
    text = m.group()
    lead = len(text) - len(text.lstrip(_OPENING))
    text = text[lead:].rstrip(_CLOSING)
    for possessive in ("'s", "\u2019s"):
        if text.endswith(possessive) and len(text) > len(possessive):
            text = text[: -len(possessive)].rstrip(_CLOSING)
    if not text:
        return None
    return start + lead, start + lead + len(text), text


def _mentions(
    prose: str, names: dict[str, tuple[str, ...]], longest: int
) -> Iterator[tuple[int, int, str]]:
    """(start, end, name key) of each mention in `prose`, left to right, the longest
    name at each place first: its words looked up, at most `longest` at a time, never
    across a line end or anything blotted out."""
    words = [w for w in (_word(m) for m in _TOKEN.finditer(prose)) if w is not None]
    i = 0
    while i < len(words):
        found = None
        for n in range(min(longest, len(words) - i), 0, -1):
            run = words[i : i + n]
            if any(not _SPACES.fullmatch(prose[a[1] : b[0]]) for a, b in itertools.pairwise(run)):
                continue
            key = " ".join(w for _, _, w in run).casefold().replace("_", " ")
            if key in names:
                found = (run[0][0], run[-1][1], key, n)
                break
        if found is None:
            i += 1
            continue
        yield found[0], found[1], found[2]
        i += found[3]


UNLINKED = ("references", "see also")
"""Sections whose lines are lists of sources and links, not prose."""


def link_article(text: str, targets: Sequence[Target], own: str) -> tuple[str, list[str]]:
    """The article `text` (stem `own`) with the first mention of each other article
    linked in its lead and in each `##` section's prose (one section's links do not
    count for the next); frontmatter, headings, References and See also as they were.
    Returns the text and the sections changed ("" for the lead)."""
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
        linked = link_first_mentions(block, targets, own)
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
    """The link to the article `stem` as NORMALIZE writes links (its title, spaces not
    `_`: docs/article-grammar.md): `[[Title]]` when the words are the title itself, else
    `[[Title|words]]`, so the write door has nothing to rewrite."""
    title = title_for_stem(stem)
    return f"[[{title}]]" if surface == title else f"[[{title}|{surface}]]"


def _prepared(targets: Sequence[Target]) -> tuple[dict[str, tuple[str, ...]], int]:
    """Every name's key → the stems that answer to it, and the most words a name has:
    made once for a night's articles, not once an article. Kept for the last sequence
    asked about, by identity: LINK passes one list for every article of a night, and
    hashing a thousand targets for a cache key cost more than the linking."""
    global _last
    if _last is not None and _last[0] is targets:
        return _last[1]
    found: dict[str, list[str]] = {}
    for t in targets:
        for name in (title_for_stem(t.stem), *t.names):
            key = heading_key(name)
            if key and _WORD.search(key) and t.stem not in found.get(key, ()):
                found.setdefault(key, []).append(t.stem)
    longest = max((len(k.split()) for k in found), default=0)
    prepared = {k: tuple(v) for k, v in found.items()}, longest
    _last = (targets, prepared)
    return prepared


_last: tuple[Sequence[Target], tuple[dict[str, tuple[str, ...]], int]] | None = None


def _prose(text: str) -> str:
    """`text` with everything that is no prose blotted out, same length: code, comments,
    links, footnote markers and definitions, headings, template lines."""
    masked = list(mask_code(text))
    for pattern in (WIKILINK, _MARKDOWN_LINK, MARKER, _TEMPLATE):
        for m in pattern.finditer("".join(masked)):
            masked[m.start() : m.end()] = " " * (m.end() - m.start())
    start = 0
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        if atx_heading(content) is not None or DEFINITION.match(content):
            masked[start : start + len(content)] = " " * len(content)
        start += len(line)
    # What was blanked becomes a character no name holds, so that no mention runs
    # across it ("Claude [^1] code" is no mention of Claude Code).
    return "".join(m if m == t else "\0" for m, t in zip(masked, text, strict=True))
