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
"""

from __future__ import annotations

import re
from pathlib import Path

from dreaming.raw.common import shorten, title_from, tool_call, tool_result
from dreaming.raw.mdutil import split_frontmatter, turns
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


def _strip_audit(text: str) -> tuple[str, str | None]:
    first, _, rest = text.partition("\n")
    m = AUDIT_RE.match(first.strip())
    if m:
        return rest.lstrip("\n"), m.group(1).strip(" \t")
    return text, None


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
    text, audit = _strip_audit(text)
    fm, body = split_frontmatter(path, text)
    if audit is None:
        body, audit = _strip_audit(body.lstrip("\n"))
    lines: list[str] = []
    distilled: str | None = None
    src = body.split("\n")
    i = 0
    while i < len(src):
        line = src[i]
        if line.startswith("<!--"):
            m = _DISTILLED_RE.match(line.strip())
            if m:
                distilled = m.group(1).strip(" \t")
                i += 1
                continue
        elif line.startswith(">"):
            m = _TOOL_RE.match(line)
            if m:
                lines.append(tool_call(m.group(1), m.group(2)))
                i += 1
                continue
        else:
            m = _OUTPUT_RE.match(line)
            if m:
                fence = m.group(1)
                j = i + 1
                while j < len(src) and not src[j].strip().startswith(fence):
                    if _TURN_RE.match(src[j]):
                        break
                    j += 1
                lines.append(tool_result("\n".join(src[i + 1 : j])))
                i = j + 1 if j < len(src) and not _TURN_RE.match(src[j]) else j
                continue
        lines.append(line)
        i += 1
    messages = turns(lambda: iter(lines), 0, _turn)
    if not messages:
        return []
    meta: dict[str, str] = {}
    name = _NAME_RE.match(path.name)
    repo = fm.get("repo") or (name.group(4) if name else None)
    if repo:
        meta["repo"] = repo
    if distilled:
        meta["distilled"] = distilled
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
