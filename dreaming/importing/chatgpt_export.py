"""A ChatGPT export (`.zip` or `conversations.json`) split into one file per conversation,
streamed.

An export is one JSON list holding every conversation; a big account's is gigabytes,
more than a transcript may be (`max_raw_file_mb`) and far more than memory should hold.
So the list is read through a window of text: `json.JSONDecoder.raw_decode` takes one
conversation at a time from it and the window moves on, growing only while one
conversation is longer than it. Each conversation is written as its own file, a list of
one holding its bytes exactly as exported, which the ChatGPT reader reads as it reads
the whole export (same ids, same messages). A zip is read in place, never extracted: a
member whose name would leave a folder it is extracted to (zip-slip) refuses the zip.

An export is untrusted input, so what one value may cost is bounded: a conversation
longer than a transcript may be is refused having read at most that many bytes of it,
blank space where a conversation should start at most `MAX_GAP`, and a zip is refused
before it is read when it would unpack to far more than an export compresses to.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import lzma
import os
import re
import zipfile
import zlib
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from dreaming.errors import SourceError
from dreaming.importing.item import Item

CONVERSATIONS = "conversations.json"
BLOCK = 1 << 20
MAX_GAP = 4 << 20
"""Blank space allowed where a conversation should start (an export has a few bytes)."""
MAX_RATIO = 200
"""How many times its compressed size a member may unpack to: JSON text compresses 3 to
20 times, pretty-printed and repetitive at most about 70; deflate allows about 1,000."""
BOMB_FLOOR = 16 << 20
"""A member unpacking to less is read whatever its ratio: it costs little either way."""
_NOT_BLANK = re.compile("[^ \t\r\n\ufeff]")
# A damaged stream inside a zip: zipfile lets the decompressor's own errors through.
_UNPACKING = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError)
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Export:
    path: Path
    """The zip, or the JSON file."""
    member: str | None
    """conversations.json's name inside the zip; None for a JSON file."""
    size: int
    """Bytes of the conversations list (uncompressed)."""
    file_size: int
    mtime_ns: int

    @property
    def key(self) -> str:
        """The cursor's key of the export read to its end."""
        return f"export:{self.path}"

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        if self.member is None:
            with self.path.open("rb") as f:
                yield f
            return
        try:
            with zipfile.ZipFile(self.path) as z, z.open(self.member) as f:
                yield f
        except (*_UNPACKING, RuntimeError) as e:
            # RuntimeError: an encrypted member; NotImplementedError: an unknown compression.
            raise SourceError(
                f"{self.path}: {self.member} cannot be unpacked ({e}); download the export again"
            ) from None


def json_export(path: Path, st: os.stat_result) -> Export:
    return Export(path, None, st.st_size, st.st_size, st.st_mtime_ns)


def zip_export(path: Path) -> Export:
    """The export in the zip at `path`: its conversations.json (the shallowest, if several).

    A zip holding a member whose name is absolute or climbs out with `..` is refused whole:
    an archive built to write outside its folder is not an export to trust."""
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
    except zipfile.BadZipFile as e:
        raise SourceError(f"{path}: not a readable zip ({e}); download the export again") from None
    for info in infos:
        if unsafe_member(info.filename):
            raise SourceError(
                f"{path}: holds a member named {info.filename!r} that would be written outside "
                "the folder it is unpacked into (zip-slip); refused, nothing imported from it"
            )
    found = [i for i in infos if not i.is_dir() and i.filename.rsplit("/", 1)[-1] == CONVERSATIONS]
    if not found:
        raise SourceError(
            f"{path}: no {CONVERSATIONS} in this zip; a ChatGPT data export (Settings → Data "
            f"controls → Export data) holds one: give that zip, or the {CONVERSATIONS} itself"
        )
    best = min(found, key=lambda i: (i.filename.count("/"), i.filename))
    if best.file_size > BOMB_FLOOR and best.file_size > MAX_RATIO * best.compress_size:
        raise SourceError(
            f"{path}: its {CONVERSATIONS} would unpack to {_amount(best.file_size)} from "
            f"{_amount(best.compress_size)} ({best.file_size // max(best.compress_size, 1):,} "
            "times as much), far more than any export compresses (a zip bomb?); refused: "
            "download the export again"
        )
    st = path.stat()
    export = Export(path, best.filename, best.file_size, st.st_size, st.st_mtime_ns)
    with export.open() as f:
        # What is inside is known before anything is copied, from any source.
        window = _Window(f, ReadCount())
        window.skip_space(str(path))
        if window.peek() not in ("[", "{"):
            raise SourceError(
                f"{path}: its {CONVERSATIONS} is not a ChatGPT export (it does not start with "
                "a list of conversations); give the zip of a ChatGPT data export"
            )
    return export


def unsafe_member(name: str) -> bool:
    """Whether a zip member's name leaves the folder it is unpacked into."""
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or bool(re.match(r"[A-Za-z]:", name)) or ".." in parts


@dataclass
class ReadCount:
    """How far a split has read (for a progress bar): bytes of the export consumed."""

    read: int = 0


def conversations(
    export: Export, counter: ReadCount, max_bytes: int
) -> Generator[Item, None, None]:
    """Every conversation of `export` as an Item (its bytes as a file of its own), in
    export order; memory holds one conversation (at most `max_bytes`) and a window of
    about a MB. An element that is no conversation is left out; a list holding none is
    no export."""
    where = str(export.path)
    elements = found = 0
    with export.open() as f:
        for text, obj in _elements(_Window(f, counter), where, max_bytes):
            elements += 1
            item = _item(text, obj)
            if item is not None:
                found += 1
                yield item
    if elements and not found:
        raise SourceError(
            f"{where}: not a ChatGPT export: none of its {elements:,} elements is a "
            f"conversation (none has a mapping); give the {CONVERSATIONS} of a ChatGPT "
            "data export"
        )


def _elements(w: _Window, where: str, max_bytes: int) -> Iterator[tuple[str, Any]]:
    w.skip_space(where)
    opening = w.peek()
    if opening == "{":
        # One conversation alone, not in a list: the ChatGPT reader reads it too.
        text, obj = w.value(where, max_bytes)
        if not _is_conversation(obj):
            raise SourceError(
                f"{where}: not a ChatGPT export (a JSON object that is no conversation: it "
                f"has no mapping); give the export's {CONVERSATIONS}"
            )
        yield text, obj
        return
    if opening != "[":
        raise SourceError(
            f"{where}: not a ChatGPT export (it does not start with a list of conversations); "
            f"give the export's {CONVERSATIONS}"
        )
    w.pos += 1
    first = True
    while True:
        w.skip_space(where)
        c = w.peek()
        if c == "]":
            return
        if not first:
            if c != ",":
                raise w.broken(where, "a ',' or the list's end expected")
            w.pos += 1
            w.skip_space(where)
            c = w.peek()
        if c != "{":
            raise w.broken(where, "a conversation (a JSON object) expected")
        first = False
        yield w.value(where, max_bytes)


class _Window:
    """A binary stream as text, read a block at a time; `pos` is where reading stands."""

    def __init__(self, f: IO[bytes], counter: ReadCount) -> None:
        self._f = f
        self._counter = counter
        # surrogateescape: any byte survives decoding and encoding unchanged, so a
        # conversation is written with exactly the bytes it was exported with.
        self._decode = codecs.getincrementaldecoder("utf-8")("surrogateescape").decode
        self.text = ""
        self.pos = 0
        self.eof = False
        self._before = 0
        """Bytes decoded before `text` began (for the place of an error)."""
        self._read = 0
        """Bytes read from the stream."""

    def _fill(self, size: int) -> bool:
        if self.eof:
            return False
        data = self._f.read(size)
        self._read += len(data)
        self._counter.read += len(data)
        self._before += len(self.text[: self.pos].encode("utf-8", "surrogateescape"))
        self.text = self.text[self.pos :] + self._decode(data, final=not data)
        self.pos = 0
        self.eof = not data
        return True

    def peek(self) -> str:
        while self.pos >= len(self.text):
            if not self._fill(BLOCK):
                return ""
        return self.text[self.pos]

    def skip_space(self, where: str) -> None:
        """Past blank space, at most `MAX_GAP` of it (the window never holds more than
        a block of it)."""
        skipped = 0
        while True:
            found = _NOT_BLANK.search(self.text, self.pos)
            end = len(self.text) if found is None else found.start()
            skipped += end - self.pos
            self.pos = end
            if skipped > MAX_GAP:
                raise SourceError(
                    f"{where}: more than {_amount(MAX_GAP)} of blank space at byte "
                    f"{self._offset() - skipped} where a conversation should start; the "
                    "export is damaged: download it again"
                )
            if end < len(self.text) or not self._fill(BLOCK):
                return

    def value(self, where: str, max_bytes: int) -> tuple[str, Any]:
        """The JSON value at `pos` (its text and what it holds); reads on while it is
        cut off by the window's end, the window doubling each time but never past one
        byte over `max_bytes` of the value: that byte refuses it."""
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as e:
                if self.eof or not _cut_off(self.text, e):
                    raise self.broken(where, e.msg, e.pos) from None
                held = self._read - self._offset()
                if held > max_bytes:
                    raise SourceError(
                        f"{where}: a conversation at byte {self._offset()} is over "
                        f"{_amount(max_bytes)}, the limit for a transcript; raise "
                        "max_raw_file_mb in .dreaming/config.toml to import it"
                    ) from None
                self._fill(min(max(BLOCK, held), max_bytes + 1 - held))
                continue
            except ValueError:
                # Not bad JSON but a number Python will not read (over 4,300 digits).
                raise self.broken(where, "a number of more than 4,300 digits") from None
            except RecursionError:
                raise self.broken(where, "nested too deeply") from None
            text = self.text[self.pos : end]
            self.pos = end
            return text, obj

    def _offset(self, pos: int | None = None) -> int:
        upto = self.text[: self.pos if pos is None else pos]
        return self._before + len(upto.encode("utf-8", "surrogateescape"))

    def broken(self, where: str, what: str, pos: int | None = None) -> SourceError:
        return SourceError(
            f"{where}: not valid JSON at byte {self._offset(pos)} ({what}); the export is "
            "damaged or cut short: download it again"
        )


def _amount(n: int) -> str:
    """`1.5 MB`, `512 MB`, `16 KB`: a size in a line for the person."""
    value, unit = (n / (1 << 20), "MB") if n >= 1 << 20 else (n / 1024, "KB")
    shown = f"{value:,.0f}" if value >= 10 else f"{value:.1f}".removesuffix(".0")
    return f"{shown} {unit}"


def _cut_off(text: str, e: json.JSONDecodeError) -> bool:
    """Whether the error is the window's end, not a fault: an open string, or a place
    within a literal's length (`tru`, `-12`) of the end."""
    return e.msg.startswith("Unterminated string") or len(text) - e.pos < 16


def _item(text: str, obj: Any) -> Item | None:
    """A conversation as a one-conversation export file; None for an element that is not
    a conversation (no `mapping`), which the reader would refuse."""
    if not _is_conversation(obj):
        return None
    own = _str(obj.get("conversation_id")) or _str(obj.get("id"))
    created, updated = _time(obj.get("create_time")), _time(obj.get("update_time"))
    data = ("[\n" + text + "\n]\n").encode("utf-8", "surrogateescape")
    digest = hashlib.sha256(data).hexdigest()
    if own is None:
        # No id of its own: named by what does not change when it grows.
        own = hashlib.sha256(f"{created}\0{_str(obj.get('title'))}".encode()).hexdigest()[:32]
    name = own if _SAFE_ID.fullmatch(own) else hashlib.sha256(own.encode()).hexdigest()[:32]
    folder = (
        "undated" if created is None else datetime.fromtimestamp(created, UTC).strftime("%Y/%m")
    )
    return Item(
        key=f"chatgpt:{own}",
        kind="conversation",
        source="chatgpt",
        rel=f"{folder}/{name}.json",
        size=len(data),
        mtime_ns=0,
        when=updated if updated is not None else created,
        data=data,
        digest=digest,
    )


def _is_conversation(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("mapping"), dict)


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _time(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    t = float(v)
    # Far outside any real export: seconds this large or negative are no date.
    return t if 0 < t < 1e11 else None
