"""The vault's logs, `.dreaming/logs/`: rotation, and the traceback of an internal error.

A fault in dreaming's own code is said to the person in one line; the traceback a
maintainer needs goes to `internal.log`, and the line says where it is.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from dreaming.clock import utc_now
from dreaming.errors import RefusedFileError
from dreaming.vault.paths import Vault

LOG_BYTES = 1024 * 1024
LOGS_KEPT = 5
INTERNAL_LOG = "internal.log"


def rotate(path: Path, limit: int = LOG_BYTES, kept: int = LOGS_KEPT) -> None:
    """Past `limit` bytes, `path` becomes `path.1` (and .1 → .2 …, `kept` in all)."""
    try:
        if path.stat().st_size <= limit:
            return
    except FileNotFoundError:
        return
    for i in range(kept - 1, 0, -1):
        older = path.with_name(f"{path.name}.{i}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{i + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


def internal_error(vault: Vault, error: BaseException, doing: str) -> str:
    """One line for an error in dreaming's own code, its traceback appended to
    `.dreaming/logs/internal.log` (rotated like every log)."""
    path = vault.logs / INTERNAL_LOG
    told = f"internal error {doing} ({type(error).__name__})"
    try:
        vault.writable(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rotate(path)
        trace = "".join(traceback.format_exception(error))
        with path.open("a", encoding="utf-8", errors="replace") as log:
            log.write(f"{utc_now()} {told}\n{trace}\n")
    except RefusedFileError as e:
        return f"{told}; its traceback could not be kept ({e.reason}); please report it"
    except OSError as e:
        return f"{told}; its traceback could not be kept ({e.strerror or e}); please report it"
    return f"{told}; please report it with {vault.rel(path)}"
