"""Markdown helpers the text readers share: frontmatter, lines, code fences, turn assembly.

A reader goes over a transcript's lines twice: once to find its turns, once to build
their bodies. The lines come from a text a megabyte at a time, or from the file itself
when it is big, so a reader holds the messages it makes and one turn's lines, never a
list of every line beside them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from dreaming import frontmatter
from dreaming.article.fences import closes_fence, fence_run
from dreaming.errors import TranscriptError
from dreaming.raw import deadline
from dreaming.raw.common import iso
from dreaming.transcript import Message, Role

_STAMP_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_FM_END_RE = re.compile(r"(?:---|\.\.\.)[ \t]*")


FRONTMATTER_MAX = 64 * 1024
"""Characters a frontmatter block may hold before its closing line."""


def read_frontmatter(path: Path, lines: Iterable[str]) -> tuple[dict[str, str], int]:
    """YAML frontmatter (as strings) and the index of the first body line after it
    (0 when there is none)."""
    it = iter(lines)
    first = next(it, None)
    if first is None or not first.startswith("---") or first.strip() != "---":
        return {}, 0
    block: list[str] = []
    held = 0
    for line in it:
        if _FM_END_RE.fullmatch(line):
            break
        held += len(line) + 1
        if held > FRONTMATTER_MAX:
            # No log's metadata is this long: a "---" line opening the text, never closed
            # in time, is text, and its lines are not all held while the close is sought.
            return {}, 0
        block.append(line)
    else:
        return {}, 0
    start = len(block) + 2
    try:
        data: Any = frontmatter.load("\n".join(block) + "\n")
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
        return {}, start
    return {str(k): v for k, v in data.items() if isinstance(v, str) and v.strip()}, start


_CHUNK = 1 << 20


Rereadable = Callable[[], Iterator[str]]
"""A transcript's lines without their "\\n", read afresh from the start at each call."""


def lines_of(text: str) -> Iterator[str]:
    """The lines of `text` without their "\\n", as `text.split("\\n")` gives them. A
    megabyte is split at a time, so the lines of a big text are never all held at once."""
    pos = 0
    while True:
        deadline.check()
        cut = text.find("\n", min(pos + _CHUNK, len(text)))
        if cut < 0:
            yield from text[pos:].split("\n")
            return
        yield from text[pos:cut].split("\n")
        pos = cut + 1


def text_lines(text: str) -> Rereadable:
    return lambda: lines_of(text)


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


Marker = tuple[int, Role, str, str | None]
"""A turn: the index of its label line, the role, the text on that line, the timestamp."""


def build(lines: Iterable[str], markers: Sequence[Marker]) -> list[Message]:
    """Messages from turn markers: each body runs from its label line's text to the line
    before the next marker, as `"\\n".join([inline, *lines]).strip()`."""
    out: list[Message] = []
    if not markers:
        return out
    k, body = -1, _Body("")
    upcoming = markers[0][0]
    for index, line in enumerate(lines):
        if index == upcoming:
            if k >= 0 and (text := body.text()):
                out.append(Message(role=markers[k][1], text=text, timestamp=markers[k][3]))
            k += 1
            body = _Body(markers[k][2])
            upcoming = markers[k + 1][0] if k + 1 < len(markers) else -1
        elif k >= 0:
            body.add(line)
    if k >= 0 and (text := body.text()):
        out.append(Message(role=markers[k][1], text=text, timestamp=markers[k][3]))
    return out


class _Body:
    """A turn's lines, stripped as they come: blank lines before the first words and
    after the last are never kept, so the joined body is the only copy made."""

    def __init__(self, first: str) -> None:
        self.parts: list[str] = []
        self.blank: list[str] = []
        self.add(first)

    def add(self, line: str) -> None:
        if not line or line.isspace():
            if self.parts:
                self.blank.append(line)
            return
        if not self.parts:
            line = line.lstrip()
        elif self.blank:
            self.parts += self.blank
            self.blank.clear()
        self.parts.append(line)

    def text(self) -> str:
        if not self.parts:
            return ""
        self.parts[-1] = self.parts[-1].rstrip()
        return "\n".join(self.parts)


def turns(
    lines: Rereadable, start: int, label: Callable[[str], tuple[Role, str | None] | None]
) -> list[Message]:
    """The messages from line `start` on whose turns start at the lines `label` names
    (with their role and timestamp), outside code fences."""
    fences = Fences()
    found: list[Marker] = []
    for index, line in enumerate(lines()):
        if index < start:
            continue
        if line[:1] in FENCE_START:
            fences.see(index, line)
        if (said := label(line)) is not None:
            found.append((index, said[0], "", said[1]))
    fences.close()
    return build(lines(), [marker for marker in found if not fences.masked(marker[0])])
