"""What a route tells the person: one `Reaction` per thing done or refused."""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass

from dreaming.errors import DreamingError
from dreaming.vault import Vault
from dreaming.vault.logs import internal_error
from watcher.console import shown


@dataclass(frozen=True, slots=True)
class Reaction:
    route: str
    """raw, meta, station, notes, article."""
    path: str
    """Vault-relative, shown safely (`watcher.console.shown`): it is a file's name."""
    outcome: str
    """One line for the console and the log."""
    problem: bool = False
    """True when the outcome is something for the person to fix."""


Say = Callable[[Reaction], None]

_FULL = (errno.ENOSPC, errno.EDQUOT)

UNIT_FAULTS: tuple[type[Exception], ...] = (DreamingError, OSError)
"""What stops one unit of the watcher's work: said as a `Reaction` through `trouble`,
retried, never the end of the loop."""


def trouble(error: Exception, vault: Vault | None = None) -> str:
    """One line for what stopped a unit of work, with what to do; it is retried. A fault
    in dreaming's own code keeps its traceback in the vault's internal log."""
    if isinstance(error, DreamingError):
        return shown(error)
    if isinstance(error, OSError):
        where = shown(error.filename) if error.filename else "the vault"
        if error.errno in _FULL:
            return f"{where}: the disk is full; nothing was overwritten: free some space"
        return f"{where}: {shown(error.strerror or error)}; check the file and its folder"
    # A fault in dreaming itself, not in the file: the file stays as the person left it.
    if vault is None:
        return (
            f"dreaming failed on it ({type(error).__name__}: {shown(error)}); your file is "
            "untouched; save it again, and report this if it happens again"
        )
    return f"{internal_error(vault, error, 'on it')}; your file is untouched: save it again"
