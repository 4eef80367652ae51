"""Which files in Raw/ are transcripts, and bringing a file from elsewhere into Raw/."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import TranscriptError
from dreaming.raw import too_large
from dreaming.raw.common import MAX_BYTES
from dreaming.vault import Vault

_BLOCK = 1 << 20
_SKIP_NAMES = {"README.md", ".DS_Store", "Thumbs.db", "desktop.ini"}


def not_a_candidate(rel: Path) -> str | None:
    """Why a file under Raw/ (given relative to Raw/) is not ingested, or None."""
    if any(part.startswith(".") for part in rel.parts):
        return "hidden files in Raw/ are not ingested; rename it without the leading dot"
    if rel.name in _SKIP_NAMES and len(rel.parts) == 1:
        return "this is Raw/'s own guide, not a transcript"
    if rel.name.endswith(".meta.json"):
        return "a subagent's sidecar, read with its transcript; name the transcript instead"
    return None


def raw_files(vault: Vault) -> list[Path]:
    """Every candidate transcript under Raw/, recursively, in a stable order."""
    found: list[Path] = []
    for path in sorted(vault.raw.rglob("*")):
        if not_a_candidate(path.relative_to(vault.raw)) is None and path.is_file():
            found.append(path)
    return found


def leaves_vault(vault: Vault, path: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real != vault.root and vault.root not in real.parents


def import_into_raw(vault: Vault, path: Path, max_bytes: int = MAX_BYTES) -> Path:
    """A transcript from outside the vault is copied into Raw/ (the original is untouched).

    A path inside Raw/ is returned as it is, a link included (ingest checks where it
    leads). The copy is written to a hidden temp file and hard-linked to a free name,
    so it never overwrites a file and a crash never leaves half a transcript; a copy
    of the same file made before it grew is brought up to date in place instead.
    """
    given = Path(os.path.abspath(path.expanduser()))
    if vault.raw in given.parents:
        if not given.is_file():
            raise TranscriptError(path, "no such file; give the path of a transcript file")
        return given
    src = given.resolve()
    if not src.is_file():
        raise TranscriptError(path, "no such file; give the path of a transcript file")
    if vault.raw in src.parents:
        return src
    size = src.stat().st_size
    if size > max_bytes:
        raise too_large(path, size, max_bytes)
    name = src.name.lstrip(".") or "transcript"  # a hidden name in Raw/ would be skipped
    stem, suffix = os.path.splitext(name)
    tmp = _durable_copy(src, vault.raw)
    try:
        n = 0
        while True:
            target = vault.raw / (name if n == 0 else f"{stem}-{n}{suffix}")
            n += 1
            try:
                os.link(tmp, target)
                return target
            except FileExistsError:
                pass
            except OSError:
                # No hard links on this filesystem: check, then rename.
                if not target.exists():
                    os.replace(tmp, target)
                    return target
            state = earlier_state(target, tmp)
            if state == "same":
                return target
            if state == "earlier":
                os.replace(tmp, target)
                return target
    finally:
        tmp.unlink(missing_ok=True)


def _durable_copy(src: Path, folder: Path) -> Path:
    """A hidden temp copy of `src` in `folder`, streamed and flushed to disk."""
    fd, name = tempfile.mkstemp(prefix=".import-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out, src.open("rb") as f:
            shutil.copyfileobj(f, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        shutil.copystat(src, name)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


@dataclass(frozen=True, slots=True)
class Prefix:
    """How one file's bytes stand against the start of another's."""

    sha256: str
    """Of the first file's bytes as read."""
    size: int
    """How many bytes the first file holds."""
    line: int | None
    """None when every byte of the first file starts the second; else the line (from 1)
    of the first file where the two part."""
    past_end: bool
    """The second file ends there (it holds a shorter start of that line, or none)."""


def byte_prefix(first: Path, second: Path) -> Prefix:
    """Whether `first`'s bytes are the start of `second`'s (all of it included), read a
    block at a time: memory stays a block or two whatever the sizes, and `second` is read
    no further than `first` is long."""
    sha = hashlib.sha256()
    size = newlines = 0
    line: int | None = None
    past_end = False
    with first.open("rb") as a, second.open("rb") as b:
        for chunk in iter(lambda: a.read(_BLOCK), b""):
            sha.update(chunk)
            size += len(chunk)
            if line is not None:
                continue  # parted already: the rest is read only for its checksum
            theirs = b.read(len(chunk))
            if theirs == chunk:
                newlines += chunk.count(b"\n")
                continue
            same = _common_length(chunk, theirs)
            line = newlines + chunk.count(b"\n", 0, same) + 1
            past_end = same == len(theirs)
    return Prefix(sha.hexdigest(), size, line, past_end)


def _common_length(a: bytes, b: bytes) -> int:
    """How many leading bytes `a` and `b` share: a binary search of whole-slice compares,
    which run at memory speed, where a loop over bytes would not."""
    va, vb = memoryview(a), memoryview(b)
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if va[:mid] == vb[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def earlier_state(target: Path, copy: Path) -> str | None:
    """ "same" when `target` holds what `copy` holds, "earlier" when it holds a shorter
    start of it (the same file copied before it grew), else None. Links never match."""
    if target.is_symlink() or not target.is_file():
        return None
    size = target.stat().st_size
    if size > copy.stat().st_size:
        return None
    found = byte_prefix(target, copy)
    if found.line is not None:
        return None
    return "same" if found.size == copy.stat().st_size else "earlier"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(_BLOCK), b""):
            h.update(chunk)
    return h.hexdigest()
