"""Checksum-guarded atomic writes.

Never lose a person's text: every write names the checksum of the text it
started from; if the file on disk no longer has that checksum (the person
edited it meanwhile), the write is refused with ConflictError and retried on
a later run. Writes go to a temp file in the same folder and are renamed into
place, so a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from dreaming.errors import ConflictError
from dreaming.vault.checksums import checksum, current_checksum

if TYPE_CHECKING:
    from dreaming.vault.own_writes import OwnWrites
    from dreaming.vault.paths import Vault


def durable_temp(folder: Path, data: bytes, *, prefix: str) -> Path:
    """A hidden temp file in `folder` holding `data`, flushed to disk: the first half
    of every atomic write (the second is a rename or a link)."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def replace_file(path: Path, data: bytes) -> None:
    """Put `data` in place of `path` whole, keeping its mode: for a file outside the
    vault's pages (git's `info/exclude`) that a crash must not leave half written. A
    link there is replaced by a file, never written through."""
    tmp = durable_temp(path.parent, data, prefix=f".{path.name}.")
    try:
        mode = path.lstat().st_mode & 0o7777 if path.exists() and not path.is_symlink() else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


_TEMP_RANDOM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
"""The characters of the 8 that `tempfile.mkstemp` puts in a name."""


def is_write_temp(name: str) -> bool:
    """Whether `name` is the temp file of `write_atomic` for a Markdown page:
    `.<page>.md.<8 random characters>.tmp`."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return False
    target, dot, random = name[1:-4].rpartition(".")
    return bool(dot) and target.endswith(".md") and len(random) == 8 and set(random) <= _TEMP_RANDOM


def remove_leftover_temps(folder: Path) -> int:
    """Delete the temp files of writes into `folder` that a killed process never renamed
    into place; how many. Call it only where no write into `folder` can be running."""
    removed = 0
    try:
        entries = list(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return 0
    for entry in entries:
        if is_write_temp(entry.name) and entry.is_file() and not entry.is_symlink():
            entry.unlink(missing_ok=True)
            removed += 1
    return removed


def write_atomic(
    path: Path,
    text: str | bytes,
    *,
    expected: str | None,
    registry: OwnWrites | None,
    vault: Vault,
) -> str:
    """Write `text` to `path` atomically if the file still has checksum `expected`.

    `expected=None` means the file must not exist yet. `registry` is the app's
    own-write registry (None: a write nothing watches). Returns the new checksum.
    Raises ConflictError, leaving the file untouched, when the file changed, and
    RefusedFileError when `path` is a link or lies behind a folder leading out of
    `vault` (`Vault.writable`).
    """
    vault.writable(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    if current_checksum(path) != expected:
        raise ConflictError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = durable_temp(path.parent, data, prefix=f".{path.name}.")
    try:
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        if expected is None:
            # A link never replaces: a file the person created meanwhile wins.
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise ConflictError(path, "created during the write") from None
            except OSError:
                # No hard links on this filesystem (exFAT, some network shares).
                if path.exists():
                    raise ConflictError(path, "created during the write") from None
                os.replace(tmp, path)
            tmp.unlink(missing_ok=True)
        else:
            # Second look right before the rename: a person's save that landed
            # while we were writing the temp file still wins.
            if current_checksum(path) != expected:
                raise ConflictError(path, "edited during the write")
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    digest = checksum(data)
    if registry is not None:
        registry.record(path, digest)
    return digest
