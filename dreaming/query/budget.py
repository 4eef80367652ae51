"""The byte budget: everything one call sends a client fits in `BUDGET` bytes.

What counts is the result as it travels: its text, its structured data and any
argument it echoes, as JSON (a quote or a line end in the text costs two bytes
there, a control character six), wrapped as MCP wraps it. So the text is cut to
the room the data leaves, the data holds only what this page shows, an echoed
argument is clipped, and an argument too big to be a name is refused before any
work (`argument`).

A longer text is cut into pages at a boundary: a line end where there is one
(a paragraph break is a line end too), else between words, else between
characters (never inside one). Each page names the read that continues it.
Pages are spans of the one text, so reading every page returns it exactly once.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from json.encoder import encode_basestring as _escaped
from typing import Any, TypeVar

from dreaming.errors import DreamingError

BUDGET = 2048
"""The most bytes one call sends a client: the result's JSON, wrapped for the wire."""
ENVELOPE = 160
"""What a transport wraps around a result's JSON document: MCP's content list and
`isError`, the JSON-RPC version and id (about 110 bytes), with room to spare."""
MAX_ARG_BYTES = 1024
"""No name, heading or search is longer; a longer argument is refused unread."""
MAX_NUMBER = 1_000_000_000
"""No page or message number is bigger (SQLite's integers end at 2**63)."""
MAX_HITS = 50
"""A search returns at most this many hits."""
RANGES = {"page": (1, MAX_NUMBER), "start": (0, MAX_NUMBER), "end": (0, MAX_NUMBER),
          "limit": (1, MAX_HITS)}  # fmt: skip
"""Every number a tool takes, by its argument's name: the lowest and highest allowed."""
NEXT_ARGS = 160
"""A next read repeats its arguments while they take at most this many bytes of JSON;
longer ones are said as `(same arguments)`."""
SHOWN = 120
"""An echoed name, title or heading is clipped to this many bytes of JSON."""
MORE = "→ more: "
"""Starts the last line of a cut result; the read that continues it follows."""
_WIDEST = 9999
"""Stands for a byte count while the room is measured: a text of at most BUDGET bytes."""

T = TypeVar("T")


class QueryError(DreamingError):
    """An argument no tool reads: too long, not text, or a number out of range."""


@dataclass(frozen=True, slots=True)
class Result:
    tool: str
    """resolve, read, section, links, infobox, list, category, status, search, source."""
    text: str
    """What a reader sees: short Markdown."""
    data: dict[str, Any] = field(default_factory=dict)
    """What this page shows in structured form (`--json`, MCP structured content)."""
    next: str | None = None
    """The read that continues a cut result (e.g. `section X "H" page=2`), else None."""

    @property
    def size(self) -> int:
        """Bytes of `text` (every result carries its size)."""
        return nbytes(self.text)

    def document(self) -> dict[str, Any]:
        """The result as `--json` prints it; MCP sends the same parts (the text as its
        content, the rest as structured content)."""
        return {
            "tool": self.tool,
            "text": self.text,
            "data": self.data,
            "next": self.next,
            "bytes": self.size,
        }


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def wire(text: str) -> int:
    """Bytes of `text` inside a JSON string (UTF-8, escapes counted, quotes not)."""
    return len(_escaped(text).encode("utf-8")) - 2


def json_bytes(value: object) -> int:
    """Bytes of `value` as compact JSON, as the MCP SDK and `--json` write it."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def argument(what: str, value: str) -> None:
    """`value` when it can be a name, heading or search; else one line, before any work."""
    try:
        size = nbytes(value)
    except UnicodeEncodeError:
        raise QueryError(f"the {what} is not UTF-8 text; ask by the name as written") from None
    if size > MAX_ARG_BYTES:
        head = quoted(short(value[:MAX_ARG_BYTES], 40))
        raise QueryError(
            f"the {what} {head} is {size:,} bytes, over {MAX_ARG_BYTES:,}: "
            f"ask with a shorter {what}"
        )


def number(what: str, value: int | None) -> None:
    """`value` when it is in the range of the argument `what` (a page, message or hit
    count, see `RANGES`) or not given; else one line naming the range, before any work."""
    if value is not None and not in_range(what, value):
        raise QueryError(f"{span(what)}; ask again with one in that range")


def in_range(what: str, value: int) -> bool:
    low, high = RANGES[what]
    return low <= value <= high


def span(what: str) -> str:
    """What the number argument `what` must be, as a message begins."""
    return f"{what} must be {allowed(what)}"


def allowed(what: str) -> str:
    low, high = RANGES[what]
    return f"a whole number from {low:,} to {high:,}"


def quoted(name: str) -> str:
    """A name as one argument of a `next` read."""
    return json.dumps(name, ensure_ascii=False)


def again(tool: str, args: str, page: int) -> str:
    """The read that continues a result: the same tool and arguments at page `page`;
    arguments too long to repeat within the budget are said as `(same arguments)`."""
    if wire(args) > NEXT_ARGS:
        args = "(same arguments)"
    return " ".join(x for x in (tool, args, f"page={page}") if x)


def short(text: str, limit: int = SHOWN) -> str:
    """`text` on one line, clipped to `limit` bytes of JSON with `…` (an echo, a title)."""
    flat = " ".join(text.split()) if ("\n" in text or "\r" in text) else text
    if wire(flat) <= limit:
        return flat
    return flat[: _fitting_chars(flat, limit - wire("…"))].rstrip() + "…"


def room(tool: str, data: dict[str, Any], nxt: str | None = None, tail: str = "") -> int:
    """Bytes of JSON left for a result's text (before `tail`) once its data, its next
    read and the envelope are counted."""
    widest = Result(tool, tail, {**data, "bytes": _WIDEST}, nxt)
    return BUDGET - json_bytes({**widest.document(), "bytes": _WIDEST}) - ENVELOPE


def result(tool: str, text: str, data: dict[str, Any] | None = None) -> Result:
    """An uncut result; a text over the room its data leaves (which the tools avoid) is
    clipped at a line."""
    data = data or {}
    text = clip(text, room(tool, data))
    return Result(tool, text, {**data, "bytes": nbytes(text)})


def fitting(rows: Iterable[tuple[str, T]], limit: int) -> tuple[list[str], list[T]]:
    """The leading (line, item) rows whose lines and data items together take at most
    `limit` bytes of JSON: a list shown in both the text and the data."""
    lines: list[str] = []
    items: list[T] = []
    used = 0
    for line, item in rows:
        used += wire(line) + 2 + json_bytes(item) + 1
        if used > limit:
            break
        lines.append(line)
        items.append(item)
    return lines, items


def clip(text: str, limit: int) -> str:
    """`text` if it takes at most `limit` bytes of JSON, else its longest head ending at a
    boundary plus `…`."""
    if wire(text) <= limit:
        return text
    head = _head(text, limit - wire("\n…"))
    return head.rstrip() + "\n…"


def _fitting_chars(text: str, limit: int) -> int:
    """How many leading characters of `text` take at most `limit` bytes of JSON (each
    character takes at least one, so only the first `limit` are looked at)."""
    low, high = 0, min(len(text), max(limit, 0))
    while low < high:
        mid = (low + high + 1) // 2
        if wire(text[:mid]) <= limit:
            low = mid
        else:
            high = mid - 1
    return low


def _head(text: str, limit: int) -> str:
    """The longest prefix of `text` within `limit` bytes of JSON, cut at a line end, else
    a space, else a character boundary."""
    cut = text[: _fitting_chars(text, limit)]
    if len(cut) == len(text):
        return cut
    for sep in ("\n", " "):
        at = cut.rfind(sep)
        if at > 0:
            return cut[: at + 1]
    return cut


def spans(
    text: str, cap: int, extra: Callable[[int, int], int] | None = None
) -> list[tuple[int, int]]:
    """`text` as consecutive (start, end) spans, each at most `cap` bytes of JSON (plus
    what `extra` says a span brings along) where a boundary allows it; whole lines are
    packed greedily, a longer line is cut between words."""
    if not text:
        return [(0, 0)]
    out: list[tuple[int, int]] = []
    start = end = used = 0
    for piece in _pieces(text, cap):
        # Escapes are per character, so a span's cost is the sum of its pieces'.
        cost = wire(piece)
        over = used + cost > cap or (
            extra is not None and used + cost + extra(start, end + len(piece)) > cap
        )
        if end > start and over:
            out.append((start, end))
            start, used = end, 0
        end += len(piece)
        used += cost
    out.append((start, end))
    return out


def _pieces(text: str, cap: int) -> list[str]:
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        while wire(line) > cap:
            head = _head(line, cap) or line[0]
            pieces.append(head)
            line = line[len(head) :]
        if line:
            pieces.append(line)
    return pieces


@dataclass(frozen=True, slots=True)
class Listing:
    """A body of lines, some of which stand for an item of the result's data (a stem,
    a field, a link), so a page's data holds the items of the lines it shows."""

    body: str
    keys: tuple[str, ...]
    starts: list[int]
    items: list[tuple[str, object]]

    @classmethod
    def of(
        cls, keys: tuple[str, ...], rows: Iterable[tuple[str, tuple[str, object] | None]]
    ) -> Listing:
        """From (line, (key, item) or None) rows, in order."""
        lines: list[str] = []
        starts: list[int] = []
        items: list[tuple[str, object]] = []
        at = 0
        for line, item in rows:
            if item is not None:
                starts.append(at)
                items.append(item)
            lines.append(line)
            at += len(line) + 1
        return cls("\n".join(lines), keys, starts, items)

    def shown(self, start: int, end: int) -> dict[str, Any]:
        """The items whose lines start in [start, end), by key."""
        out: dict[str, list[object]] = {key: [] for key in self.keys}
        for key, item in self.items[
            bisect_left(self.starts, start) : bisect_left(self.starts, end)
        ]:
            out[key].append(item)
        return out


def page_room(tool: str, header: str, data: dict[str, Any], next_read: Callable[[int], str]) -> int:
    """Bytes of JSON the body of any page under `header` may take."""
    far = next_read(MAX_NUMBER)
    widest = {**data, "page": MAX_NUMBER, "pages": MAX_NUMBER, "span": [10**12, 10**12]}
    return room(tool, widest, far, f"\n\n{MORE}{far}") - wire(f"{header}\n")


def paged(
    tool: str,
    *,
    header: str,
    body: str,
    page: int,
    next_read: Callable[[int], str],
    data: dict[str, Any],
    extras: Callable[[str], list[str]] | None = None,
    shown: Callable[[int, int], dict[str, Any]] | None = None,
) -> Result:
    """Page `page` of `body` under `header`: the lines `extras` gives for a page's text
    (its footnotes) follow it while they fit, `shown` gives the data of a page's span
    (the items it lists); a page that is not the last ends with the read that continues
    it. `data` gains page, pages, span and bytes."""

    def extra(start: int, end: int) -> int:
        total = 0
        if extras is not None:
            total += sum(wire(x) + 2 for x in extras(body[start:end])) + 4
        if shown is not None:
            total += json_bytes(shown(start, end))
        return total

    cap = max(page_room(tool, header, data, next_read), BUDGET // 8)
    cuts = spans(body, cap, extra if extras or shown else None)
    pages = len(cuts)
    if not 1 <= page <= pages:
        text = f"{header}\nThere is no page {page}: pages 1 to {pages}. Read {next_read(1)}."
        return result(
            tool, text, {**data, **(shown(0, 0) if shown else {}), "page": page, "pages": pages}
        )
    start, end = cuts[page - 1]
    part = body[start:end]
    lines = part.lstrip("\n").rstrip()
    text = f"{header}\n{lines}" if lines else header
    nxt = next_read(page + 1) if page < pages else None
    tail = f"\n\n{MORE}{nxt}" if nxt else ""
    more = {
        **(shown(start, end) if shown else {}),
        "page": page,
        "pages": pages,
        "span": [start, end],
    }
    left = room(tool, {**data, **more}, nxt, tail)
    notes: list[str] = []
    for line in extras(part) if extras else []:
        if wire(text + "\n\n" + "\n".join([*notes, line])) > left:
            break
        notes.append(line)
    if notes:
        text += "\n\n" + "\n".join(notes)
    text = clip(text, left) + tail
    return Result(tool, text, {**data, **more, "bytes": nbytes(text)}, nxt)
