"""Transcript readers: any file a person drops into `Raw/` → conversations, secrets redacted.

`read_transcript(path)` detects the format from the bytes (the extension is only a hint),
parses with that format's reader, then redacts. It returns a `ReadResult` or raises
`TranscriptError` (unreadable, corrupt, empty, binary, unknown) / `IncompleteTranscript`
(still being written: retry later). It never raises anything else, whatever the bytes.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from dreaming.errors import IncompleteTranscript, ReaderFault, TranscriptError
from dreaming.raw import (
    aider,
    canonical,
    chatgpt,
    claude_code,
    codex,
    cortexes,
    deadline,
    markdown,
    pi,
)
from dreaming.raw.common import (
    MAX_BYTES,
    TOO_LONG,
    Lines,
    binary_kind,
    decode,
    json_problem,
    looks_truncated,
)
from dreaming.raw.controls import strip_conversation
from dreaming.raw.detect import HEAD_BYTES, SOURCES, detect, detect_text
from dreaming.raw.identity import distinct
from dreaming.raw.mdutil import Rereadable
from dreaming.raw.redact_fields import redact_conversations
from dreaming.transcript import Conversation, Message

__all__ = [
    "SOURCES",
    "Conversation",
    "IncompleteTranscript",
    "Message",
    "ReadResult",
    "TranscriptError",
    "detect",
    "read_transcript",
]

_READERS: dict[str, Callable[[Path, str], list[Conversation]]] = {
    "claude-code": claude_code.parse,
    "chatgpt": chatgpt.parse,
    "pi": pi.parse,
    "codex": codex.parse,
    "aider": aider.parse,
    "markdown": markdown.parse,
    "cortexes": cortexes.parse,
    "raw": canonical.parse,
}
# Markdown logs: read twice over the file's lines when big (turns, then bodies).
_TWICE_READERS: dict[str, Callable[[Path, Rereadable], list[Conversation]]] = {
    "aider": aider.parse_lines,
    "markdown": markdown.parse_lines,
    "cortexes": cortexes.parse_lines,
    "raw": canonical.parse_lines,
}
_READ_TWICE_ABOVE = 16 * 1024 * 1024
"""Smaller files are read whole: one pass over a text in memory is faster than two
over a file, and the memory saved is small."""
# Line-based formats: read from a stream of lines, never whole.
_LINE_READERS: dict[str, Callable[[Path, Lines], list[Conversation]]] = {
    "claude-code": claude_code.parse,
    "pi": pi.parse,
    "codex": codex.parse,
}


@dataclass
class ReadResult:
    source: str
    """Which reader understood the file (one of SOURCES)."""
    conversations: list[Conversation]
    """Empty when the file is valid but holds no dialogue (a summary-only session log)."""
    redactions: int
    """Secrets replaced by `[REDACTED:<kind>]` in this file."""
    sha256: str
    """Of the bytes read."""
    size: int
    """How many bytes were read (a file still growing has more by now)."""
    controls: int = 0
    """Control characters (an escape sequence counts once) removed from its text."""


_NOT_A_TRANSCRIPT = (
    "JSON, but not a transcript format dreaming reads (ChatGPT conversations.json, "
    "Claude Code, Codex or pi session); remove it from Raw/"
)
_NO_TURNS = (
    "no conversation turns found; start each turn with a `## user` or `## assistant` "
    "heading (see docs/formats.md) or remove the file from Raw/"
)


def _unknown(path: Path, text: str) -> TranscriptError:
    """The reason a file no reader took: unknown JSON, JSON cut short, or no turns."""
    s = text.lstrip("\ufeff \t\r\n")
    if not s.startswith(("{", "[")):
        return TranscriptError(path, _NO_TURNS)
    # JSONL is judged by its first record; a JSON document (maybe pretty-printed) whole.
    first = s.split("\n", 1)[0]
    candidates = [first, s] if s.startswith("{") and first.strip() != s.strip() else [s]
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            json.loads(candidate)
        except RecursionError:
            return TranscriptError(path, "JSON is nested too deeply to read; delete the file")
        except json.JSONDecodeError as e:
            error = e
            continue
        except ValueError:
            return TranscriptError(path, f"it {TOO_LONG}")
        return TranscriptError(path, _NOT_A_TRANSCRIPT)
    if error is not None and looks_truncated(s, error):
        return IncompleteTranscript(
            path, "JSON ends early (file still being written?); it will be retried"
        )
    where = f" {json_problem(error)}" if error else ""
    return TranscriptError(
        path, f"neither valid JSON{where} nor a chat log with turns; re-export it or delete it"
    )


def too_large(path: Path, size: int, max_bytes: int) -> TranscriptError:
    mib = 1024 * 1024
    return TranscriptError(
        path,
        f"file is {-(-size // mib)} MB, over the {max_bytes // mib} MB limit for a transcript; "
        "split it, or raise max_raw_file_mb in .dreaming/config.toml",
    )


def read_transcript(
    path: Path, data: bytes | None = None, *, max_bytes: int = MAX_BYTES
) -> ReadResult:
    """Read one Raw file (its bytes, when the caller already has them).

    The size and the first bytes are checked before anything else is read; a JSONL
    session is streamed line by line, so memory follows what the reader keeps (tool
    output is dropped or shortened), not the size of the file.
    """
    path = Path(path)
    if data is not None:
        if len(data) > max_bytes:
            raise too_large(path, len(data), max_bytes)
        return _read_whole(path, data)
    found = _whole_file(path, max_bytes)
    if isinstance(found, ReadResult):
        return found
    data, source = found
    del found
    # The bytes go as soon as they are text, and the text once it is messages: a file
    # read whole is otherwise held twice over while it is parsed.
    sha, size = hashlib.sha256(data).hexdigest(), len(data)
    text = _text_of(path, data)
    del data
    source, conversations = _parsed(path, text, source)
    del text
    return _finish(source, conversations, sha, size)


def _whole_file(path: Path, max_bytes: int) -> tuple[bytes, str] | ReadResult:
    """The file's bytes and the source its first bytes name, or what a line-based
    format's streamed reading made of it."""
    try:
        # Non-blocking: a named pipe put in Raw/ (or swapped in since it was listed) must
        # not hang the reader; only a regular file is read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise TranscriptError(path, "not a regular file; remove it from Raw/")
            size = st.st_size
            if size > max_bytes:
                raise too_large(path, size, max_bytes)
            head = f.read(HEAD_BYTES)
            kind = binary_kind(head)
            if kind:
                raise _binary(path, kind)
            source = detect(path, head)
            utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))
            if source in _LINE_READERS and not utf16:
                f.seek(0)
                return _read_stream(path, source, f)
            if (source or "markdown") in _TWICE_READERS and size > _READ_TWICE_ABOVE and not utf16:
                return _read_twice(path, source or "markdown", f, head)
            f.seek(0)  # not head + the rest: joining them copies the whole file once more
            # Asked for the size it has, not the cap: read(cap) sets aside the cap at once.
            data = f.read(size + 1)
            if len(data) > size:  # it grew since: still refuse it past the cap
                data += f.read(max_bytes + 1 - len(data))
    except OSError as e:
        raise TranscriptError(
            path, f"cannot be read ({e.strerror or type(e).__name__}); check it exists"
        ) from None
    if len(data) > max_bytes:
        raise too_large(path, len(data), max_bytes)
    return data, source or "markdown"


def _binary(path: Path, kind: str) -> TranscriptError:
    return TranscriptError(path, f"binary file ({kind}), not a transcript; remove it from Raw/")


class _Stream:
    """A binary file as decoded lines, hashed and counted on the way through."""

    def __init__(self, path: Path, f: BinaryIO) -> None:
        self.path = path
        self.f = f
        self.sha = hashlib.sha256()
        self.size = 0
        self.whole = False
        """Whether every byte went through: `sha` and `size` are the file's."""

    def lines(self) -> Iterator[str]:
        """The file's lines without their "\n" (the last one "" when the file ends in
        one), as splitting the whole text would give them. Blocks, not lines, are read,
        hashed and decoded: per-line work in Python costs more than the JSON parse."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        pending = ""
        for block in iter(lambda: self.f.read(_BLOCK), b""):
            deadline.check()
            self.sha.update(block)
            start = self.size
            self.size += len(block)
            if start == 0 and block.startswith(b"\xef\xbb\xbf"):
                block = block[3:]
                start = 3
            try:
                text = pending + decoder.decode(block)
            except UnicodeDecodeError as e:
                raise self._not_utf8(start + e.start) from None
            *complete, pending = text.split("\n")
            yield from complete
        self.whole = True
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise IncompleteTranscript(
                self.path, "file ends inside a character (still being copied?); it will be retried"
            ) from None
        if self.size:
            yield pending

    def _not_utf8(self, offset: int) -> TranscriptError:
        return TranscriptError(
            self.path,
            f"not UTF-8 text (invalid byte at offset {offset}); "
            "re-export the transcript as UTF-8 or delete the file",
        )


_BLOCK = 1 << 16


def _read_stream(path: Path, source: str, f: BinaryIO) -> ReadResult:
    stream = _Stream(path, f)
    lines = stream.lines()
    conversations = _parse(path, source, lines)
    for _ in lines:
        pass  # the reader may stop early; the hash and size cover the whole file
    if stream.size == 0:
        raise TranscriptError(path, _EMPTY)
    return _finish(source, conversations, stream.sha.hexdigest(), stream.size)


_EMPTY = "file is empty; wait for the copy to finish or delete it"


def _read_twice(path: Path, source: str, f: BinaryIO, head: bytes) -> ReadResult:
    """A big Markdown log (plain, aider, Cortexes) read from the file, once for its turns
    and once for their bodies, so the text is never held whole beside the messages."""
    streams: list[_Stream] = []

    def lines() -> Iterator[str]:
        f.seek(0)
        streams.append(_Stream(path, f))
        return streams[-1].lines()

    before = _version(f)
    conversations = _parse(path, source, lines)
    hashes = {s.sha.hexdigest() for s in streams if s.whole}
    if len(hashes) != 1 or _version(f) != before:
        raise IncompleteTranscript(path, "file changed while it was read; it will be read again")
    if not conversations and source in _FALLBACKS:
        raise _unknown(path, head.decode("utf-8", errors="ignore"))
    return _finish(source, conversations, hashes.pop(), before[0])


def _version(f: BinaryIO) -> tuple[int, int]:
    st = os.fstat(f.fileno())
    return st.st_size, st.st_mtime_ns


def _read_whole(path: Path, data: bytes) -> ReadResult:
    source, conversations = _parsed(path, _text_of(path, data))
    return _finish(source, conversations, hashlib.sha256(data).hexdigest(), len(data))


def _text_of(path: Path, data: bytes) -> str:
    """A whole file's text, or the TranscriptError that says why it has none. Nothing
    here copies the file (`strip` would)."""
    if not data or data.isspace():
        raise TranscriptError(path, _EMPTY)
    kind = binary_kind(data[:HEAD_BYTES])
    if kind:
        raise _binary(path, kind)
    text = decode(path, data)
    if not text or text.isspace():
        raise TranscriptError(path, _EMPTY)
    if _is_json_scalar(text):
        raise TranscriptError(path, _NOT_A_TRANSCRIPT)
    return text


def _parsed(path: Path, text: str, source: str | None = None) -> tuple[str, list[Conversation]]:
    """The source and the conversations of a whole file's text (`source` when its first
    bytes named one already)."""
    source = source or detect_text(path, text[:HEAD_BYTES]) or "markdown"
    conversations = _parse(path, source, text)
    if not conversations and source in _FALLBACKS:
        raise _unknown(path, text)
    return source, conversations


_FALLBACKS = ("markdown", "raw")
"""Readers that find no turns in a file have not taken it (its turns may also start past
the detection head); an aider or Cortexes file with none is still one of theirs."""


def _is_json_scalar(text: str) -> bool:
    """`null`, `42`, `"text"`: JSON, but nothing a chat log could start with."""
    # Bounds found by walking in from both ends: `strip` would copy a whole big file.
    start, end = 0, len(text)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    while start < end and text[start] == "\ufeff":
        start += 1
    if end - start > 1000 or start == end:
        return False
    s = text[start:end]
    if len(s) > 1000 or not (s[0] in '"-' or s[0].isdigit() or s in ("null", "true", "false")):
        return False
    try:
        json.loads(s)
    except ValueError:
        return False
    return True


def _parse(path: Path, source: str, text: Lines | Rereadable) -> list[Conversation]:
    try:
        if isinstance(text, str):
            return _READERS[source](path, text)
        if callable(text):
            return _TWICE_READERS[source](path, text)
        return _LINE_READERS[source](path, text)
    except TranscriptError:
        raise
    except RecursionError:
        raise TranscriptError(path, "nested too deeply to read; delete the file") from None
    except Exception as e:  # the contract: a result or a TranscriptError, whatever the bytes
        raise ReaderFault(path, source, e) from e


def _storable(text: str) -> str:
    """`text` with lone surrogates (a JSON `\\ud800` escape) as U+FFFD: UTF-8 has no
    bytes for them, so SQLite cannot store them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _opt(text: str | None) -> str | None:
    return None if text is None else _storable(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable_conversation(conv: Conversation) -> Conversation:
    texts = (conv.source_id, conv.parent_id, conv.title, conv.created_at, conv.updated_at)
    if not any(
        _SURROGATE.search(t) for t in (*(t for t in texts if t), *conv.meta, *conv.meta.values())
    ) and not any(
        _SURROGATE.search(m.text) or (m.timestamp and _SURROGATE.search(m.timestamp))
        for m in conv.messages
    ):
        return conv
    return replace(
        conv,
        source_id=_storable(conv.source_id),
        parent_id=_opt(conv.parent_id),
        title=_opt(conv.title),
        created_at=_opt(conv.created_at),
        updated_at=_opt(conv.updated_at),
        meta={_storable(k): _storable(v) for k, v in conv.meta.items()},
        messages=tuple(
            replace(m, text=_storable(m.text), timestamp=_opt(m.timestamp)) for m in conv.messages
        ),
    )


def _cleaned(conv: Conversation) -> tuple[Conversation, int]:
    deadline.check()
    return strip_conversation(_storable_conversation(conv))


def _finish(source: str, conversations: list[Conversation], sha: str, size: int) -> ReadResult:
    # Controls go before redaction: an escape sequence inside a key would hide it.
    cleaned = [_cleaned(c) for c in conversations]
    conversations, redactions = redact_conversations([c for c, _ in cleaned])
    return ReadResult(
        source=source,
        conversations=distinct(conversations),
        redactions=redactions,
        sha256=sha,
        size=size,
        controls=sum(n for _, n in cleaned),
    )
