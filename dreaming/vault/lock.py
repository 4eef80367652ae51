"""The vault's process locks: one pipeline run at a time (`.dreaming/run.lock`) and one
history import at a time (`.dreaming/import.lock`).

An exclusive `flock` on the file, taken without waiting: the kernel lets go of
it when the holder exits, however it exits (kill -9 included), so a lock is
never left stale. The holder writes its pid into the file so the refusal can
name it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dreaming.errors import DreamingError
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

    def refuse(holder: str) -> DreamingError:
        return RunLocked(
            f"{path}: another dreaming run (pid {holder}) is working on this vault; "
            "wait for it to finish, then run again"
        )

    with _held(path, refuse):
        yield


@contextmanager
def import_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's import lock for the block, or raise ImportLocked at once."""
    path = vault.state / IMPORT_LOCK_NAME

    def refuse(holder: str) -> DreamingError:
        return ImportLocked(
            f"{path}: another dreaming import (pid {holder}) is copying into this vault; "
            "wait for it to finish (or stop it), then run again: it resumes where it stopped"
        )

    with _held(path, refuse):
        yield


@contextmanager
def _held(path: Path, refuse: Callable[[str], DreamingError]) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise refuse(holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
