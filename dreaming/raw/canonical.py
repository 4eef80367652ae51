"""Raw Markdown, the format a person writes by hand (source name "raw").

    ---
    title: Choosing a debounce window      # all optional
    date: 2025-03-14
    id: my-own-stable-id
    source: claude.ai
    ---

    ## user
    How long should the watcher wait?

    ## assistant
    Half a second of quiet is enough.

Turn headings are `## user`, `## assistant`, `## system` (any case), optionally followed
by a timestamp. Text before the first heading is ignored; headings inside code fences
are not turns.
"""

from __future__ import annotations

import re
from pathlib import Path

from dreaming.raw.common import shorten, span, title_from
from dreaming.raw.mdutil import Rereadable, read_frontmatter, stamp_in, text_lines, turns
from dreaming.transcript import Conversation, Role, content_id

SOURCE = "raw"

_ROLE_OF: dict[str, Role] = {"user": "user", "assistant": "assistant", "system": "system"}
HEADING_RE = re.compile(r"^##[ \t]+(user|assistant|system)\b[ \t]*:?(.*)$", re.I | re.M | re.A)


def turn(line: str) -> tuple[Role, str | None] | None:
    """(role, timestamp) when the line is a turn heading; anything else after the role
    (`## User interface`) makes it an ordinary heading."""
    m = HEADING_RE.match(line)
    if m is None:
        return None
    rest = m.group(2).strip()
    ts = stamp_in(rest) if rest else None
    if rest and ts is None:
        return None
    return _ROLE_OF[m.group(1).lower()], ts


def parse(path: Path, text: str) -> list[Conversation]:
    return parse_lines(path, text_lines(text))


def parse_lines(path: Path, lines: Rereadable) -> list[Conversation]:
    """The conversation in a file read twice over its lines (a big file from disk)."""
    fm, start = read_frontmatter(path, lines())
    messages = turns(lines, start, lambda line: turn(line) if line.startswith("##") else None)
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    first, last = span(messages)
    created = stamp_in(fm.get("date", "")) or first
    meta: dict[str, str] = {k: shorten(fm[k], 200) for k in ("source", "model", "tags") if k in fm}
    title = fm.get("title")
    return [
        Conversation(
            source=SOURCE,
            source_id=fm.get("id") or content_id(SOURCE, created or "", first_user),
            own_id=bool(fm.get("id")),
            messages=tuple(messages),
            title=shorten(title, 200) if title else title_from(messages),
            created_at=created,
            updated_at=stamp_in(fm.get("updated", "")) or last or created,
            meta=meta,
        )
    ]
