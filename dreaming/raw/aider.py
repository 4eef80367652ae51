"""Aider chat history: `.aider.chat.history.md`, appended to across sessions.

`# aider chat started at YYYY-MM-DD HH:MM:SS` opens a session (one Conversation each),
`#### ` lines are what the person typed (consecutive ones are one input), `> ` lines are
aider's own console output (dropped), everything else is the assistant's reply. File
edits in a reply (a file name, then a fenced block) are reduced to `[edit: name — N lines]`.

A history is read in two passes over its lines, where its sessions start and then their
messages, so a big one is never held whole beside the messages made of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

from dreaming.raw.common import shorten, title_from
from dreaming.raw.mdutil import Rereadable, text_lines
from dreaming.transcript import Conversation, Message, content_id

SOURCE = "aider"

START_RE = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})[ \t]*$")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_FILENAME_RE = re.compile(r"^[\w./\\~-]+\.[\w]+$|^[\w.~-]*/[\w./~-]+$")
# Commands whose argument is a prompt; other commands are console actions.
_BLANKS_RE = re.compile(r"\n(?:[ \t]*\n){2,}")
_PROMPT_COMMANDS = ("/ask ", "/code ", "/architect ", "/chat ")


def _user_text(lines: list[str]) -> str:
    text = "\n".join(lines).strip()
    if text == "<blank>":
        return ""
    if text.startswith("/"):
        for cmd in _PROMPT_COMMANDS:
            if text.startswith(cmd):
                return text[len(cmd) :].strip()
        head, _, args = text.partition(" ")
        return f"[command: {shorten(text)}]" if args.strip() and head[1:].isalpha() else ""
    return text


def _reply_text(lines: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _FENCE_RE.match(line)
        if m is None:
            out.append(line)
            i += 1
            continue
        fence = m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        block = lines[i + 1 : j]
        prev = next((k for k in range(len(out) - 1, -1, -1) if out[k].strip()), None)
        name = out[prev].strip() if prev is not None else ""
        is_edit = any(b.startswith("<<<<<<< SEARCH") for b in block)
        if prev is not None and _FILENAME_RE.match(name) and len(name) < 200:
            del out[prev:]
            what = "" if is_edit else f" — {len(block)} lines"
            out.append(f"[edit: {name}{what}]")
        elif is_edit:
            out.append("[edit]")
        else:
            out.extend(lines[i : j + 1])
        i = j + 1
    return _BLANKS_RE.sub("\n\n", "\n".join(out)).strip()


def _session(lines: Iterable[str], strict: bool) -> list[Message]:
    """A session's messages; `strict` when its typed lines end in two spaces."""
    messages: list[Message] = []
    typed: list[str] = []
    reply: list[str] = []

    def flush_reply() -> None:
        text = _reply_text(reply)
        if text:
            messages.append(Message(role="assistant", text=text))
        reply.clear()

    def flush_typed() -> None:
        text = _user_text(typed)
        if text:
            messages.append(Message(role="user", text=text))
        typed.clear()

    for line in lines:
        is_input = line.startswith("####") and (line == "####" or line[4] == " ")
        if is_input and (not strict or line.endswith("  ") or not line[4:].strip()):
            if not typed:
                flush_reply()
            typed.append(line[5:].rstrip())
            continue
        if typed:
            flush_typed()
        if line.startswith(">"):
            continue
        reply.append(line)
    flush_typed()
    flush_reply()
    return messages


def _sessions(lines: Iterable[str]) -> list[tuple[int, str, int, bool]]:
    """Each session's first line, when it started, the line past its last, and whether
    its typed lines end in two spaces."""
    starts: list[tuple[int, str]] = [(0, "")]
    # Aider ends every typed line with two spaces (a Markdown line break); a reply's own
    # `####` headings do not. Fall back to every `####` line if an editor trimmed them.
    spaced = [False]
    index = -1
    for index, line in enumerate(lines):
        if line.startswith("# aider") and (m := START_RE.match(line)):
            starts.append((index + 1, m.group(1)))
            spaced.append(False)
        elif line.startswith("####") and line.endswith("  "):
            spaced[-1] = True
    ends = [first - 1 for first, _ in starts[1:]] + [index + 1]
    found = [(*start, end, s) for start, end, s in zip(starts, ends, spaced, strict=True)]
    # The lines before the first start are a session only in a history with none.
    return found[1:] if len(found) > 1 else found


def parse(path: Path, text: str) -> list[Conversation]:
    return parse_lines(path, text_lines(text))


def parse_lines(path: Path, lines: Rereadable) -> list[Conversation]:
    """The sessions in a history read twice over its lines (a big file from disk)."""
    sessions = _sessions(lines())
    rest = lines()
    at = 0
    out: list[Conversation] = []
    for first, when, end, strict in sessions:
        for _ in islice(rest, first - at):
            pass  # the line that starts the session; before the first, all above it
        messages = _session(islice(rest, end - first), strict)
        at = end
        if not messages:
            continue
        first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
        stamp = when.replace(" ", "T") if when else None
        out.append(
            Conversation(
                source=SOURCE,
                source_id=content_id(SOURCE, when, first_user),
                own_id=False,
                messages=tuple(messages),
                title=title_from(messages),
                created_at=stamp,
                updated_at=stamp,
            )
        )
    return out
