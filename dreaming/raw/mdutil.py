"""Markdown helpers the text readers share: frontmatter, code fences, turn assembly."""

from __future__ import annotations

import re
from collections.abc import Sequence
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


def split_frontmatter(path: Path, text: str) -> tuple[dict[str, str], str]:
    """YAML frontmatter (as strings) and the body after it."""
    if not text.startswith("---"):
        return {}, text
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return {}, text
    m = re.search(r"^(?:---|\.\.\.)[ \t]*$", text[first_nl + 1 :], re.M)
    if m is None:
        return {}, text
    block = text[first_nl + 1 : first_nl + 1 + m.start()]
    body = text[first_nl + 1 + m.end() :]
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
        return {}, body
    return {str(k): v for k, v in data.items() if isinstance(v, str) and v.strip()}, body


def fence_mask(lines: list[str]) -> list[bool]:
    """True for lines inside a fenced code block (fence lines included).

    Which lines open and close a fence is dreaming.article.fences' rule, the same one articles
    follow. One thing differs on purpose: an opening fence that is never closed is
    ordinary text here. Exported logs often cut a reply off mid-code, and the unclosed
    fence must not swallow every turn after it.
    """
    # dreaming.article.fences reads lines with their endings; a CRLF log split on "\n" keeps its
    # "\r", which must count as the line ending, not as an info string.
    ended = [line + "\n" for line in lines]
    runs = [fence_run(line) for line in ended]
    n = len(lines)
    # longest[c][k]: the longest bare fence of char c at line k or below (0: none), so an
    # opening fence with no closer is known at once and the scan stays linear.
    longest = {"`": [0] * (n + 1), "~": [0] * (n + 1)}
    for k in range(n - 1, -1, -1):
        for below in longest.values():
            below[k] = below[k + 1]
        run = runs[k]
        if run is not None and closes_fence(ended[k], run):
            longest[run[0]][k] = max(longest[run[0]][k], len(run))
    mask = [False] * n
    i = 0
    while i < n:
        run = runs[i]
        if run is None or longest[run[0]][i + 1] < len(run):
            i += 1
            continue
        j = next(k for k in range(i + 1, n) if closes_fence(ended[k], run))
        mask[i : j + 1] = [True] * (j + 1 - i)
        i = j + 1
    return mask


def stamp_in(text: str) -> str | None:
    m = _STAMP_RE.search(text)
    return iso(m.group(0).replace(" ", "T")) if m else None


def build(
    lines: list[str], markers: Sequence[tuple[int, Role, str, str | None]], end: int | None = None
) -> list[Message]:
    """Messages from turn markers (line index, role, text on the marker line, timestamp)."""
    out: list[Message] = []
    stop = len(lines) if end is None else end
    for k, (idx, role, inline, ts) in enumerate(markers):
        nxt = markers[k + 1][0] if k + 1 < len(markers) else stop
        body = "\n".join([inline, *lines[idx + 1 : nxt]]).strip()
        if body:
            out.append(Message(role=role, text=body, timestamp=ts))
    return out
