"""git's index lock as dreaming takes it, and takes back from a dreaming process that died.

Git locks the index by creating `index.lock` exclusively; every git command that writes
the index refuses while it exists. A process killed while holding it (kill -9, power
loss) leaves it for ever, unless something knows the holder is gone. So dreaming's lock
says it is dreaming's: the file is made whole in a temp file (a marker, HEAD, the paths
being committed) and linked into place, never seen half-written; and while it exists its
maker holds an flock on `dreaming-index.lock.owner`, which the kernel lets go of however
the maker dies (no pid to outlive it or be reused).

A lock that says it is dreaming's while nobody holds that flock was left by a dead
process, and the next dreaming process takes it back: where HEAD moved since the lock was
made (the kill fell between moving HEAD and installing the index), the index entries of
those paths are set to HEAD first, still under the lock, so the person's next `git
commit` stages no revert of a commit they never saw. The new index is installed by a
rename of its own, the lock removed after it, so a kill at any point leaves a lock that
says it is dreaming's. A lock of any other shape is a person's git command: waited for,
never removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from dreaming.errors import GitError
from dreaming.vault.writes import durable_temp

OWNER = "dreaming-index.lock.owner"
"""In the git folder: flocked by the dreaming process that holds the index lock."""
_MARK = b"dreaming holds the index\0"
"""The first bytes of an index.lock dreaming made; then HEAD, then the paths, NUL-separated."""
_TEMP = "dreaming-index."
"""The name our temp files in the git folder start with."""

Head = Callable[[], str | None]
"""The commit HEAD names now (None on an unborn branch)."""
Reset = Callable[[Path, Sequence[str]], None]
"""Set the entries of these paths in this index file to HEAD's."""


def lock_message(lock: Path) -> str:
    return (
        f"{lock} is held by another git process or left by a crash; "
        "if no git command is running in the vault, delete that file"
    )


@contextmanager
def held(
    git_dir: Path,
    rels: Sequence[str],
    head: Head,
    reset: Reset,
    *,
    retries: int,
    wait: float,
) -> Iterator[Path]:
    """Hold git's lock on the index; yield a copy to edit, installed as the index when the
    block ends without an exception. GitError when the lock stays held by another."""
    lock = git_dir / "index.lock"
    with _owner(git_dir, retries, wait) as mine:
        if not mine:
            raise GitError(lock_message(lock))
        for leftover in git_dir.glob(f"{_TEMP}*.tmp"):
            # A dead holder's: only the holder of the owner flock writes these.
            leftover.unlink(missing_ok=True)
        made = _acquire(lock, rels, head, reset, retries, wait)
        try:
            with tempfile.TemporaryDirectory(prefix="dreaming-index-") as tmp:
                copy = Path(tmp) / "index"
                real = git_dir / "index"
                if real.exists():
                    shutil.copyfile(real, copy)
                yield copy
                _install(real, copy)
        finally:
            with contextlib.suppress(OSError):
                if lock.stat().st_ino == made:
                    lock.unlink()


def take_back(git_dir: Path, head: Head, reset: Reset) -> bool:
    """Take back `index.lock` if a dreaming process that is gone left it; whether it did.
    Waits for nothing: a live dreaming process's lock, or anyone else's, is left alone."""
    with _owner(git_dir, retries=1, wait=0) as mine:
        return mine and _take_back(git_dir / "index.lock", head, reset)


@contextmanager
def _owner(git_dir: Path, retries: int, wait: float) -> Iterator[bool]:
    """Whether the owner flock is held for the block (then no other dreaming process is
    inside its index lock); `retries` tries, `wait` seconds apart."""
    fd = os.open(git_dir / OWNER, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        for attempt in range(retries):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if attempt < retries - 1:
                    time.sleep(wait)
                continue
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            return
        yield False
    finally:
        os.close(fd)


def _acquire(
    lock: Path, rels: Sequence[str], head: Head, reset: Reset, retries: int, wait: float
) -> int:
    """Make our lock (its inode), taking back a dead dreaming process's on the way."""
    content = _MARK + "\0".join([head() or "", *rels]).encode("utf-8", "surrogateescape")
    for attempt in range(retries):
        made = _make(lock, content)
        if made is not None:
            return made
        if _take_back(lock, head, reset):
            continue
        if attempt < retries - 1:
            time.sleep(wait)
    raise GitError(lock_message(lock))


def _make(lock: Path, content: bytes) -> int | None:
    """Create `lock` holding `content`, whole from its first instant; its inode, or None
    when a lock is there already."""
    temp = durable_temp(lock.parent, content, prefix=_TEMP)
    try:
        made = temp.stat().st_ino
        os.link(temp, lock)
    except FileExistsError:
        return None
    except OSError:
        # No hard links on this filesystem (exFAT, some network shares): created in
        # place, so only a kill before its bytes are written leaves a lock we never
        # recognise, which the person is told to delete.
        return _make_in_place(lock, content)
    finally:
        temp.unlink(missing_ok=True)
    return made


def _make_in_place(lock: Path, content: bytes) -> int | None:
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return None
    with os.fdopen(fd, "wb") as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())
        return os.fstat(f.fileno()).st_ino


def _take_back(lock: Path, head: Head, reset: Reset) -> bool:
    """Under the owner flock: remove `lock` if it says it is dreaming's (its maker is then
    dead), the index first set right; whether it was removed (or gone meanwhile)."""
    try:
        left = _dreamings(lock)
    except FileNotFoundError:
        return True
    if left is None:
        return False
    was, *rels = left.decode("utf-8", "surrogateescape").split("\0")
    now = head()
    if rels and now is not None and now != was:
        real = lock.with_name("index")
        with tempfile.TemporaryDirectory(prefix="dreaming-index-") as tmp:
            copy = Path(tmp) / "index"
            if real.exists():
                shutil.copyfile(real, copy)
            reset(copy, rels)
            _install(real, copy)
    lock.unlink(missing_ok=True)
    return True


def _dreamings(lock: Path) -> bytes | None:
    """What follows our marker in `lock`; None for a lock that is not dreaming's."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            raise
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode) or f.read(len(_MARK)) != _MARK:
            return None
        return f.read()


def _install(real: Path, new: Path) -> None:
    """Put the index file `new` in place of `real`, atomically, keeping its mode."""
    temp = durable_temp(real.parent, new.read_bytes(), prefix=_TEMP)
    try:
        os.chmod(temp, stat.S_IMODE(real.stat().st_mode) if real.exists() else 0o644)
        os.replace(temp, real)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
