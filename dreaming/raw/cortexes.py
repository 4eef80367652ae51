"""Cortexes Raw Markdown: another tool's capture of one session per file.

A file such as `Raw/2025/03/14/091245_session_dreaming.md` reads:

    <!-- audit: ... -->                  (before or after the frontmatter)
    ---
    date: 2025-03-14
    time: "09:12:45"
    type: session
    repo: dreaming
    ---
    <!-- distilled: 2025-03-15 → articles/watcher.md -->   (here, or as the last line)
    ### User
    ...
    ### Claude
    ...
    > [tool] **Bash**: ls -la
    ```output
    ...
    ```

The distilled marker (another tool's note that it already turned the session into
notes) is kept in `meta["distilled"]`; date, time and repo fall back to the path.

The body is read in two passes over the file's lines (turns, then their text), each
rewriting tool lines and output blocks as it goes, so a big capture is never held whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from dreaming.raw.common import shorten, title_from, tool_call, tool_output
from dreaming.raw.mdutil import Rereadable, read_frontmatter, text_lines, turns
from dreaming.transcript import Conversation, Role, content_id

SOURCE = "cortexes"

# Greedy, the group stripped by the caller: `[ \t]*(.*?)[ \t]*-->` over a run of
# spaces never closed tried every split of the run (48 s for 5,000 spaces).
AUDIT_RE = re.compile(r"^<!--[ \t]*+audit:(.*)-->[ \t]*$")
_DISTILLED_RE = re.compile(r"^<!--[ \t]*+distilled:(.*)-->[ \t]*$")
_TURN_RE = re.compile(r"^###[ \t]+(user|claude|assistant|system)[ \t]*:?[ \t]*$", re.I | re.A)
_TOOL_RE = re.compile(r"^>[ \t]*\[tool\][ \t]*\*\*(.+?)\*\*:?[ \t]*(.*)$")
_OUTPUT_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*output[ \t]*$")
_NAME_RE = re.compile(r"^(\d{2})(\d{2})(\d{2})_session_(.+)\.md$")
_ROLE: dict[str, Role] = {
    "user": "user",
    "claude": "assistant",
    "assistant": "assistant",
    "system": "system",
}


def _audit(line: str) -> str | None:
    m = AUDIT_RE.match(line.strip())
    return m.group(1).strip(" \t") if m else None


def _past_blanks(lines: Iterator[str], at: int) -> int:
    """The index of the first line from `at` on that is not empty."""
    for line in islice(lines, at, None):
        if line:
            break
        at += 1
    return at


def _opening(path: Path, lines: Rereadable) -> tuple[dict[str, str], str | None, int]:
    """The frontmatter, the audit note (the first line, or the first after the
    frontmatter) and the index of the body's first line. Each step reads the lines
    afresh, a few of them: an unclosed frontmatter has read them all."""
    audit = _audit(next(lines(), ""))
    at = 0 if audit is None else _past_blanks(lines(), 1)
    fm, length = read_frontmatter(path, islice(lines(), at, None))
    at += length
    if audit is None:
        at = _past_blanks(lines(), at)
        audit = _audit(next(islice(lines(), at, None), ""))
        if audit is not None:
            at = _past_blanks(lines(), at + 1)
    return fm, audit, at


class _Body:
    """The body's lines as its turns are read from them: a tool line as the call it made,
    an output block as one line saying how long it was, a distilled marker taken out and
    kept. Each call reads them afresh."""

    def __init__(self, lines: Rereadable, start: int) -> None:
        self._lines = lines
        self._start = start
        self.distilled: str | None = None

    def __call__(self) -> Iterator[str]:
        fence: str | None = None  # of the output block the lines are in
        length, said = 0, False
        for line in islice(self._lines(), self._start, None):
            if fence is not None:
                if line.strip().startswith(fence):
                    yield tool_output(length if said else 0)
                    fence = None
                    continue
                if not (line.startswith("###") and _TURN_RE.match(line)):
                    length += 1
                    said = said or not (line == "" or line.isspace())
                    continue
                yield tool_output(length if said else 0)  # a turn ends a block never closed
                fence = None
            if line.startswith("<!--"):
                if m := _DISTILLED_RE.match(line.strip()):
                    self.distilled = m.group(1).strip(" \t")
                    continue
            elif line.startswith(">"):
                if m := _TOOL_RE.match(line):
                    yield tool_call(m.group(1), m.group(2))
                    continue
            elif line[:4].lstrip(" \t")[:1] in ("`", "~") and (m := _OUTPUT_RE.match(line)):
                fence, length, said = m.group(1), 0, False
                continue
            yield line
        if fence is not None:
            yield tool_output(length if said else 0)


def _turn(line: str) -> tuple[Role, str | None] | None:
    m = _TURN_RE.match(line) if line.startswith("###") else None
    return (_ROLE[m.group(1).lower()], None) if m else None


def _when(path: Path, fm: dict[str, str]) -> str | None:
    date, time = fm.get("date", "").strip(), fm.get("time", "").strip()
    m = _NAME_RE.match(path.name)
    if not date and len(path.parts) >= 4:
        y, mo, d = path.parts[-4:-1]
        if y.isdigit() and mo.isdigit() and d.isdigit():
            date = f"{y}-{mo}-{d}"
    if not time and m:
        time = f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        return None
    return f"{date}T{time}" if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", time) else date


def parse(path: Path, text: str) -> list[Conversation]:
    return parse_lines(path, text_lines(text))


def parse_lines(path: Path, lines: Rereadable) -> list[Conversation]:
    """The session in a capture read over its lines (a big file from disk)."""
    fm, audit, start = _opening(path, lines)
    body = _Body(lines, start)
    messages = turns(body, 0, _turn)
    if not messages:
        return []
    meta: dict[str, str] = {}
    name = _NAME_RE.match(path.name)
    repo = fm.get("repo") or (name.group(4) if name else None)
    if repo:
        meta["repo"] = repo
    if body.distilled:
        meta["distilled"] = body.distilled
    if audit:
        meta["audit"] = shorten(audit, 200)
    when = _when(path, fm)
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    return [
        Conversation(
            source=SOURCE,
            source_id=fm.get("id") or content_id(SOURCE, when or "", repo or "", first_user),
            own_id=bool(fm.get("id")),
            messages=tuple(messages),
            title=fm.get("title") or title_from(messages),
            created_at=when,
            updated_at=when,
            meta=meta,
        )
    ]
