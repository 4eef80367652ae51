"""Markdown helpers the text readers share: frontmatter, code fences, turn assembly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from dreaming.errors import TranscriptError
from dreaming.raw.common import iso
from dreaming.raw.types import Message

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
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
        # BaseLoader keeps every scalar a string: YAML 1.1 would turn `14:05:30` into 50730.
        data: Any = yaml.load(block, Loader=yaml.BaseLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise TranscriptError(
            path, f"frontmatter is not valid YAML{where}; fix it or remove the --- block"
        ) from None
    except RecursionError:
        raise TranscriptError(path, "frontmatter is nested too deeply; simplify it") from None
    if not isinstance(data, dict):
        return {}, body
    return {str(k): v for k, v in data.items() if isinstance(v, str) and v.strip()}, body


def fence_mask(lines: list[str]) -> list[bool]:
    """True for lines inside a fenced code block (fence lines included).

    An opening fence that is never closed is treated as ordinary text: exported logs
    often cut a reply off mid-code, and the unclosed fence must not swallow every turn
    after it.
    """
    n = len(lines)
    closers: dict[str, list[int]] = {"`": [-1] * (n + 1), "~": [-1] * (n + 1)}
    for ch in "`~":
        nxt = -1
        arr = closers[ch]
        for i in range(n - 1, -1, -1):
            m = _FENCE_RE.match(lines[i]) if lines[i][:4].lstrip()[:1] == ch else None
            if m and m.group(1)[0] == ch and not m.group(2).strip():
                nxt = i
            arr[i] = nxt
    mask = [False] * n
    i = 0
    while i < n:
        line = lines[i]
        lead = line[:4].lstrip()[:1]
        m = _FENCE_RE.match(line) if lead in ("`", "~") else None
        if m is not None:
            j = closers[m.group(1)[0]][i + 1] if i + 1 < n else -1
            if j > i:
                for k in range(i, j + 1):
                    mask[k] = True
                i = j + 1
                continue
        i += 1
    return mask


def stamp_in(text: str) -> str | None:
    m = _STAMP_RE.search(text)
    return iso(m.group(0).replace(" ", "T")) if m else None


def build(
    lines: list[str], markers: Sequence[tuple[int, str, str, str | None]], end: int | None = None
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
