"""What installing a hook into a host's settings file takes, whatever the host: the command
line, knowing ours from the person's, a timestamped backup, and an atomic replace that
refuses when the file changed under us.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dreaming.capture import hook
from dreaming.errors import DreamingError
from dreaming.vault.checksums import checksum
from dreaming.vault.writes import durable_temp

HOOK_FILE = Path(hook.__file__).resolve()
MARK = "dreaming/capture/hook.py"
"""Every command of ours runs this file, wherever dreaming is installed: the tell of ours."""


class HookError(DreamingError):
    """A host's settings cannot be changed as asked; nothing was changed."""


@dataclass(frozen=True, slots=True)
class Change:
    """What an install or uninstall did to one file."""

    path: Path
    changed: bool
    detail: str
    """One line for the person."""
    backup: Path | None = None


@dataclass(frozen=True, slots=True)
class Installed:
    """What a host's settings hold of ours."""

    path: Path
    argv: tuple[str, ...] | None
    """Our command, or None when none is installed."""
    events: tuple[str, ...] = ()
    problem: str | None = None
    """Why the file could not be read, in one line."""
    warning: str | None = None
    """Why the installed hook may not run (a setting of the host's), in one line."""


def hook_argv(host: str, vault: Path) -> list[str]:
    """The command a host runs: this Python, isolated and without `site` (-I -S: only the
    standard library, so it starts fast and no PYTHONPATH or user site changes it), on the
    hook file by its absolute path."""
    python = sys.executable
    if not python:
        raise HookError("this Python does not know its own executable; run dreaming from its venv")
    return [python, "-I", "-S", str(HOOK_FILE), host, str(vault.resolve())]


def shell_command(argv: list[str]) -> str:
    return shlex.join(argv)


def is_ours(command: object) -> bool:
    return isinstance(command, str) and MARK in command.replace("\\", "/")


def vault_in(argv: tuple[str, ...] | list[str]) -> str | None:
    """The vault our command names: the argument after the host."""
    for i, arg in enumerate(argv):
        if is_ours(arg) and i + 2 < len(argv):
            return argv[i + 2]
    return None


def missing_parts(argv: tuple[str, ...]) -> list[str]:
    """What our installed command needs that is gone (a moved venv, a deleted vault)."""
    gone = []
    at = next((i for i, a in enumerate(argv) if is_ours(a)), None)
    if argv and not Path(argv[0]).is_file():
        gone.append(f"the Python {argv[0]} is gone")
    if at is not None and not Path(argv[at]).is_file():
        gone.append(f"the hook file {argv[at]} is gone")
    vault = vault_in(argv)
    if vault is not None and not (Path(vault) / ".dreaming").is_dir():
        gone.append(f"the vault {vault} is gone")
    return gone


MAX_SETTINGS = 4 << 20
"""Settings files are a few KB: a larger file is not read (nor a FIFO, nor a device)."""
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_bytes(path: Path) -> bytes | None:
    """The bytes of the settings file at `path` (a link followed to its file), or None
    when there is none. Only a regular file of at most MAX_SETTINGS bytes is read:
    non-blocking, so a FIFO is refused rather than waited on, and never past the cap."""
    try:
        fd = os.open(path, _READ)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise HookError(f"{path}: cannot be read ({e.strerror}); nothing was changed") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise HookError(f"{path}: is a folder, not a settings file; nothing was changed")
        if not stat.S_ISREG(st.st_mode):
            raise HookError(
                f"{path}: not a regular file (a FIFO, a socket or a device); give the "
                "settings file itself; nothing was changed"
            )
        chunks: list[bytes] = []
        size = 0 if st.st_size <= MAX_SETTINGS else st.st_size
        while size <= MAX_SETTINGS:
            chunk = os.read(fd, MAX_SETTINGS + 1 - size)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise HookError(
            f"{path}: over {MAX_SETTINGS >> 20} MB, too large for a settings file; "
            "nothing was changed"
        )
    except OSError as e:
        raise HookError(f"{path}: cannot be read ({e.strerror}); nothing was changed") from None
    finally:
        os.close(fd)


def read_text(path: Path) -> str | None:
    """The file's text, or None when there is none."""
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError(
            f"{path}: not UTF-8 text; fix or move it, then run again; nothing was changed"
        ) from None


def encode(path: Path, text: str) -> bytes:
    """What is to be written to `path`, as UTF-8: checked before any backup or write."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        near = text[max(0, e.start - 30) : e.end].encode("utf-8", "backslashreplace").decode()
        raise HookError(
            f"{path}: dreaming's command would name a path that is not UTF-8 "
            f"(…{' '.join(near.split())}); move it to a UTF-8 name, then run again; "
            "nothing was changed"
        ) from None


def backup(path: Path) -> Path:
    """A copy of `path` beside it, named by the time: `settings.json.dreaming-backup-…`."""
    data = read_bytes(path)
    if data is None:
        raise _changed(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    mode = os.stat(path).st_mode & 0o7777
    n = 1
    while True:
        suffix = f"-{n}" if n > 1 else ""
        target = path.with_name(f"{path.name}.dreaming-backup-{stamp}{suffix}")
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            n += 1
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return target


def replace_file(path: Path, data: bytes, before: str | None) -> None:
    """Write `data` to `path` atomically if it still holds `before` (None: no file).

    A settings file that is a link (a dotfiles repository) keeps its link: the file it
    leads to is written."""
    target = Path(os.path.realpath(path))
    expected = None if before is None else checksum(before)
    if _current(target) != expected:
        raise _changed(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = durable_temp(target.parent, data, prefix=f".{target.name}.")
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777 if before is not None else 0o644)
        if _current(target) != expected:
            raise _changed(path)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def remove_file(path: Path, before: str) -> None:
    if _current(path) != checksum(before):
        raise _changed(path)
    path.unlink()


def _current(path: Path) -> str | None:
    data = read_bytes(path)
    return None if data is None else checksum(data)


def _changed(path: Path) -> HookError:
    return HookError(f"{path}: changed while dreaming was editing it; run the command again")
