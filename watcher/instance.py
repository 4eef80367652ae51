"""One watcher per vault: `.dreaming/watch.lock`.

The vault's pid lock (`dreaming.vault.lock.pid_lock`), as the run lock: an exclusive,
non-blocking `flock` with the holder's pid written in. The kernel lets go of a `flock` when the last
descriptor of it closes, however the holder died, so a lock left by a dead pid is
simply taken. The descriptor is not inherited (Python opens it close-on-exec), so a
night child that outlives a killed watcher does not keep the vault "watched".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dreaming.errors import DreamingError
from dreaming.vault import Vault
from dreaming.vault.lock import lock_holder, pid_lock

LOCK_NAME = "watch.lock"


class AlreadyWatching(DreamingError):
    """Another watcher holds the vault."""


@contextmanager
def instance_lock(vault: Vault) -> Iterator[None]:
    """Be the vault's one watcher for the block, or raise AlreadyWatching at once."""
    path = vault.state / LOCK_NAME

    def refuse(pid: int | None) -> DreamingError:
        return AlreadyWatching(
            f"{path}: a dreaming watcher (pid {pid or 'unknown'}) already watches this "
            f"vault; stop it first (kill {pid or 'PID'}, or: dreaming service uninstall)"
        )

    with pid_lock(path, refuse):
        yield


def watching_pid(vault: Vault) -> int | None:
    """The pid of the watcher holding the vault now, else None (none ran, or it died)."""
    return lock_holder(vault.state / LOCK_NAME)
