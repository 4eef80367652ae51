"""`dreaming hook install | uninstall | status`: the capture hooks in each host's settings."""

from __future__ import annotations

from pathlib import Path

import click

from dreaming.capture.hostfile import Change, missing_parts, shell_command, vault_in
from dreaming.capture.hosts import HOSTS, last_captures
from watcher.console import command_app, err, out, shown, vault_option

_host = click.argument("host", type=click.Choice(sorted(HOSTS)))
_settings = click.option(
    "--settings",
    type=click.Path(path_type=Path),
    default=None,
    help="The host's settings file (default: where the host reads it, e.g. "
    "~/.claude/settings.json, $CODEX_HOME/config.toml).",
)


@click.group()
def hook() -> None:
    """Capture hooks: each session Claude Code, Codex or pi ends lands in the vault's Raw/."""


@hook.command("install")
@_host
@vault_option
@_settings
def hook_install(host: str, vault_path: Path | None, settings: Path | None) -> None:
    """Install HOST's capture hook for this vault (a second install changes nothing)."""
    h = HOSTS[host]
    vault = command_app(vault_path).vault
    path = settings or h.default_path()
    before = vault_in(h.inspect(path).argv or ())
    change = h.install(path, vault.root)
    _said(change, "installed")
    warning = h.inspect(path).warning
    if warning:
        err.print(f"dreaming: warning: {shown(warning)}", markup=False)
    if change.changed and before is not None and before != str(vault.root):
        out.print(f"  it captured into {shown(before)} until now", markup=False)
    out.print(
        f"{host} sessions now land in {shown(vault.raw / host)}/ as they end; a running "
        f"`dreaming watch` ingests them (the hook's log: {shown(vault.logs / 'hooks.log')})",
        markup=False,
    )


@hook.command("uninstall")
@_host
@_settings
def hook_uninstall(host: str, settings: Path | None) -> None:
    """Take HOST's capture hook out of its settings; the person's own hooks stay."""
    h = HOSTS[host]
    _said(h.uninstall(settings or h.default_path()), "removed")


@hook.command("status")
@click.argument("host", type=click.Choice(sorted(HOSTS)), required=False)
@_settings
def hook_status(host: str | None, settings: Path | None) -> None:
    """Whether each host's capture hook is installed, for which vault, and its last captures."""
    if settings is not None and host is None:
        raise click.UsageError("--settings names one host's file: give the HOST too")
    for name in [host] if host else sorted(HOSTS):
        h = HOSTS[name]
        state = h.inspect(settings or h.default_path())
        where = shown(state.path)
        if state.problem:
            out.print(f"{name}: cannot tell: {shown(state.problem)}", markup=False)
            continue
        if state.argv is None:
            out.print(f"{name}: not installed ({where})", markup=False)
            continue
        vault = vault_in(state.argv)
        out.print(
            f"{name}: installed in {where} ({', '.join(state.events)}) for the vault "
            f"{shown(vault)}",
            markup=False,
        )
        out.print(f"  command: {shown(shell_command(list(state.argv)))}", markup=False)
        if state.warning:
            err.print(f"  warning: {shown(state.warning)}", markup=False)
        for gone in missing_parts(state.argv):
            err.print(f"  broken: {shown(gone)}; run dreaming hook install {name}", markup=False)
        lines = last_captures(Path(vault) if vault else None, name)
        if not lines:
            out.print("  no capture logged yet", markup=False)
        for line in lines:
            out.print(f"  {shown(line)}", markup=False)


def _said(change: Change, verb: str) -> None:
    if not change.changed:
        out.print(shown(change.detail), markup=False)
        return
    out.print(f"{verb} {shown(change.detail)}", markup=False)
    if change.backup is not None:
        out.print(f"  the file as it was: {shown(change.backup)}", markup=False)
