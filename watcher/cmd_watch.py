"""The `dreaming watch` command, the `dreaming service` group, and what `synthesize`
and `status` ask of a running watcher."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from dreaming.vault import Vault
from watcher.console import command_app, err, out, shown, vault_option
from watcher.heartbeat import HeartbeatDoc, read_heartbeat
from watcher.instance import watching_pid
from watcher.night import NightRequest


@click.command()
@vault_option
def watch(vault_path: Path | None) -> None:
    """Watch the vault and run the nightly synthesis, in the foreground until Ctrl-C.

    One line per reaction; logs in .dreaming/logs/. Install it as a login service
    with: dreaming service install."""
    from watcher.serve import serve

    serve(vault_path)


@click.group()
def service() -> None:
    """The watcher as a login service: launchd on macOS, systemd --user on Linux."""


@service.command("install")
@vault_option
def service_install(vault_path: Path | None) -> None:
    """Install and start this vault's watcher at login."""
    from watcher.service import Installer

    vault = command_app(vault_path).vault
    s = Installer(vault).install()
    out.print(f"installed {s.kind} service {shown(s.name)}: {shown(s.path)}", markup=False)
    out.print(f"logs: {shown(vault.logs)}; check it with: dreaming status", markup=False)


@service.command("uninstall")
@vault_option
def service_uninstall(vault_path: Path | None) -> None:
    """Stop this vault's login service and remove it."""
    from watcher.service import Installer

    installer = Installer(command_app(vault_path).vault)
    if installer.uninstall():
        out.print(f"removed {shown(installer.service.path)}", markup=False)
    else:
        out.print(f"no service installed for this vault ({shown(installer.service.path)})")


@service.command("status")
@vault_option
def service_status(vault_path: Path | None) -> None:
    """Whether this vault's login service is installed and running."""
    from watcher.service import Installer

    vault = command_app(vault_path).vault
    state = Installer(vault).status()
    s = state.service
    installed = f"installed at {shown(s.path)}" if state.installed else "not installed"
    out.print(f"{s.kind} {shown(s.name)}: {installed}; {shown(state.detail)}", markup=False)
    print_watcher(watcher_doc(vault), vault)


def watcher_doc(vault: Vault) -> dict[str, Any]:
    """`status --json`'s `watcher` object: the heartbeat, or `{running: false}` if none ran."""
    beat: HeartbeatDoc | None = read_heartbeat(vault)
    return dict(beat) if beat is not None else {"running": False, "state": "stopped"}


def print_watcher(doc: dict[str, Any], vault: Vault) -> None:
    if "pid" not in doc:
        command = f"dreaming watch --vault {shlex.quote(str(vault.root))}"
        out.print(f"Watcher: not running; start it with: {shown(command)}", markup=False)
        return
    said = f"running (pid {doc['pid']})" if doc["running"] else "stopped"
    if doc["running"] and doc.get("state") == "night":
        said += ", a night is running"
    out.print(f"Watcher: {said}", markup=False)
    event = doc.get("last_event")
    if event:
        out.print(
            f"  last event {event['at']}: {event['route']} {shown(event['path'])}: "
            f"{shown(event['outcome'])}",
            markup=False,
        )
    if doc["running"] and doc.get("next_night"):
        out.print(f"  next night {doc['next_night']}", markup=False)
    night = doc.get("last_night")
    if night and night.get("started"):
        result = night.get("status") or "running"
        summary = night.get("summary")
        out.print(
            f"  last night {night['started']}: {result}"
            + (f": {shown(summary)}" if summary else ""),
            markup=False,
        )
    if doc.get("pending_raw"):
        out.print(f"  {doc['pending_raw']} Raw files pending", markup=False)


def through_watcher(vault: Vault, request: NightRequest, now: bool) -> bool:
    """Hand the night to the vault's running watcher and print its result; False when no
    watcher runs (the caller runs the night itself). Exits 1 when the night failed."""
    from watcher.control import request_night, wait_result

    pid = watching_pid(vault)
    if pid is None:
        if now:
            err.print("dreaming: no watcher runs for this vault; running the night here")
        return False
    err.print(
        f"dreaming: the watcher (pid {pid}) runs this night; waiting for its result "
        "(its output: .dreaming/logs/night.log)",
        markup=False,
    )
    rid = request_night(vault, request)
    result = wait_result(vault, rid, alive=lambda: watching_pid(vault) is not None)
    out.print(shown(result.summary), markup=False)
    if result.status in ("failed", "skipped"):
        sys.exit(1)
    return True
