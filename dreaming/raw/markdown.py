"""Plain Markdown chat logs, in the shapes people save them.

Role labels, in order of preference: headings (`### Human`, `## ChatGPT said:`), bold
labels (`**User:** text`), plain labels (`User: text`). A style counts only when it has
both a user and an assistant label. With no labels at all, a log of blockquoted prompts
(`> prompt` paragraphs, the assistant's prose after each) is read as user/assistant turns.
Text before the first turn is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from dreaming.raw.common import span, title_from
from dreaming.raw.mdutil import (
    FENCE_START,
    Fences,
    Marker,
    Rereadable,
    build,
    read_frontmatter,
    stamp_in,
    text_lines,
)
from dreaming.transcript import Conversation, Message, Role, content_id

SOURCE = "markdown"

_USER = ("user", "human", "me", "you", "prompt", "question")
_ASSISTANT = (
    "assistant", "ai", "chatgpt", "gpt", "gpt-4", "gpt-4o", "claude", "bot", "model", "gemini",
    "bard", "copilot", "answer", "response", "llm", "grok", "deepseek", "mistral", "llama",
)  # fmt: skip
_ROLE_OF: dict[str, Role] = {
    **{w: "user" for w in _USER},
    **{w: "assistant" for w in _ASSISTANT},
    "system": "system",
}
_ROLE = "|".join(sorted((re.escape(w) for w in _ROLE_OF), key=len, reverse=True))
_SAID = r"(?:[ \t]+(?:said|says|wrote|asked|replied|answered))?"

# Possessive runs: each stops where the next must start, and a heading line of 8,000
# stars or spaces had the plain runs try every split of it between them (4 s a line).
_HEADING_RE = re.compile(
    rf"^(#{{1,6}})[ \t]++[^\w\s]*+[ \t]*+\**+({_ROLE}){_SAID}\**+[ \t]*+:?\**+[ \t]*+"
    r"(\(.*\)|[-\u2014\u2013\u00b7|].*)?$",
    re.I | re.A,
)
_BOLD_RE = re.compile(rf"^\*\*({_ROLE}){_SAID}[ \t]*:?\*\*[ \t]*:?[ \t]*(.*)$", re.I | re.A)
_PLAIN_RE = re.compile(rf"^({_ROLE}){_SAID}[ \t]*:[ \t]*(.*)$", re.I | re.A)
# A heading that announces where a saved log starts ("## Log", "# Transcript").
_LOG_START_RE = re.compile(
    r"^#{1,3}[ \t]+(?:chat[ \t]+)?(?:log|transcript|conversation|chat|dialogue|prompts?)[ \t]*$",
    re.I | re.A,
)


class _Scan:
    """What one pass over the lines finds: the turns of each label style, whether any
    line is a blockquoted prompt, and where a saved log says it starts."""

    def __init__(self, lines: Iterable[str], start: int) -> None:
        fences = Fences()
        found: dict[str, list[tuple[Marker, int]]] = {"heading": [], "bold": [], "plain": []}
        self.quoted = False
        self.log_start = start
        logged = False
        for index, line in enumerate(lines):
            if index < start or not line:
                continue
            c = line[0]
            if c in FENCE_START:
                fences.see(index, line)
            if c == "#":
                m = _HEADING_RE.match(line)
                if m:
                    ts = stamp_in(m.group(3) or "")
                    found["heading"].append(
                        ((index, _ROLE_OF[m.group(2).lower()], "", ts), len(m.group(1)))
                    )
                elif not logged and _LOG_START_RE.match(line):
                    self.log_start, logged = index + 1, True
            elif c == "*":
                m = _BOLD_RE.match(line)
                if m:
                    found["bold"].append(
                        ((index, _ROLE_OF[m.group(1).lower()], m.group(2), None), 0)
                    )
            elif c == ">":
                self.quoted = True
            elif c.isalpha():
                m = _PLAIN_RE.match(line)
                if m:
                    found["plain"].append(
                        ((index, _ROLE_OF[m.group(1).lower()], m.group(2), None), 0)
                    )
        fences.close()
        self.markers = self._style(found, fences)

    @staticmethod
    def _style(found: dict[str, list[tuple[Marker, int]]], fences: Fences) -> list[Marker]:
        """The turns of the first style that has both a user and an assistant label."""
        for style in ("heading", "bold", "plain"):
            kept = [
                (marker, level) for marker, level in found[style] if not fences.masked(marker[0])
            ]
            if style == "heading" and kept:
                # Deeper role-ish headings than the first turn's are inside a reply.
                kept = [(marker, level) for marker, level in kept if level == kept[0][1]]
            roles = {marker[1] for marker, _ in kept}
            if "user" in roles and "assistant" in roles:
                return [marker for marker, _ in kept]
        return []


def _blockquoted(lines: Iterable[str], start: int) -> list[Message]:
    # Fences are not tracked here: such logs are often exported with replies cut off
    # mid-code, and one unclosed fence would hide every later prompt.
    out: list[Message] = []
    role: Role | None = None
    buf: list[str] = []
    in_quote = False

    def flush() -> None:
        if role is not None:
            body = "\n".join(buf).strip()
            if body:
                if out and out[-1].role == role:
                    out[-1] = Message(role=role, text=out[-1].text + "\n\n" + body)
                else:
                    out.append(Message(role=role, text=body))
        buf.clear()

    for index, line in enumerate(lines):
        if index < start:
            continue
        if line.startswith(">"):
            if role != "user":
                flush()
                role = "user"
            buf.append(line[1:].removeprefix(" "))
            in_quote = True
        elif not line.strip():
            in_quote = False
            buf.append("")
        elif in_quote:
            buf.append(line)  # lazy continuation of the quoted paragraph
        elif role is not None:
            if role != "assistant":
                flush()
                role = "assistant"
            buf.append(line)
    flush()
    if not any(m.role == "assistant" for m in out):
        return []
    return out


def parse_messages(lines: Rereadable, start: int = 0) -> list[Message]:
    """The turns from line `start` on."""
    scan = _Scan(lines(), start)
    if scan.markers:
        return build(lines(), scan.markers)
    if scan.quoted:
        return _blockquoted(lines(), scan.log_start)
    return []


def looks_like(head: str) -> bool:
    """Cheap check on the start of a file: any role label or blockquoted prompt."""
    return bool(parse_messages(text_lines(head)))


def parse(path: Path, text: str) -> list[Conversation]:
    return parse_lines(path, text_lines(text))


def parse_lines(path: Path, lines: Rereadable) -> list[Conversation]:
    """The conversation in a log read twice over its lines (a big file from disk)."""
    fm, start = read_frontmatter(path, lines())
    messages = parse_messages(lines, start)
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    first, last = span(messages)
    created = stamp_in(fm.get("date", "")) or first
    return [
        Conversation(
            source=SOURCE,
            source_id=fm.get("id") or content_id(SOURCE, created or "", first_user),
            own_id=bool(fm.get("id")),
            messages=tuple(messages),
            title=fm.get("title") or title_from(messages),
            created_at=created,
            updated_at=last or created,
        )
    ]
