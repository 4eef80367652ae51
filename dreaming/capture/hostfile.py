"""What installing a hook into a host's settings file takes, whatever the host: the command
line, knowing ours from the person's, a timestamped backup, and an atomic replace that
refuses when the file changed under us.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dreaming.capture import hook
from dreaming.errors import DreamingError
from dreaming.vault.writes import checksum, current_checksum, durable_temp

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


def read_text(path: Path) -> str | None:
    """The file's text, or None when there is none."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise HookError(f"{path}: is a folder, not a settings file; nothing was changed") from None
    except OSError as e:
        raise HookError(f"{path}: cannot be read ({e.strerror}); nothing was changed") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError(
            f"{path}: not UTF-8 text; fix or move it, then run again; nothing was changed"
        ) from None


def backup(path: Path) -> Path:
    """A copy of `path` beside it, named by the time: `settings.json.dreaming-backup-…`."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.dreaming-backup-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.dreaming-backup-{stamp}-{n}")
    shutil.copy2(path, target)
    return target


def replace_text(path: Path, text: str, before: str | None) -> None:
    """Write `text` to `path` atomically if it still holds `before` (None: no file).

    A settings file that is a link (a dotfiles repository) keeps its link: the file it
    leads to is written."""
    target = Path(os.path.realpath(path))
    expected = None if before is None else checksum(before)
    if current_checksum(target) != expected:
        raise _changed(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = durable_temp(target.parent, text.encode("utf-8"), prefix=f".{target.name}.")
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777 if before is not None else 0o644)
        if current_checksum(target) != expected:
            raise _changed(path)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def remove_file(path: Path, before: str) -> None:
    if current_checksum(path) != checksum(before):
        raise _changed(path)
    path.unlink()


def _changed(path: Path) -> HookError:
    return HookError(f"{path}: changed while dreaming was editing it; run the command again")
