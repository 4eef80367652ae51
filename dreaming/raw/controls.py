"""Control characters out of transcript text before it is stored.

A terminal's colour codes and window titles, a NUL, C1 controls (a cp1252 file
read as Latin-1), bidi overrides that make a reader see other text than is
there: none of it is something said, and every reader of the ledger (the CLI,
the MCP `source` tool, a run report, an exporter) would inherit it. Escape
sequences go whole, so `ESC[1mBold` leaves `Bold`, not `[1mBold`; any other
C0 (but tab and line breaks), DEL, C1 and bidi override or isolate goes alone.
A lone CR is the line break it stood for (old Mac text, a progress bar);
CRLF stays.

Linear time on any input: every branch starts at a control character and every
repetition is bounded and possessive, so a failed attempt costs at most the
bound and nothing a match takes is scanned again.
"""

from __future__ import annotations

import re
from dataclasses import replace

from dreaming.transcript import Conversation

_CSI = r"(?:\x1b\[|\x9b)[0-?]{0,64}+[ -/]{0,16}+[@-~]"
"""Select Graphic Rendition, cursor moves, erase: ESC [ params intermediates final."""
_OSC = r"(?:\x1b\]|\x9d)[^\x00-\x1f\x7f-\x9f]{0,4096}+(?:\x07|\x1b\\|\x9c)"
"""Window titles, hyperlinks: ESC ] text, ended by BEL or ST; unended it is not one."""
_ESC = r"\x1b[!-/]{0,4}+[0-~]"
"""Two- and three-character escapes (`ESC ( B`, `ESC 7`); never `ESC` before a space."""
_LONE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
"""C0 but tab, LF and CR; DEL; C1; bidi embeddings, overrides and isolates."""

_SEQUENCE = re.compile(f"{_CSI}|{_OSC}|{_ESC}")
_LONE_RUN = re.compile(f"{_LONE}+")
_LONE_CR = re.compile("\r(?!\n)")
_ANY = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""A first look for any of them: most texts hold no control at all."""


def strip_controls(text: str) -> tuple[str, int]:
    """`text` without control characters, and how many went (an escape sequence counts once).

    Three passes, each one C-level scan: sequences, runs of lone controls (counted by
    the length they take away), lone CRs."""
    if _ANY.search(text) is None:
        return text, 0
    sequences = breaks = 0
    if "\x1b" in text or "\x9b" in text or "\x9d" in text:
        text, sequences = _SEQUENCE.subn("", text)
    shorter = _LONE_RUN.sub("", text)
    lone = len(text) - len(shorter)
    if "\r" in shorter:
        shorter, breaks = _LONE_CR.subn("\n", shorter)
    return shorter, sequences + lone + breaks


def strip_conversation(conv: Conversation) -> tuple[Conversation, int]:
    """`conv` with its title, messages and meta values cleaned, and how many controls went.

    Ids and times are left: an id is an identity, not something shown."""
    title, total = strip_controls(conv.title) if conv.title else (conv.title, 0)
    messages = []
    for m in conv.messages:
        text, n = strip_controls(m.text)
        messages.append(replace(m, text=text) if n else m)
        total += n
    meta = {}
    for key, value in conv.meta.items():
        meta[key], n = strip_controls(value)
        total += n
    if not total:
        return conv, 0
    return replace(conv, title=title, messages=tuple(messages), meta=meta), total
