"""Checksums of text and of the file at a path: what every guarded write compares."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path


def checksum(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


NOT_A_FILE = "not a regular file"
"""`current_checksum` of a named pipe, a folder, a socket: equal to no checksum, so a
write guarded by one is refused and an own-write registry never matches."""


def current_checksum(path: Path) -> str | None:
    """The checksum of the file at `path`, None when there is none. Never waits on a
    named pipe (opened non-blocking, looked at before it is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ENXIO:  # a socket
            return NOT_A_FILE
        raise
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_A_FILE
        return hashlib.file_digest(f, "sha256").hexdigest()
