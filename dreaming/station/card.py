"""STATION.md, the pickup ticket, as text: find its `| Field | Value |` table and heat it.

Pure functions. Heat rewrites the stock rows only; every other byte of the card (the
frontmatter, unknown rows, `## Durable`, `## Seed`, anything else) stays as written.
A heat whose stock values are already on the card returns the text unchanged, so a hot
card is never rewritten. Every scan is a single pass over lines or characters: the
card is the person's text and may be anything.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import yaml

from dreaming import frontmatter
from dreaming.article.fences import line_content, line_ending, split_lines
from dreaming.article.linking import page_link
from dreaming.errors import DreamingError

CARD = "STATION.md"
MAX_CARD_BYTES = 64 * 1024
INTENT_CHARS = 240
MAX_WORKING = 4
PLANE = "record-map"
NONE = "—"
STOCK = ("Intent", "Git", "Working", "Cascade", "Heated")
OLD_NAMES = {"branch": "Git", "updated": "Heated"}
"""The seed card's first names for two stock rows, renamed in place by a heat."""
_ENDS = ("## durable", "## seed")
_ELLIPSIS = "…"


class CardProblem(DreamingError):
    """Why a card cannot be heated: one line naming STATION.md and the fix."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What heat writes besides the person's intent."""

    git: str
    articles: Sequence[str]
    """Article stems that Working may name."""
    notes: int
    """Current notes in the notes index."""
    heated: str
    """Local time, YYYY-MM-DD HH:MM."""


@dataclass(slots=True)
class _Row:
    key: str
    value: str
    line: str
    """The row as written, line ending included."""


def cascade(notes: int) -> str:
    return f"{PLANE} · notes {notes} current"


def heat(data: bytes, facts: Facts) -> bytes:
    """The card heated with `facts`: `data` itself when already hot. Raises CardProblem."""
    lines, header, end = _table(data)
    rows = [_parse_row(line) for line in lines[header + 2 : end]]
    fresh = _heated_rows(rows, facts, _eol(lines, header))
    if fresh is None:
        return data
    return "".join([*lines[: header + 2], *(r.line for r in fresh), *lines[end:]]).encode()


def is_heat_of(before: bytes, after: bytes, git: str, articles: Sequence[str]) -> bool:
    """Whether `after` is `before` heated with `git` and `articles`, at the time and notes
    count that `after` shows: bytes only a heat writes, never a person's edit."""
    try:
        lines, header, end = _table(after)
        rows = {r.key: r.value for r in map(_parse_row, lines[header + 2 : end])}
        notes = int(rows["Cascade"].removeprefix(f"{PLANE} · notes ").removesuffix(" current"))
        return heat(before, Facts(git, articles, notes, rows["Heated"])) == after
    except (CardProblem, KeyError, ValueError):
        return False


def clip(text: str, limit: int = INTENT_CHARS) -> str:
    """`text` in at most `limit` characters, cut between grapheme clusters, ending in `…`."""
    if len(text) <= limit:
        return text
    cut = limit - len(_ELLIPSIS)
    while cut > 0 and not _boundary(text, cut):
        cut -= 1
    head = text[:cut].rstrip()
    # A cut between `\` and the `|` it escapes would leave a dangling backslash.
    trailing = len(head) - len(head.rstrip("\\"))
    if trailing % 2:
        head = head[:-1]
    return head + _ELLIPSIS


def working(intent: str, articles: Iterable[str]) -> list[str]:
    """At most MAX_WORKING article stems named in `intent`: whole words or phrases, case
    folded, the longest name winning where two overlap, in order of appearance."""
    hay = unicodedata.normalize("NFC", intent.replace("\\|", "|")).casefold()
    names = sorted(
        {
            _phrase(stem): stem
            for stem in sorted(articles)
            if _linkable(stem) and _phrase(stem).strip()
        }.items(),
        key=lambda item: (-len(item[0]), item[0]),
    )
    taken: list[tuple[int, int, str]] = []
    for phrase, stem in names:
        at = hay.find(phrase)
        while at >= 0:
            stop = at + len(phrase)
            free = all(stop <= a or at >= b for a, b, _ in taken)
            if free and _whole(hay, at, stop):
                taken.append((at, stop, stem))
                break
            at = hay.find(phrase, at + 1)
    return [stem for _, _, stem in sorted(taken)][:MAX_WORKING]


def working_value(stems: Sequence[str]) -> str:
    # By path (dreaming.article.linking.page_link), the bar escaped: one table cell.
    return ", ".join(page_link(s, bar="\\|") for s in stems) if stems else NONE


def escape_cell(value: str) -> str:
    """A value safe inside one table cell: no pipe splits it, no line ends it."""
    return " ".join(value.replace("|", "\\|").split())


def _phrase(stem: str) -> str:
    return unicodedata.normalize("NFC", stem.replace("_", " ")).casefold()


def _linkable(stem: str) -> bool:
    """A stem that a `[[…]]` in one table cell can carry unchanged."""
    return not any(
        c in "|[]#^\\" or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in stem
    )


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _whole(hay: str, at: int, stop: int) -> bool:
    before = at == 0 or not (_word(hay[at - 1]) and _word(hay[at]))
    after = stop == len(hay) or not (_word(hay[stop]) and _word(hay[stop - 1]))
    return before and after


_JOINERS = {0x200D, 0x20E3}


def _extends(c: str) -> bool:
    """A character that belongs to the grapheme cluster before it."""
    o = ord(c)
    return (
        unicodedata.category(c) in ("Mn", "Mc", "Me")
        or o in _JOINERS
        or 0xFE00 <= o <= 0xFE0F
        or 0xE0100 <= o <= 0xE01EF
        or 0x1F3FB <= o <= 0x1F3FF
        or 0xE0020 <= o <= 0xE007F
    )


def _regional(c: str) -> bool:
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def _boundary(text: str, at: int) -> bool:
    """Whether a cut before `text[at]` falls between two grapheme clusters."""
    if _extends(text[at]) or ord(text[at - 1]) == 0x200D:
        return False
    if "\ud800" <= text[at] <= "\udfff":
        return False
    if _regional(text[at]) and _regional(text[at - 1]):
        # Flags are pairs: cut only after an even run of regional indicators.
        run = 0
        while at - run - 1 >= 0 and _regional(text[at - run - 1]):
            run += 1
        return run % 2 == 0
    return True


def _decode(data: bytes) -> str:
    if len(data) > MAX_CARD_BYTES:
        raise CardProblem(
            f"{CARD}: {len(data)} bytes, over the {MAX_CARD_BYTES // 1024} KiB a card may hold; "
            "move the long parts to NOTES.md, then save it again"
        )
    if b"\0" in data:
        raise CardProblem(f"{CARD}: binary, not text; restore it (git checkout {CARD})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CardProblem(
            f"{CARD}: not UTF-8 (byte {e.start}); save it as UTF-8, then save it again"
        ) from None


def _table(data: bytes) -> tuple[list[str], int, int]:
    """The card's lines, its table's header line and the line after its last row."""
    lines = split_lines(_decode(data))
    header = _find_table(lines, _body_start(lines))
    end = header + 2
    while end < len(lines) and line_content(lines[end]).lstrip(" ").startswith("|"):
        end += 1
    return lines, header, end


def _body_start(lines: list[str]) -> int:
    """The first line after the frontmatter (0 when there is none)."""
    if not lines or line_content(lines[0]).rstrip() != "---":
        return 0
    for n in range(1, len(lines)):
        if line_content(lines[n]).rstrip() in ("---", "..."):
            block = "".join(lines[1:n])
            try:
                data = frontmatter.load(block)
            except frontmatter.TooDeep:
                raise CardProblem(
                    f"{CARD}: the frontmatter is nested more than {frontmatter.MAX_DEPTH} "
                    "levels deep; flatten it"
                ) from None
            except yaml.YAMLError as e:
                mark = getattr(e, "problem_mark", None)
                where = f" (line {mark.line + 2})" if mark is not None else ""
                raise CardProblem(
                    f"{CARD}: the frontmatter is not valid YAML{where}; fix it or delete it"
                ) from None
            if data is not None and not isinstance(data, dict):
                raise CardProblem(
                    f"{CARD}: the frontmatter is not a list of `key: value` lines; "
                    "fix it or delete it"
                )
            return n + 1
    raise CardProblem(
        f"{CARD}: the frontmatter opened by `---` on line 1 is never closed; "
        "add a `---` line after it or delete it"
    )


def _find_table(lines: list[str], start: int) -> int:
    """The line of the `| Field | Value |` header above `## Durable` / `## Seed`."""
    fence: str | None = None
    for n in range(start, len(lines)):
        content = line_content(lines[n])
        bare = content.strip(" \t")
        if fence is not None:
            if bare.startswith(fence) and not bare.strip(fence[0]):
                fence = None
            continue
        if bare.startswith(("```", "~~~")):
            fence = bare[:3]
            continue
        if bare.casefold().rstrip() in _ENDS:
            break
        if bare.startswith("|") and n + 1 < len(lines):
            cells = _cells(content)
            if [c.strip().casefold() for c in cells] == ["field", "value"] and _delimiter(
                line_content(lines[n + 1])
            ):
                return n
    raise CardProblem(
        f"{CARD}: no `| Field | Value |` table above `## Durable`; "
        "put the table back (dreaming init lays a fresh card where none exists)"
    )


def _delimiter(line: str) -> bool:
    cells = _cells(line)
    return len(cells) == 2 and all(
        c.strip().strip(":") and not c.strip().strip(":").strip("-") for c in cells
    )


def _cells(line: str) -> list[str]:
    """The cells of a table row: split on pipes not escaped by a backslash."""
    cells: list[str] = []
    cell: list[str] = []
    escaped = False
    for c in line.strip(" \t"):
        if c == "|" and not escaped:
            cells.append("".join(cell))
            cell = []
        else:
            cell.append(c)
        escaped = c == "\\" and not escaped
    cells.append("".join(cell))
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return cells


def _parse_row(line: str) -> _Row:
    cells = _cells(line_content(line))
    if len(cells) != 2:
        key = cells[0].strip() if cells else ""
        raise CardProblem(
            f"{CARD}: the table row {key[:40]!r} has {len(cells)} cells, not 2 "
            "(a `|` in a value ends the cell); write it as `\\|`, then save again"
        )
    return _Row(cells[0].strip(), cells[1].strip(), line)


def _eol(lines: list[str], header: int) -> str:
    return line_ending(lines[header]) or "\n"


def _render(key: str, value: str, eol: str) -> str:
    return f"| {key} | {value} |{eol}"


def _heated_rows(rows: list[_Row], facts: Facts, eol: str) -> list[_Row] | None:
    """The table rows after heat, or None when the card is already hot."""
    found: dict[str, int] = {}
    for n, row in enumerate(rows):
        folded = row.key.casefold()
        name = OLD_NAMES.get(folded) or next((s for s in STOCK if s.casefold() == folded), None)
        if name is None:
            continue
        if name in found:
            raise CardProblem(
                f"{CARD}: two {name} rows ({rows[found[name]].key} and {row.key}); "
                "delete one, then save again"
            )
        found[name] = n
    intent = rows[found["Intent"]].value if "Intent" in found else "(none yet)"
    clipped = clip(intent)
    wanted = {
        "Intent": clipped,
        "Git": escape_cell(facts.git),
        "Working": working_value(working(clipped, facts.articles)),
        "Cascade": cascade(facts.notes),
    }
    stale = [
        k
        for k, v in wanted.items()
        if k not in found or rows[found[k]].value != v or rows[found[k]].key != k
    ]
    stale_heat = "Heated" not in found or rows[found["Heated"]].key != "Heated"
    if not stale and not stale_heat:
        return None
    if stale:
        wanted["Heated"] = facts.heated
    else:
        wanted["Heated"] = rows[found["Heated"]].value if "Heated" in found else facts.heated
    out = list(rows)
    for name, n in found.items():
        row = rows[n]
        if row.key != name or row.value != wanted[name]:
            out[n] = _Row(name, wanted[name], _render(name, wanted[name], line_ending(row.line)))
    for k in STOCK:
        if k in found:
            continue
        added = _Row(k, wanted[k], _render(k, wanted[k], eol))
        out.insert(_place(out, k), added)
    for n in range(len(out) - 1):
        if not line_ending(out[n].line):
            out[n].line += eol
    return out


def _place(rows: list[_Row], key: str) -> int:
    """Where a missing stock row goes: after the stock row before it, else before the one
    after it, else at the end of the table."""
    order = STOCK.index(key)
    at = {r.key: n for n, r in enumerate(rows) if r.key in STOCK}
    for k in reversed(STOCK[:order]):
        if k in at:
            return at[k] + 1
    for k in STOCK[order + 1 :]:
        if k in at:
            return at[k]
    return len(rows)
