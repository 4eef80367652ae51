"""Helpers every reader shares: decoding, JSONL iteration, placeholders, titles, times."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from dreaming.config import DEFAULT_MAX_RAW_FILE_MB
from dreaming.errors import IncompleteTranscript, TranscriptError, one_line
from dreaming.raw import deadline
from dreaming.raw.redact import MARKER, redact
from dreaming.transcript import Message, Role

KEY_ARG_CHARS = 120
TITLE_CHARS = 80

MAX_BYTES = DEFAULT_MAX_RAW_FILE_MB * 1024 * 1024

Lines = str | Iterator[str]
"""A reader's input: the whole text, or (for line-based formats) its lines as a stream."""

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x7fELF", "executable"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
)

_ISO_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LEADING_TAGS_RE = re.compile(r"^(?:\[[^\]]{0,60}\]\s*)+")


def binary_kind(head: bytes) -> str | None:
    """Name what a binary file is, or None when the bytes can be text."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[:12].startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "WebP image"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None  # UTF-16 text: its NULs are not a sign of binary
    if b"\x00" in head[:8192]:
        return "binary data"
    return None


def read_small(path: Path, cap: int) -> bytes | None:
    """The bytes of `path` when it is a regular file (never through a link at its end,
    never waiting on a named pipe) of at most `cap` bytes; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        data = os.read(fd, cap + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= cap else None


def decode(path: Path, data: bytes) -> str:
    """Bytes → text, or a TranscriptError that says what is wrong with them."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as e:
            raise TranscriptError(
                path, f"not valid UTF-16 text (bad bytes at offset {e.start}); re-save as UTF-8"
            ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        # A copy in progress can stop in the middle of a multi-byte character.
        if e.start >= len(data) - 3 and not data.endswith(b"\n"):
            raise IncompleteTranscript(
                path, "file ends inside a character (still being copied?); it will be retried"
            ) from None
        raise TranscriptError(
            path,
            f"not UTF-8 text (invalid byte at offset {e.start}); "
            "re-export the transcript as UTF-8 or delete the file",
        ) from None


def looks_truncated(line: str, err: json.JSONDecodeError) -> bool:
    """A JSON prefix cut off by a writer, as opposed to garbage."""
    if not line.lstrip().startswith(("{", "[")):
        return False
    if err.msg.startswith("Unterminated string"):
        return True
    rest = line[err.pos :].strip()
    if err.msg.startswith("Invalid \\uXXXX escape") and len(rest) < 6:
        return True
    if not rest:
        return True
    if len(rest) < 6 and any(lit.startswith(rest) for lit in ("true", "false", "null")):
        return True
    return bool(re.fullmatch(r"-?[0-9.eE+-]*", rest))


def json_problem(e: json.JSONDecodeError, lineno: int | None = None) -> str:
    """`at line 3 column 7 (Expecting value)`: the place, then what is wrong there."""
    msg = e.msg.removesuffix(" at")  # "Invalid control character at" names no place itself
    return f"at line {lineno or e.lineno} column {e.colno} ({msg})"


TOO_LONG = "holds a number of more than 4,300 digits, which no transcript has; delete the file"
"""What Python's JSON reader refuses besides bad JSON (a plain ValueError)."""


def iter_jsonl(path: Path, text: Lines) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, record) for every non-blank line; stop hard on a bad line."""
    lines = iter(text.split("\n") if isinstance(text, str) else text)
    loads = json.loads
    line = next(lines, None)
    i = 0
    while line is not None:
        deadline.check()
        following = next(lines, None)
        i += 1
        if not line or line.isspace():
            line = following
            continue
        try:
            obj = loads(line)
        except json.JSONDecodeError as e:
            if following is None and looks_truncated(line, e):
                raise IncompleteTranscript(
                    path,
                    f"last line {i} is cut off mid-record (file still being written?); "
                    "it will be read once it is complete",
                ) from None
            raise TranscriptError(
                path,
                f"not valid JSON {json_problem(e, i)}; re-export the session or delete the file",
            ) from None
        except RecursionError:
            raise TranscriptError(
                path, f"line {i} is nested too deeply to read; delete the file"
            ) from None
        except ValueError:
            raise TranscriptError(path, f"line {i} {TOO_LONG}") from None
        if not isinstance(obj, dict):
            raise TranscriptError(
                path,
                f"line {i} is JSON but not a record (an object was expected); "
                "this is not a session log, remove it from Raw/",
            )
        yield i, obj
        line = following


def load_json(path: Path, text: str) -> Any:
    """A whole-file JSON document; a cut-off end means the file is still being written."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        if looks_truncated(text, e):
            raise IncompleteTranscript(
                path, "JSON ends early (file still being copied?); it will be retried"
            ) from None
        raise TranscriptError(
            path,
            f"not valid JSON {json_problem(e)}; re-export it or delete the file",
        ) from None
    except RecursionError:
        raise TranscriptError(path, "JSON is nested too deeply to read; delete the file") from None
    except ValueError:
        raise TranscriptError(path, f"it {TOO_LONG}") from None


# --- text shaping ----------------------------------------------------------


def shorten(text: str, limit: int = KEY_ARG_CHARS) -> str:
    """One line of about `limit` chars. Secrets are redacted before a cut (which would
    leave a prefix no rule recognises) or a join of lines (which hides the line ends key
    blocks are recognised by); text that needs neither is redacted with its message. A
    cut never splits a marker: the marker is kept whole, counted and telling."""
    flat = one_line(text)
    if len(flat) <= limit and "\n" not in text:
        return flat
    flat = one_line(redact(text)[0])
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    bracket = cut.rfind("[")
    if bracket >= 0 and "]" not in cut[bracket:] and flat.startswith(MARKER, bracket):
        cut = flat[: flat.index("]", bracket) + 1]
    return cut.rstrip() + "…"


def lines_phrase(text: str) -> str:
    return count_phrase(text.count("\n") + 1 if text.strip() else 0)


def count_phrase(lines: int) -> str:
    """How long an output of `lines` lines was (0 when it was blank)."""
    if lines == 0:
        return "empty"
    return "1 line" if lines == 1 else f"{lines} lines"


def tool_call(name: str, arg: str | None = None) -> str:
    name = shorten(name or "tool", 40)
    if arg and arg.strip():
        return f"[tool: {name} — {shorten(arg)}]"
    return f"[tool: {name}]"


def tool_result(text: str, *, error: bool = False) -> str:
    if error:
        first = next((ln for ln in text.splitlines() if ln.strip()), "")
        return f"[tool result: error — {shorten(first)}]" if first else "[tool result: error]"
    return f"[tool result: {lines_phrase(text)}]"


def tool_output(lines: int) -> str:
    """`tool_result` of an output counted as it went by, never held: `lines` long, 0
    when it was blank."""
    return f"[tool result: {count_phrase(lines)}]"


_KEY_ARGS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "notebook_path",
    "pattern",
    "path",
    "url",
    "query",
    "description",
    "prompt",
    "skill",
    "subject",
    "taskId",
    "name",
    "code",
    "input",
    "content",
)


def key_argument(args: Any) -> str | None:
    """The one argument a person would want to see of a tool call."""
    if isinstance(args, str):
        return args
    if isinstance(args, list):
        if all(isinstance(a, str) for a in args):
            return " ".join(args)
        return f"{len(args)} items"
    if not isinstance(args, dict):
        return None
    for key in _KEY_ARGS:
        if key in args:
            value = args[key]
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, list) and value:
                return key_argument(value)
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value:
            return key_argument(value)
    return None


def title_from(messages: tuple[Message, ...] | list[Message]) -> str | None:
    """First user line, skipping commands and placeholders when anything better exists."""
    fallback: str | None = None
    users = [m for m in messages if m.role == "user"]
    # A subagent log can start without its prompt: then the first thing said names it.
    for m in users or [m for m in messages if m.role == "assistant"][:1]:
        for line in m.text.splitlines():
            line = line.strip().lstrip("#>*- ").strip()
            if not line:
                continue
            bare = _LEADING_TAGS_RE.sub("", line)
            if not bare or line.startswith("/"):
                fallback = fallback or line
                continue
            return shorten(bare, TITLE_CHARS)
    return shorten(fallback, TITLE_CHARS) if fallback else None


# --- times ------------------------------------------------------------------


def iso_from_epoch(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        # An int past a float's range overflows in the division already.
        seconds = value / 1000.0 if value > 1e11 else float(value)
        dt = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso(value: Any) -> str | None:
    """An ISO 8601 string from whatever a source stores (ISO text, epoch s/ms, date)."""
    if isinstance(value, str):
        v = value.strip()
        return v if _ISO_RE.match(v) else None
    if isinstance(value, datetime | date):
        return value.isoformat()
    return iso_from_epoch(value)


def span(messages: list[Message]) -> tuple[str | None, str | None]:
    stamps = [m.timestamp for m in messages if m.timestamp]
    if not stamps:
        return None, None
    return stamps[0], stamps[-1]


# --- building messages ------------------------------------------------------


class Turns:
    """Collects message parts in order; lets readers merge into an earlier slot."""

    def __init__(self) -> None:
        self.roles: list[Role] = []
        self.parts: list[list[str]] = []
        self.times: list[str | None] = []

    def add(self, role: Role, text: str, ts: str | None, *, merge: bool = False) -> int:
        """Append text as a new message, or onto the last one when merge and roles agree."""
        if merge and self.roles and self.roles[-1] == role:
            self.parts[-1].append(text)
            return len(self.roles) - 1
        self.roles.append(role)
        self.parts.append([text])
        self.times.append(ts)
        return len(self.roles) - 1

    def extend(self, slot: int, text: str) -> None:
        self.parts[slot].append(text)

    def last_role(self) -> Role | None:
        return self.roles[-1] if self.roles else None

    def messages(self) -> list[Message]:
        """The messages, once: each one's parts are let go as it is made, or a big log's
        text would be held twice over at the end, as parts and as messages."""
        out: list[Message] = []
        for i, (role, ts) in enumerate(zip(self.roles, self.times, strict=True)):
            text = join_parts(self.parts[i])
            self.parts[i] = []
            if text:
                out.append(Message(role=role, text=text, timestamp=ts))
        return out


def _is_placeholder(part: str) -> bool:
    return part.startswith("[") and part.endswith("]") and "\n" not in part


def join_parts(parts: list[str]) -> str:
    """Paragraphs apart, but a run of one-line placeholders stays a compact list."""
    out: list[str] = []
    prev = ""
    for p in parts:
        p = p.strip() if p else ""
        if not p:
            continue
        if out:
            out.append("\n" if _is_placeholder(prev) and _is_placeholder(p) else "\n\n")
        out.append(p)
        prev = p
    return "".join(out)


def text_of(value: Any) -> str:
    """Plain text of a string or a list of text blocks; anything else is empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        out: list[str] = []
        for block in value:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict):
                t = block.get("text")
                if isinstance(t, str):
                    out.append(t)
        return "\n".join(out)
    return ""


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
