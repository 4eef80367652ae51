"""The one fence scanner: which lines of a text sit inside a fenced code block.

Every module that edits or reads article text (article, normalize, gate, the
link stages) asks this module, so they all agree on "inside a code block": a
`# heading` or a `[^1]: ...` line inside a fence is code, never structure.
The Markdown transcript readers (raw.mdutil) ask it too, which lines open and
close a fence; they only treat a fence that is never closed differently.

We scan by hand instead of asking mistune because the callers need byte-exact
line positions to splice text back together unchanged; mistune's AST gives
tokens, not the line offsets they came from.

A line ends with "\\n", "\\r\\n" or a lone "\\r" (old Mac files), as in
CommonMark; "\\r\\n" is one ending, never two. Lines keep their endings, so
"".join(split_lines(text)) == text and positions computed here line up with
plain string slicing. Code that reads text line by line asks split_lines
rather than `str.split("\\n")`, which would read a CR-only file as one line.
Only top-level fences count (indented at most three spaces, as CommonMark says);
fences nested inside list items or block quotes are ordinary text to us.
Comments (`<!-- … -->`, Obsidian's `%% … %%`) are hidden from readers like
code is, so mask_code blanks them too.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_EOL = re.compile(r"(\r\n|\r|\n)")
_BACKTICKS = re.compile(r"`+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.DOTALL)
_CLOSING = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its line ending; "".join(result) == text."""
    parts = _EOL.split(text)
    lines = [parts[k] + parts[k + 1] for k in range(0, len(parts) - 1, 2)]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_ending(line: str) -> str:
    """The line ending: "\\r\\n", "\\n", "\\r", or "" (a last line without one)."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""


def line_content(line: str) -> str:
    """The line without its line ending."""
    return line[: len(line) - len(line_ending(line))]


def is_blank(line: str) -> bool:
    """A CommonMark blank line: nothing but spaces and tabs."""
    return line_content(line).strip(" \t") == ""


def detect_eol(text: str) -> str:
    """The text's line ending, judged by its first line break ("\\n" when it has none)."""
    m = _EOL.search(text)
    return m.group() if m else "\n"


def ends_line(text: str) -> bool:
    """Whether the text ends with a line ending (of any kind)."""
    return text.endswith(("\n", "\r"))


def add_eol(text: str, eol: str) -> str:
    """`text` plus a line ending that cannot merge with the one before it.

    After a lone "\\r", a "\\n" would join it into one "\\r\\n" ending, and
    the blank line meant to separate two parts would vanish.
    """
    return text + ("\r" if text.endswith("\r") and eol.startswith("\n") else eol)


def _opening(line: str) -> tuple[str, str] | None:
    """(fence run, info string) when the line can open a fence."""
    m = _FENCE.match(line_content(line))
    if m is None:
        return None
    run, info = m.group(1), m.group(2)
    # CommonMark: a backtick fence's info string may not contain a backtick
    # (otherwise "```foo`" would be an inline code span, not a fence).
    if run[0] == "`" and "`" in info:
        return None
    return run, info.strip()


def _closes(line: str, run: str) -> bool:
    m = _CLOSING.match(line_content(line))
    return m is not None and m.group(1)[0] == run[0] and len(m.group(1)) >= len(run)


def is_fence_line(line: str) -> bool:
    """Whether the line has the shape of a fence (``` or ~~~, three or more)."""
    return _opening(line) is not None


def fence_run(line: str) -> str | None:
    """The run a fence line opens with (e.g. "```" or "~~~~"); None if the line is not a fence."""
    opened = _opening(line)
    return opened[0] if opened is not None else None


def closes_fence(line: str, run: str) -> bool:
    """Whether the line closes a fence opened by `run`: a bare run of its char, at least as long."""
    return _closes(line, run)


def fence_label(line: str) -> str | None:
    """The first word of a fence line's info string ("" for a bare fence); None if not a fence."""
    opened = _opening(line)
    if opened is None:
        return None
    words = opened[1].split()
    return words[0] if words else ""


@dataclass(frozen=True)
class FenceBlock:
    """One fenced block: lines[start:end] (fence lines included)."""

    start: int
    end: int
    run: str
    """The opening run, e.g. "```" or "~~~~"; a closing fence must match its char and be as long."""
    label: str
    closed: bool


def fence_blocks(lines: Sequence[str]) -> list[FenceBlock]:
    """Every fenced block among `lines`, in order; an unclosed one runs to the end."""
    blocks: list[FenceBlock] = []
    i, n = 0, len(lines)
    while i < n:
        opened = _opening(lines[i])
        if opened is None:
            i += 1
            continue
        run, info = opened
        label = info.split()[0] if info.split() else ""
        j = i + 1
        while j < n and not _closes(lines[j], run):
            j += 1
        closed = j < n
        end = j + 1 if closed else n
        blocks.append(FenceBlock(i, end, run, label, closed))
        i = end
    return blocks


def code_flags(lines: Sequence[str]) -> list[bool]:
    """For each line: True when it is part of a fenced block (fence lines included)."""
    flags = [False] * len(lines)
    for block in fence_blocks(lines):
        for k in range(block.start, block.end):
            flags[k] = True
    return flags


def scan_lines(text: str) -> Iterator[tuple[str, bool]]:
    """Yield (line, inside_code) for every line of `text`, line endings kept."""
    lines = split_lines(text)
    yield from zip(lines, code_flags(lines), strict=True)


def dangling_fence(text: str) -> str | None:
    """The opening run of a fence that is never closed, or None."""
    blocks = fence_blocks(split_lines(text))
    if blocks and not blocks[-1].closed:
        return blocks[-1].run
    return None


def repair_fences(text: str) -> str:
    """Close a dangling fence at the end of the text, with the run that opened it.

    Closing at the very end changes no reading: CommonMark already treats
    everything after an unclosed fence as code. It only makes that explicit,
    so that text appended later is not swallowed.
    """
    run = dangling_fence(text)
    if run is None:
        return text
    eol = detect_eol(text)
    if ends_line(text):
        return text + run + eol
    return add_eol(text, eol) + run


def _mask_inline(content: str) -> str:
    """Blank out inline code spans (backtick runs closed by a run of the same length)."""
    # Where each width of backtick run starts (maximal runs; a closing run may
    # follow a backslash). Looking a closer up here instead of scanning ahead
    # keeps lines full of unmatched runs linear.
    runs: dict[int, list[int]] = {}
    for m in _BACKTICKS.finditer(content):
        runs.setdefault(m.end() - m.start(), []).append(m.start())
    out = list(content)
    i, n = 0, len(content)
    while i < n:
        ch = content[i]
        if ch == "\\":
            i += 2
            continue
        if ch != "`":
            i += 1
            continue
        j = i
        while j < n and content[j] == "`":
            j += 1
        width = j - i
        starts = runs.get(width, [])
        at = bisect.bisect_left(starts, j)
        if at == len(starts):
            i = j
            continue
        close = starts[at]
        for p in range(i, close + width):
            out[p] = " "
        i = close + width
    return "".join(out)


_COMMENTS = (("<!--", "-->"), ("%%", "%%"))
"""HTML comments and Obsidian comments: hidden from readers, so no part of the structure."""


def _starts_line(text: str, at: int) -> bool:
    """Whether only up to three spaces stand between the line's start and `at`."""
    i = at
    while i > 0 and at - i < 3 and text[i - 1] == " ":
        i -= 1
    return i == 0 or text[i - 1] in "\r\n"


def comment_spans(masked: str) -> list[tuple[int, int]]:
    """[start, end) of every closed comment in text whose code is already masked.

    A comment that spans lines must open at the start of a line (as an HTML
    block does); one closed on its own line may stand anywhere. So rewriting
    a one-line part (a title, a heading) can never open or close a comment
    around the lines after it. A comment never closed is left as text:
    reading the rest as hidden would hide sections and citations from every check.
    """
    seen: dict[str, tuple[int, int]] = {}

    def find(needle: str, pos: int) -> int:
        # Searches start ever further on, so a remembered hit is reused until
        # passed and the scans add up to about one pass over the text.
        since, hit = seen.get(needle, (-1, -1))
        if since < 0 or pos < since or 0 <= hit < pos:
            hit = masked.find(needle, pos)
            seen[needle] = (pos, hit)
        return hit

    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        found = [(n, k) for k, (o, _) in enumerate(_COMMENTS) if (n := find(o, pos)) >= 0]
        if not found:
            return spans
        start, k = min(found)
        opener, closer = _COMMENTS[k]
        end = find(closer, start + len(opener))
        breaks = [n for n in (find("\n", start), find("\r", start)) if n >= 0]
        spans_lines = end >= 0 and bool(breaks) and min(breaks) < end
        if end < 0 or (spans_lines and not _starts_line(masked, start)):
            pos = start + len(opener)
            continue
        spans.append((start, end + len(closer)))
        pos = end + len(closer)


def _blank(text: str) -> str:
    return "".join(c if c in "\r\n" else " " for c in text)


def mask_code(text: str, *, inline: bool = True) -> str:
    """`text` with code and comments replaced by spaces, same length, line endings kept.

    Fenced blocks (fence lines too) and closed comments (`<!-- … -->`,
    `%% … %%`) are always blanked; inline code spans too unless
    `inline=False`. Regexes run on the mask find only prose, and their match
    offsets index the original text. Code spans are matched within one line:
    a span broken across lines is left as text (a rare, harmless miss).
    """
    if "`" not in text and "~~~" not in text and "<!--" not in text and "%%" not in text:
        return text  # nothing to mask: no fence, code span or comment can start
    return _mask(text, inline)


def forget_masks() -> None:
    """Empty mask_code's cache: a timing test must measure the masking, not the cache."""
    _mask.cache_clear()


@functools.lru_cache(maxsize=64)
def _mask(text: str, inline: bool) -> str:
    # Cached: parsing and indexing one article masks the same section text several
    # times over (links, footnotes, categories each ask).
    fenced: list[str] = []
    spans: list[str] = []
    for line, in_code in scan_lines(text):
        content = line_content(line)
        ending = line[len(content) :]
        if in_code:
            fenced.append(" " * len(content) + ending)
            spans.append(fenced[-1])
        else:
            fenced.append(line)
            spans.append(_mask_inline(content) + ending if "`" in content else line)
    full = "".join(spans)
    out = full if inline else "".join(fenced)
    if "<!--" not in full and "%%" not in full:
        return out
    pieces, pos = [], 0
    for start, end in comment_spans(full):
        pieces += [out[pos:start], _blank(out[start:end])]
        pos = end
    return "".join(pieces) + out[pos:]
