"""`dreaming station`: heat STATION.md now, and the memory-recall look."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from dreaming.clock import utc_now
from watcher.console import command_app, err, out, shown, vault_option


@click.group()
def station() -> None:
    """STATION.md (the pickup ticket) and NOTES.md (the deep notes)."""


@station.command("heat")
@vault_option
def station_heat(vault_path: Path | None) -> None:
    """Heat STATION.md and refresh the notes index now, as a save of either does."""
    from dreaming.station.settle import settle

    app = command_app(vault_path)
    now = utc_now()
    result = settle(app.vault, app.own_writes, changed={"station", "notes"}, now=now)
    for line in result.said:
        out.print(shown(line), markup=False)
    for line in result.problems:
        err.print(f"dreaming: {shown(line)}", markup=False)
    if result.problems:
        sys.exit(1)


@station.command("look")
@vault_option
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
def station_look(vault_path: Path | None, query: str, as_json: bool) -> None:
    """The plane, the articles QUERY names, and the current notes matching it."""
    from dreaming.station.settle import look

    app = command_app(vault_path)
    seen = look(app.vault, query, app.existing_ledger())
    if as_json:
        doc = {"plane": seen.plane, "articles": seen.articles, "notes": seen.notes}
        click.echo(json.dumps(doc, ensure_ascii=True, indent=2, sort_keys=True))
        return
    out.print(f"plane: {seen.plane}", markup=False)
    names = ", ".join(f"[[{shown(a)}]]" for a in seen.articles) or "none"
    out.print(f"articles: {names}", markup=False)
    if not seen.notes:
        out.print("notes: none current match", markup=False)
        return
    out.print("notes:", markup=False)
    for line in seen.notes:
        out.print(f"  - {shown(line)}", markup=False)
