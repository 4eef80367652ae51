"""`dreaming service install | uninstall | status`: the watcher as a login service.

macOS: a LaunchAgent in `~/Library/LaunchAgents`, loaded with `launchctl bootstrap
gui/$UID`. Linux: a systemd user unit in `~/.config/systemd/user`, enabled with
`systemctl --user enable --now`. One service per vault: the label and the unit name
end in a short hash of the vault's path, so two vaults both run. The commands go
through an injectable runner (tests validate the files and never load anything).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from dreaming.errors import DreamingError
from dreaming.resources import data_dir
from dreaming.vault import Vault

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]
Find = Callable[[str], str | None]

PLIST_TEMPLATE = "com.dreaming.watch.plist.template"
UNIT_TEMPLATE = "dreaming-watch.service.template"


class ServiceError(DreamingError):
    """A login service cannot be installed, removed or asked about here."""


def run_command(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60, check=False)


@dataclass(frozen=True, slots=True)
class Service:
    """Where a vault's service lives on this machine."""

    kind: str
    """launchd or systemd."""
    name: str
    """The launchd label, or the systemd unit name."""
    path: Path
    """The plist or unit file."""


@dataclass(frozen=True, slots=True)
class ServiceState:
    service: Service
    installed: bool
    """The file exists."""
    loaded: bool
    """launchd or systemd says it runs."""
    detail: str
    """What the tool said, one line."""


def suffix(vault: Vault) -> str:
    return hashlib.sha256(str(vault.root.resolve()).encode("utf-8")).hexdigest()[:8]


def service_for(vault: Vault, system: str, home: Path) -> Service:
    if system == "Darwin":
        label = f"com.dreaming.watch.{suffix(vault)}"
        return Service("launchd", label, home / "Library" / "LaunchAgents" / f"{label}.plist")
    if system == "Linux":
        unit = f"dreaming-watch-{suffix(vault)}.service"
        return Service("systemd", unit, home / ".config" / "systemd" / "user" / unit)
    raise ServiceError(
        f"no login service on {system}; run the watcher by hand: "
        f"dreaming watch --vault {vault.root}"
    )


def dreaming_executable() -> Path:
    """The `dreaming` of this Python's environment (the venv's), absolute."""
    exe = Path(sys.executable).parent / "dreaming"
    if not exe.is_file():
        raise ServiceError(
            f"{exe}: no dreaming command beside {sys.executable}; install dreaming into this "
            "environment (python3 scripts/up.py), then run: dreaming service install again"
        )
    return exe.absolute()


def render_plist(label: str, dreaming: Path, vault: Path) -> str:
    text = (data_dir("launchd") / PLIST_TEMPLATE).read_text(encoding="utf-8")
    for key, value in (("LABEL", label), ("DREAMING", str(dreaming)), ("VAULT", str(vault))):
        text = text.replace("{{" + key + "}}", escape(value))
    return text


def render_unit(unit: str, dreaming: Path, vault: Path) -> str:
    for path in (dreaming, vault):
        if any(c in str(path) for c in "\n\r\0"):
            raise ServiceError(f"{path!r}: a line break in the path; move it to a plain path")
    text = (data_dir("launchd") / UNIT_TEMPLATE).read_text(encoding="utf-8")
    exec_line = " ".join(_quoted(a) for a in (str(dreaming), "watch", "--vault", str(vault)))
    values = {
        "UNIT": unit,
        "EXEC": exec_line,
        # WorkingDirectory takes a bare path; only specifiers need escaping.
        "WORKDIR": str(vault).replace("%", "%%"),
        "VAULT_NOTE": str(vault).replace("%", "%%"),
    }
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _quoted(arg: str) -> str:
    """One ExecStart argument: double-quoted, specifiers and variables escaped."""
    inner = arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{inner}"'


class Installer:
    """install / uninstall / status of one vault's service on this machine."""

    def __init__(
        self,
        vault: Vault,
        *,
        runner: Runner = run_command,
        find: Find = shutil.which,
        home: Path | None = None,
        system: str | None = None,
    ) -> None:
        self.vault = vault
        self.run = runner
        self.find = find
        self.service = service_for(vault, system or platform.system(), home or Path.home())

    def install(self) -> Service:
        tool = self._tool()
        s, root = self.service, self.vault.root.resolve()
        s.path.parent.mkdir(parents=True, exist_ok=True)
        self.vault.logs.mkdir(parents=True, exist_ok=True)
        if s.kind == "launchd":
            s.path.write_text(render_plist(s.name, dreaming_executable(), root), encoding="utf-8")
            # Loading an agent already loaded fails: replace it.
            self.run([tool, "bootout", self._domain()])
            self._check([tool, "bootstrap", f"gui/{os.getuid()}", str(s.path)])
        else:
            s.path.write_text(render_unit(s.name, dreaming_executable(), root), encoding="utf-8")
            self._check([tool, "--user", "daemon-reload"])
            self._check([tool, "--user", "enable", "--now", s.name])
        return s

    def uninstall(self) -> bool:
        """Stop and remove the service; False when none was installed."""
        tool, s = self._tool(), self.service
        if not s.path.exists():
            return False
        if s.kind == "launchd":
            self.run([tool, "bootout", self._domain()])
            s.path.unlink()
        else:
            self.run([tool, "--user", "disable", "--now", s.name])
            s.path.unlink()
            self._check([tool, "--user", "daemon-reload"], "uninstall")
        return True

    def status(self) -> ServiceState:
        tool, s = self._tool(), self.service
        if s.kind == "launchd":
            said = self.run([tool, "print", self._domain()])
            loaded = said.returncode == 0
            detail = "loaded" if loaded else "not loaded"
        else:
            said = self.run([tool, "--user", "is-active", s.name])
            detail = said.stdout.strip() or said.stderr.strip() or "unknown"
            loaded = detail == "active"
        return ServiceState(s, s.path.exists(), loaded, detail)

    def _domain(self) -> str:
        return f"gui/{os.getuid()}/{self.service.name}"

    def _tool(self) -> str:
        name = "launchctl" if self.service.kind == "launchd" else "systemctl"
        found = self.find(name)
        if found is None:
            raise ServiceError(
                f"{name} is not available here, so no login service can be installed; "
                f"run the watcher by hand: dreaming watch --vault {self.vault.root}"
            )
        return found

    def _check(self, argv: Sequence[str], action: str = "install") -> None:
        said = self.run(argv)
        if said.returncode != 0:
            why = " ".join((said.stderr or said.stdout).split()) or f"exit {said.returncode}"
            by_hand = (
                f", or run: dreaming watch --vault {self.vault.root}" if action == "install" else ""
            )
            raise ServiceError(
                f"{self.service.path}: `{' '.join(argv)}` failed: {why}; fix that and run "
                f"dreaming service {action} again{by_hand}"
            )
