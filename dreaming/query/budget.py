"""The byte budget: every tool result's text fits in `BUDGET` bytes of UTF-8.

A longer text is cut into pages at a boundary: a line end where there is one
(a paragraph break is a line end too), else between words, else between
characters (never inside one). Each page names the read that continues it.
Pages are spans of the one text, so reading every page returns it exactly once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BUDGET = 2048
"""The most bytes (UTF-8) of text one tool result carries."""
MORE = "→ more: "
"""Starts the last line of a cut result; the read that continues it follows."""


@dataclass(frozen=True, slots=True)
class Result:
    tool: str
    """resolve, read, section, links, infobox, list, category, status, search, source."""
    text: str
    """What a reader sees: short Markdown, at most BUDGET bytes."""
    data: dict[str, Any] = field(default_factory=dict)
    """The same in structured form (`--json`, MCP structured content)."""
    next: str | None = None
    """The read that continues a cut result (e.g. `section X "H" page=2`), else None."""

    @property
    def size(self) -> int:
        """Bytes of `text` (every result carries its size)."""
        return len(self.text.encode("utf-8"))


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def quoted(name: str) -> str:
    """A name as one argument of a `next` read."""
    return json.dumps(name, ensure_ascii=False)


def result(tool: str, text: str, data: dict[str, Any] | None = None) -> Result:
    """An uncut result; a text over the budget (which the tools avoid) is clipped at a line."""
    text = clip(text, BUDGET)
    return Result(tool, text, {**(data or {}), "bytes": nbytes(text)})


def clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` bytes, else its longest head ending at a boundary plus `…`."""
    if nbytes(text) <= limit:
        return text
    head = _head(text, limit - nbytes("\n…"))
    return head.rstrip() + "\n…"


def _head(text: str, limit: int) -> str:
    """The longest prefix of `text` within `limit` bytes, cut at a line end, else a space,
    else a character boundary."""
    cut = text.encode("utf-8")[: max(limit, 0)].decode("utf-8", "ignore")
    if len(cut) == len(text):
        return cut
    for sep in ("\n", " "):
        at = cut.rfind(sep)
        if at > 0:
            return cut[: at + 1]
    return cut


def spans(text: str, cap: int, cost: Callable[[str], int] = nbytes) -> list[tuple[int, int]]:
    """`text` as consecutive (start, end) spans, each `cost` at most `cap` where a boundary
    allows it; whole lines are packed greedily, a longer line is cut between words."""
    if not text:
        return [(0, 0)]
    out: list[tuple[int, int]] = []
    start = end = 0
    for piece in _pieces(text, cap):
        if end > start and cost(text[start : end + len(piece)]) > cap:
            out.append((start, end))
            start = end
        end += len(piece)
    out.append((start, end))
    return out


def _pieces(text: str, cap: int) -> list[str]:
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        while nbytes(line) > cap:
            head = _head(line, cap) or line[0]
            pieces.append(head)
            line = line[len(head) :]
        if line:
            pieces.append(line)
    return pieces


def paged(
    tool: str,
    *,
    header: str,
    body: str,
    page: int,
    next_read: Callable[[int], str],
    data: dict[str, Any],
    extras: Callable[[str], list[str]] | None = None,
) -> Result:
    """Page `page` of `body` under `header`: the lines `extras` gives for a page's text
    (its footnotes) follow it while they fit; a page that is not the last ends with the
    read that continues it. `data` gains page, pages, span and bytes."""
    reserve = nbytes(header) + nbytes(f"\n\n{MORE}{next_read(10**6)}") + 2

    def cost(part: str) -> int:
        return nbytes(part) + sum(nbytes(x) + 1 for x in (extras(part) if extras else []))

    cap = max(BUDGET - reserve, BUDGET // 4)
    cuts = spans(body, cap, cost if extras else nbytes)
    pages = len(cuts)
    if not 1 <= page <= pages:
        text = f"{header}\nThere is no page {page}: pages 1 to {pages}. Read {next_read(1)}."
        return result(tool, text, {**data, "page": page, "pages": pages})
    start, end = cuts[page - 1]
    part = body[start:end]
    text = f"{header}\n{part.rstrip()}" if part.strip() else header
    nxt = next_read(page + 1) if page < pages else None
    tail = f"\n\n{MORE}{nxt}" if nxt else ""
    notes: list[str] = []
    for line in extras(part) if extras else []:
        if nbytes(text) + nbytes("\n\n" + "\n".join([*notes, line]) + tail) > BUDGET:
            break
        notes.append(line)
    if notes:
        text += "\n\n" + "\n".join(notes)
    text = clip(text, BUDGET - nbytes(tail)) + tail
    more = {"page": page, "pages": pages, "span": [start, end], "bytes": nbytes(text)}
    return Result(tool, text, {**data, **more}, nxt)
