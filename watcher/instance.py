"""One watcher per vault: `.dreaming/watch.lock`.

The run lock's pattern (dreaming/vault/lock.py): an exclusive, non-blocking `flock`
with the holder's pid written in. The kernel lets go of a `flock` when the last
descriptor of it closes, however the holder died, so a lock left by a dead pid is
simply taken. The descriptor is not inherited (Python opens it close-on-exec), so a
night child that outlives a killed watcher does not keep the vault "watched".
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dreaming.errors import DreamingError
from dreaming.vault import Vault

LOCK_NAME = "watch.lock"


class AlreadyWatching(DreamingError):
    """Another watcher holds the vault."""


@contextmanager
def instance_lock(vault: Vault) -> Iterator[None]:
    """Be the vault's one watcher for the block, or raise AlreadyWatching at once."""
    path = vault.state / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            raise AlreadyWatching(
                f"{path}: a dreaming watcher (pid {pid or 'unknown'}) already watches this "
                f"vault; stop it first (kill {pid or 'PID'}, or: dreaming service uninstall)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def watching_pid(vault: Vault) -> int | None:
    """The pid of the watcher holding the vault now, else None (none ran, or it died)."""
    return lock_holder(vault.state / LOCK_NAME)


def lock_holder(path: Path) -> int | None:
    """The pid holding the flock of `path` (a pid lock like this one or the run lock).

    A probe that took the lock, even for a moment, could make its real taker fail at
    that moment; so the pid in the file is read first (a holder empties it on release)
    and only a live pid is confirmed with a probe (a dead holder's pid may be reused)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        pid = _pid_in(fd)
        if pid is None or not _alive(pid):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return pid
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pid_in(fd: int) -> int | None:
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None
