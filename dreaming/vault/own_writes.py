"""The registry of our own writes, so the watcher can ignore its own echoes.

One registry per app (built by the app context, handed to every writer): never
a module global, so two apps in one process, or two tests, never share echoes.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from dreaming.vault.checksums import current_checksum


class OwnWrites:
    """Checksums of files we just wrote, so the watcher can ignore its own echoes.

    An event is ours only if the file still has the checksum we wrote: a
    person's edit that lands right after ours has a different checksum and is
    therefore never mistaken for our own write.
    """

    def __init__(self, ttl: float = 120.0) -> None:
        self._ttl = ttl
        self._lock = threading.Lock()
        self._seen: dict[Path, tuple[str, float]] = {}

    def record(self, path: Path, digest: str) -> None:
        with self._lock:
            self._seen[path.resolve()] = (digest, time.monotonic())

    def is_own(self, path: Path) -> bool:
        with self._lock:
            entry = self._seen.get(path.resolve())
            if entry is None:
                return False
            digest, at = entry
            if time.monotonic() - at > self._ttl:
                del self._seen[path.resolve()]
                return False
        return current_checksum(path) == digest
