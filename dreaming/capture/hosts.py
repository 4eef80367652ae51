"""The hosts a capture hook can be installed into, by name."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dreaming.capture import claude, codex, pi
from dreaming.capture.hook import log_path
from dreaming.capture.hostfile import Change, Installed, hook_argv


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    what: str
    """What gets installed, for the help and the status."""
    default_path: Callable[[], Path]
    install_into: Callable[[Path, list[str]], Change]
    uninstall: Callable[[Path], Change]
    inspect: Callable[[Path], Installed]

    def install(self, path: Path, vault: Path) -> Change:
        return self.install_into(path, hook_argv(self.name, vault))


HOSTS = {
    "claude-code": Host(
        "claude-code",
        "SessionEnd and PreCompact hooks in ~/.claude/settings.json",
        claude.default_path,
        claude.install,
        claude.uninstall,
        claude.inspect,
    ),
    "codex": Host(
        "codex",
        "notify in ~/.codex/config.toml (after every turn)",
        codex.default_path,
        codex.install,
        codex.uninstall,
        codex.inspect,
    ),
    "pi": Host(
        "pi",
        "an extension in ~/.pi/agent/extensions/ (session end and compaction)",
        pi.default_path,
        pi.install,
        pi.uninstall,
        pi.inspect,
    ),
}


def last_captures(vault: Path | None, host: str, n: int = 3) -> list[str]:
    """The last `n` lines the hook logged for `host` (the vault's log, else the user's)."""
    tail = 64 * 1024
    try:
        # Non-blocking, and only a regular file: a FIFO in its place must not hang status.
        fd = os.open(log_path(vault), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        st = os.fstat(fd)
        data = os.pread(fd, tail, max(0, st.st_size - tail)) if stat.S_ISREG(st.st_mode) else b""
    except OSError:
        return []
    finally:
        os.close(fd)
    lines = data.decode("utf-8", "replace").splitlines()
    return [line for line in lines if f" {host} " in line or f" {host}:" in line][-n:]
