"""Markdown helpers the text readers share: frontmatter, lines, code fences, turn assembly.

A transcript of hundreds of megabytes is read in place: its lines are visited a
megabyte at a time and a turn's body is one slice of the text, so a reader holds the
text and the messages it makes, never a list of every line beside them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from dreaming import frontmatter
from dreaming.article.fences import closes_fence, fence_run
from dreaming.errors import TranscriptError
from dreaming.raw.common import iso
from dreaming.transcript import Message, Role

_STAMP_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_FM_END_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)


def read_frontmatter(path: Path, text: str) -> tuple[dict[str, str], int]:
    """YAML frontmatter (as strings) and where the body after it starts."""
    if not text.startswith("---"):
        return {}, 0
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return {}, 0
    # Searched from a position, not on a slice: a slice would copy the whole file.
    m = _FM_END_RE.search(text, first_nl + 1)
    if m is None:
        return {}, 0
    block = text[first_nl + 1 : m.start()]
    try:
        data: Any = frontmatter.load(block)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise TranscriptError(
            path, f"frontmatter is not valid YAML{where}; fix it or remove the --- block"
        ) from None
    except frontmatter.TooDeep:
        raise TranscriptError(
            path,
            f"frontmatter is nested more than {frontmatter.MAX_DEPTH} levels deep; "
            "flatten it or remove the --- block",
        ) from None
    if not isinstance(data, dict):
        return {}, m.end()
    return {str(k): v for k, v in data.items() if isinstance(v, str) and v.strip()}, m.end()


def split_frontmatter(path: Path, text: str) -> tuple[dict[str, str], str]:
    """YAML frontmatter (as strings) and the body after it."""
    fm, start = read_frontmatter(path, text)
    return fm, text[start:]


_CHUNK = 1 << 20


def lines_of(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(offset, line) for each line of `text[start:]`, without its "\\n", as
    `text[start:].split("\\n")` gives them. A megabyte is split at a time, so the
    lines of a big file are never all held at once."""
    pos = start
    while True:
        cut = text.find("\n", min(pos + _CHUNK, len(text)))
        block = text[pos:] if cut < 0 else text[pos:cut]
        for line in block.split("\n"):
            yield pos, line
            pos += len(line) + 1
        if cut < 0:
            return


FENCE_START = "`~ "


class Fences:
    """Which lines sit inside a fenced code block, learnt from the lines shown in order.

    Which lines open and close a fence is dreaming.article.fences' rule, the same one
    articles follow. One thing differs on purpose: an opening fence that is never closed
    is ordinary text here. Exported logs often cut a reply off mid-code, and the unclosed
    fence must not swallow every turn after it. Only fence lines are kept.
    """

    def __init__(self) -> None:
        self._fences: list[tuple[int, str, bool]] = []
        self._starts: list[int] = []
        self._ends: list[int] = []

    def see(self, index: int, line: str) -> None:
        """Note the line if it is a fence; a caller may skip lines not starting with one
        of FENCE_START, which cannot be."""
        if line[:4].lstrip(" ")[:1] not in ("`", "~"):
            return
        # dreaming.article.fences reads lines with their endings; a CRLF log split on
        # "\n" keeps its "\r", which must count as the line ending, not an info string.
        ended = line + "\n"
        run = fence_run(ended)
        if run is not None:
            self._fences.append((index, run, closes_fence(ended, run)))

    def close(self) -> None:
        """Pair the fences: an opening one with a closer below it masks up to that closer."""
        fences = self._fences
        n = len(fences)
        # longest[c][k]: the longest bare fence of char c at fence k or after (0: none), so
        # an opening fence with no closer is known at once and the pairing stays linear.
        longest = {"`": [0] * (n + 1), "~": [0] * (n + 1)}
        for k in range(n - 1, -1, -1):
            for after in longest.values():
                after[k] = after[k + 1]
            _, run, bare = fences[k]
            if bare:
                longest[run[0]][k] = max(longest[run[0]][k], len(run))
        k = 0
        while k < n:
            index, run, _ = fences[k]
            if longest[run[0]][k + 1] < len(run):
                k += 1
                continue
            j = next(
                j
                for j in range(k + 1, n)
                if fences[j][2] and fences[j][1][0] == run[0] and len(fences[j][1]) >= len(run)
            )
            self._starts.append(index)
            self._ends.append(fences[j][0])
            k = j + 1
        self._fences = []

    def masked(self, index: int) -> bool:
        k = bisect.bisect_right(self._starts, index) - 1
        return k >= 0 and index <= self._ends[k]


def stamp_in(text: str) -> str | None:
    m = _STAMP_RE.search(text)
    return iso(m.group(0).replace(" ", "T")) if m else None


Marker = tuple[int, int, Role, str, str | None]
"""A turn: where its label line starts, where the line after it starts, the role, the
text on the label line, the timestamp."""


def build(text: str, markers: Sequence[Marker]) -> list[Message]:
    """Messages from turn markers: each body runs to the line before the next marker."""
    out: list[Message] = []
    for k, (_, after, role, inline, ts) in enumerate(markers):
        stop = markers[k + 1][0] - 1 if k + 1 < len(markers) else len(text)
        body = _body(text, inline, after, stop)
        if body:
            out.append(Message(role=role, text=body, timestamp=ts))
    return out


def _body(text: str, inline: str, start: int, stop: int) -> str:
    """`(inline + "\\n" + text[start:stop]).strip()`, with one copy of the slice."""
    lo, hi = _stripped(text, start, stop)
    if lo >= hi:
        return inline.strip()
    head = inline.lstrip()
    if not head:
        return text[lo:hi]
    return head + "\n" + text[start:hi]


_STEP = 4096


def _stripped(text: str, start: int, stop: int) -> tuple[int, int]:
    """The bounds of `text[start:stop]` without its leading and trailing whitespace,
    found a few kilobytes at a time."""
    lo = start
    while lo < stop:
        piece = text[lo : min(lo + _STEP, stop)]
        kept = piece.lstrip()
        lo += len(piece) - len(kept)
        if kept:
            break
    hi = stop
    while hi > lo:
        piece = text[max(lo, hi - _STEP) : hi]
        kept = piece.rstrip()
        hi -= len(piece) - len(kept)
        if kept:
            break
    return lo, hi


def turns(
    text: str, start: int, label: Callable[[str], tuple[Role, str | None] | None]
) -> list[Message]:
    """The messages of `text[start:]` whose turns start at the lines `label` names (with
    their role and timestamp), outside code fences."""
    fences = Fences()
    found: list[tuple[int, Marker]] = []
    for index, (at, line) in enumerate(lines_of(text, start)):
        if line[:1] in FENCE_START:
            fences.see(index, line)
        if (said := label(line)) is not None:
            found.append((index, (at, at + len(line) + 1, said[0], "", said[1])))
    fences.close()
    return build(text, [marker for index, marker in found if not fences.masked(index)])
