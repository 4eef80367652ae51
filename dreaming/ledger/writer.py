"""Who writes the ledger: `.dreaming/ledger.lock`, taken before SQLite's own write lock.

SQLite's busy wait is silent: a second writer learns nothing of whom it waits for until
it gives up, and then only that "the database is locked". So every write transaction
first takes an exclusive `flock` on this file and writes its holder in (pid, command,
start), which lets a writer that must wait say at once who holds the ledger and for how
long it will wait, and name the holder again when it gives up.

The kernel lets go of a `flock` when its holder exits, however it exits, and SQLite
rolls back what a dead writer left in its journal. A holder record found in a free lock
is therefore a dead process's (a live holder empties the file before it lets go): the
lock is taken over, and the taker says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import LedgerUnavailable, one_line

Notice = Callable[[str], None]
"""Where a waiting writer's one-line notices go (the CLI: stderr; the watcher: its log)."""

PATIENCE_S = 30.0
"""How long a writer waits for the holder by default: as long as SQLite's busy wait did."""
_PROGRESS_EVERY_S = 10.0


@dataclass(frozen=True)
class Holder:
    """The process holding the ledger's write lock, as it wrote itself into the file."""

    pid: int
    command: str
    since: float
    """When it took the lock (seconds since the epoch)."""

    def named(self, now: float | None = None) -> str:
        """`pid 4242 (dreaming ingest, writing since 14:02:07, 12 s ago)`."""
        at = time.strftime("%H:%M:%S", time.localtime(self.since))
        ago = max(0, round((time.time() if now is None else now) - self.since))
        return f"pid {self.pid} ({one_line(self.command, 80)}, writing since {at}, {ago} s ago)"


def lock_path(ledger: Path) -> Path:
    """`.dreaming/ledger.lock` beside `.dreaming/ledger.sqlite`."""
    return ledger.with_suffix(".lock")


class WriterLock:
    """The write lock of one ledger connection (one holder at a time, across processes
    and across connections of one process)."""

    def __init__(
        self,
        ledger: Path,
        *,
        command: str,
        patience: float = PATIENCE_S,
        notice: Notice | None = None,
    ) -> None:
        self.ledger = ledger
        self.command = command
        self.patience = patience
        self.notice = notice
        self.held = False
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, waiting up to `patience` for its holder (said at once through
        `notice`, then every 10 s); raise LedgerUnavailable naming the holder after."""
        fd = self._open()
        if not _try_lock(fd):
            self._wait(fd)
        left = holder_in(fd)
        _write_holder(fd, Holder(os.getpid(), self.command, time.time()))
        self.held = True
        if left is not None and self.notice is not None:
            self.notice(
                f"{self.ledger}: took over the ledger's write lock from "
                f"{left.named()}, which ended without letting go of it; "
                "SQLite rolled back what it left unfinished"
            )

    def release(self) -> None:
        if self._fd is None or not self.held:
            return
        # Emptied before it is let go: a record in a free lock means its holder died.
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        self.held = False

    def close(self) -> None:
        self.release()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _open(self) -> int:
        if self._fd is None:
            path = lock_path(self.ledger)
            try:
                # Never through a link: the lock must not make or hold a file elsewhere.
                self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except OSError as e:
                if os.path.islink(path):
                    raise LedgerUnavailable(
                        f"{path}: a link; dreaming keeps the ledger's lock only in a real "
                        "file, so delete the link, then run again"
                    ) from e
                raise LedgerUnavailable(
                    f"{lock_path(self.ledger)}: cannot open the ledger's lock "
                    f"({e.strerror or e}); check the folder's permissions"
                ) from e
        return self._fd

    def _wait(self, fd: int) -> None:
        started = time.monotonic()
        holder = holder_in(fd)
        self._say(
            f"{self.ledger}: waiting up to {self.patience:g} s for the ledger: "
            f"{_who(holder)} is writing it"
        )
        said = started
        pause = 0.01
        while True:
            time.sleep(pause)
            pause = min(pause * 2, 0.25)
            if _try_lock(fd):
                return
            now = time.monotonic()
            holder = holder_in(fd) or holder
            if now - started >= self.patience:
                raise LedgerUnavailable(
                    f"{self.ledger}: gave up after {now - started:.0f} s waiting for "
                    f"{_who(holder)}, which is still writing the ledger; wait for it to "
                    f"finish (or stop it{_kill(holder)}), then retry"
                )
            if now - said >= _PROGRESS_EVERY_S:
                said = now
                self._say(
                    f"{self.ledger}: still waiting for the ledger "
                    f"({now - started:.0f} s of {self.patience:g} s): {_who(holder)}"
                )

    def _say(self, line: str) -> None:
        if self.notice is not None:
            self.notice(line)


def current_holder(ledger: Path) -> Holder | None:
    """Who holds the ledger's write lock now, as its file says (None: nobody says)."""
    try:
        fd = os.open(lock_path(ledger), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        return holder_in(fd)
    finally:
        os.close(fd)


def holder_in(fd: int) -> Holder | None:
    """The holder record in the lock file (None: empty, or not one of ours)."""
    text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
    try:
        doc = json.loads(text)
        return Holder(int(doc["pid"]), str(doc["command"]), float(doc["since"]))
    except (ValueError, KeyError, TypeError):
        return None


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _write_holder(fd: int, holder: Holder) -> None:
    doc = {"pid": holder.pid, "command": holder.command, "since": holder.since}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(doc) + "\n").encode("utf-8"), 0)


def _who(holder: Holder | None) -> str:
    return "another dreaming process" if holder is None else holder.named()


def _kill(holder: Holder | None) -> str:
    return "" if holder is None else f": kill {holder.pid}"
