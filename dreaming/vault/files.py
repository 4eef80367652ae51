"""Reading a file of the vault: the one way dreaming reads what a person may have put there.

A vault is a folder anyone can put anything in. A named pipe at `articles/X.md` blocks
a plain `open()` until something writes to it (a watcher stuck there ignores SIGTERM),
a link carries a read anywhere on the disk, and a 10 GB file fills the memory. So a
read here opens without following the last link (`O_NOFOLLOW`) and without waiting on
a pipe (`O_NONBLOCK`), refuses a file whose folder leads out of the vault, looks at
what it opened (`fstat`) before reading it, and reads at most one byte past its cap.
Whatever is refused is a `RefusedFileError`: one line naming the file and the fix.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dreaming.errors import RefusedFileError
from dreaming.vault.paths import Vault

MAX_PAGE_BYTES = 4 * 1024 * 1024
"""An article, Talk or Log page, or a person's own Meta page: a bigger file is no page a
person wrote (the read path's index refuses the same, dreaming/query/index.py)."""

MAX_STATE_BYTES = 1024 * 1024
"""One of dreaming's own small JSON files in `.dreaming/` (the heartbeat, the schedule,
a night request)."""

LINK = "a link; dreaming reads only real files in the vault, so put the file itself in its place"
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def read_bytes(vault: Vault, path: Path, *, cap: int, what: str) -> bytes:
    """The bytes of `path`, a regular file in `vault` of at most `cap` bytes; `what` the
    file is says it in a refusal ("a policy page").

    FileNotFoundError when there is none; RefusedFileError for anything else that is
    not such a file; OSError when the file cannot be opened (its permissions)."""
    rel, real = _placed(vault, path)
    try:
        fd = os.open(real, _FLAGS)
    except OSError as e:
        # O_NOFOLLOW on a link: ELOOP (Linux, macOS) or EMLINK (FreeBSD); a socket: ENXIO.
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise RefusedFileError(rel, LINK) from None
        if e.errno == errno.ENXIO:
            raise RefusedFileError(rel, "a socket, not a file; delete it") from None
        raise
    try:
        st = os.fstat(fd)
        kind = _not_a_file(st.st_mode)
        if kind is not None:
            raise RefusedFileError(rel, kind)
        if st.st_size > cap:
            raise _too_big(rel, st.st_size, cap, what)
        data = _read_at_most(fd, cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        # It grew since the fstat: its size now is unknown, only that it is too big.
        raise _too_big(rel, len(data), cap, what)
    return data


def read_optional(vault: Vault, path: Path, *, cap: int, what: str) -> bytes | None:
    """`read_bytes`, or None when there is no file at `path`."""
    try:
        return read_bytes(vault, path, cap=cap, what=what)
    except FileNotFoundError:
        return None


def read_page(vault: Vault, path: Path, *, what: str) -> tuple[bytes, str] | None:
    """A page's bytes (for the checksum an edit is made from) and its text; None when
    there is none. RefusedFileError for what `read_bytes` refuses and for bytes that
    are not UTF-8."""
    data = read_optional(vault, path, cap=MAX_PAGE_BYTES, what=what)
    if data is None:
        return None
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError:
        rel, _ = _placed(vault, path)
        raise RefusedFileError(rel, "not UTF-8 text; save it as UTF-8") from None


def read_articles(vault: Vault) -> dict[str, str]:
    """Every readable article's text by stem, in stem order; one that is refused, gone
    or not UTF-8 is left out (the audit names it)."""
    out: dict[str, str] = {}
    if not vault.articles.is_dir():
        return out
    for path in sorted(vault.articles.glob("*.md")):
        if path.name.startswith("."):
            continue
        try:
            page = read_page(vault, path, what="an article")
        except RefusedFileError:
            continue
        if page is not None:
            out[path.stem] = page[1]
    return out


def refusal(vault: Vault, path: Path) -> str | None:
    """Why `path` is no file `read_bytes` would read, from its `lstat` alone, without
    opening it; None for a regular file or none at all (a listing uses this)."""
    try:
        _, real = _placed(vault, path)
    except RefusedFileError as e:
        return e.reason
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return None
    return LINK if stat.S_ISLNK(st.st_mode) else _not_a_file(st.st_mode)


def _placed(vault: Vault, path: Path) -> tuple[str, str]:
    """`path`'s vault-relative name for messages, and its path through its real folder;
    RefusedFileError when that folder is not inside the vault."""
    folder = os.path.realpath(path.parent)
    root = str(vault.root)
    inside = folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)
    try:
        rel = path.relative_to(vault.root).as_posix()
    except ValueError:
        rel = str(path)
    if not inside:
        raise RefusedFileError(
            rel,
            f"its folder leads out of the vault (to {folder}); dreaming reads nothing "
            "outside the vault, so put a real folder in its place",
        )
    return rel, os.path.join(folder, path.name)


def _not_a_file(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a file; delete it"
    if stat.S_ISDIR(mode):
        return "a folder, not a file; move it out of the way"
    if stat.S_ISSOCK(mode):
        return "a socket, not a file; delete it"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file; delete it"
    return "not a regular file; delete it"


def _too_big(rel: str, size: int, cap: int, what: str) -> RefusedFileError:
    return RefusedFileError(
        rel, f"{size} bytes, over the {_amount(cap)} {what} may hold; shorten it"
    )


def _amount(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def _read_at_most(fd: int, limit: int) -> bytes:
    parts: list[bytes] = []
    left = limit
    while left > 0:
        part = os.read(fd, min(left, _CHUNK))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
