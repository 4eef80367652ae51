"""The hosts a capture hook can be installed into, by name."""

from __future__ import annotations

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
    path = log_path(vault)
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, 2) - 64 * 1024))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    return [line for line in lines if f" {host} " in line or f" {host}:" in line][-n:]
