"""The vault's process locks: one pipeline run at a time (`.dreaming/run.lock`) and one
history import at a time (`.dreaming/import.lock`).

An exclusive `flock` on the file, taken without waiting: the kernel lets go of
it when the holder exits, however it exits (kill -9 included), so a lock is
never left stale. The holder writes its pid into the file so the refusal can
name it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dreaming.errors import DreamingError, VaultError
from dreaming.vault.paths import Vault

LOCK_NAME = "run.lock"
IMPORT_LOCK_NAME = "import.lock"


class RunLocked(DreamingError):
    """Another process holds the vault's run lock."""


class ImportLocked(DreamingError):
    """Another process is importing into the vault."""


@contextmanager
def run_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's run lock for the block, or raise RunLocked at once."""
    path = vault.state / LOCK_NAME

    def refuse(holder: int | None) -> DreamingError:
        return RunLocked(
            f"{path}: another dreaming run (pid {holder or 'unknown'}) is working on this vault; "
            "wait for it to finish, then run again"
        )

    with pid_lock(path, refuse):
        yield


@contextmanager
def import_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's import lock for the block, or raise ImportLocked at once."""
    path = vault.state / IMPORT_LOCK_NAME

    def refuse(holder: int | None) -> DreamingError:
        return ImportLocked(
            f"{path}: another dreaming import (pid {holder or 'unknown'}) is copying into "
            "this vault; "
            "wait for it to finish (or stop it), then run again: it resumes where it stopped"
        )

    with pid_lock(path, refuse):
        yield


@contextmanager
def pid_lock(path: Path, refuse: Callable[[int | None], DreamingError]) -> Iterator[None]:
    """Hold `path`'s flock for the block with our pid written in, or raise what `refuse`
    makes of the holder's pid (None when it cannot be read) at once."""
    try:
        # Never through a link: O_CREAT would make its target, wherever it points.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.EMLINK):
            raise
        raise VaultError(
            f"{path}: a link; dreaming keeps its locks only in real files, "
            "so delete the link, then run again"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise refuse(_pid_in(fd)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def lock_holder(path: Path) -> int | None:
    """The pid holding the flock of `path` (any pid lock: run, import, watch).

    A probe that took the lock, even for a moment, could make its real taker fail at
    that moment; so the pid in the file is read first (a holder empties it on release)
    and only a live pid is confirmed with a probe (a dead holder's pid may be reused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            return None  # no lock of ours: pid_lock never takes one through a link
        raise
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
