"""Where an article's parts lie in its text, by line.

The line map that parsing and section surgery share: where the frontmatter
ends, which lines are ATX headings (outside code and frontmatter), which is
the H1, and how a run of lines splits into blank margins and content. It
works on lines with their endings kept, so every position it gives slices the
original text byte for byte.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.fences import (
    is_blank,
    line_content,
    line_ending,
    mask_code,
    repair_fences,
    split_lines,
)
from dreaming.article.markup import atx_heading

BOM = "\ufeff"
"""A byte-order mark some editors put first in a file; it is no part of the first line's content."""


def _probe(lines: Sequence[str], i: int) -> str:
    """Line i as the grammar reads it: without a leading BOM on the first line."""
    return lines[i].removeprefix(BOM) if i == 0 else lines[i]


@dataclass(frozen=True)
class Layout:
    lines: tuple[str, ...]
    fm_end: int
    """The line after the frontmatter (0 when there is none)."""
    headings: tuple[tuple[int, int, str], ...]
    """(line index, level, text) of every ATX heading outside code and frontmatter."""
    title_line: int | None
    """The H1 that titles the article: the first `#`/`##` heading, when it is an H1."""


def _frontmatter_end(lines: Sequence[str]) -> int:
    if not lines or line_content(_probe(lines, 0)).rstrip(" \t") != "---":
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


def close_fences(text: str) -> str:
    """The text with a fence it leaves open closed at its end, as NORMALIZE first makes it.

    The gate reads an edit's `before` through this too: closing at the end changes no
    reading, so it is no change to the part that held the open fence."""
    bom = BOM if text.startswith(BOM) else ""
    frontmatter, body = split_frontmatter(text[len(bom) :])
    return bom + frontmatter + repair_fences(body)


@functools.lru_cache(maxsize=32)
def layout(text: str) -> Layout:
    """Cached (a Layout is immutable): the gate finds each section an edit touched in
    the text before and after it, and laying a text out twice was most of its cost."""
    lines = split_lines(text)
    fm_end = _frontmatter_end(lines)
    # Code and comments are blanked in the mask: a heading there is no heading.
    body = "".join(lines[fm_end:])
    bom = BOM if body.startswith(BOM) else ""
    masked = lines[:fm_end] + split_lines(bom + mask_code(body[len(bom) :]))
    headings = []
    for i in range(fm_end, len(lines)):
        if atx_heading(_probe(masked, i)) and (h := atx_heading(_probe(lines, i))):
            headings.append((i, h[0], h[1]))
    top = [h for h in headings if h[1] <= 2]
    title_line = top[0][0] if top and top[0][1] == 1 else None
    return Layout(tuple(lines), fm_end, tuple(headings), title_line)


def split_block(lines: Sequence[str]) -> tuple[str, str, str]:
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


def _to_eol(text: str, eol: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\n", eol) if eol != "\n" else text


def clean_block(text: str, eol: str) -> str:
    """Text as a part's content: the article's line endings, no blank lines around it."""
    return split_block(split_lines(_to_eol(text, eol)))[1]
