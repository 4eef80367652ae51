"""The run lock: one pipeline run at a time per vault (`.dreaming/run.lock`).

An exclusive `flock` on the file, taken without waiting: the kernel lets go of
it when the holder exits, however it exits (kill -9 included), so a lock is
never left stale. The holder writes its pid into the file so the refusal can
name it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from dreaming.errors import DreamingError
from dreaming.vault.paths import Vault

LOCK_NAME = "run.lock"


class RunLocked(DreamingError):
    """Another process holds the vault's run lock."""


@contextmanager
def run_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's run lock for the block, or raise RunLocked at once."""
    path = vault.state / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunLocked(
                f"{path}: another dreaming run (pid {holder}) is working on this vault; "
                "wait for it to finish, then run again"
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
