"""`dreaming reclaim`: remove the Raw files a newer copy holds in full, saying the bytes freed."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from watcher.console import command_app, err, file_bar, out, shown, vault_option

if TYPE_CHECKING:
    from stages.jobs.reclaim import ReclaimReport


@click.command()
@vault_option
@click.option("--dry-run", is_flag=True, help="List what would be removed; remove nothing.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
def reclaim(vault_path: Path | None, dry_run: bool, as_json: bool) -> None:
    """Remove superseded Raw files: older copies whose every byte a newer file holds.

    Every conversation and citation stays: the newer file holds each byte. A file that
    changed since it was ingested, or holds bytes no newer copy has, is kept, saying why."""
    from stages.jobs.reclaim import reclaim as run_reclaim

    app = command_app(vault_path)
    with file_bar("reclaim") if not as_json else contextlib.nullcontext() as progress:
        report = run_reclaim(app.vault, app.ledger, dry_run=dry_run, progress=progress)
    if as_json:
        click.echo(json.dumps(reclaim_doc(report), indent=2, sort_keys=True))
    else:
        _print(report)
    if report.commit_error:
        sys.exit(1)


def reclaim_doc(report: ReclaimReport) -> dict[str, Any]:
    """`dreaming reclaim --json`: stable keys; in a dry run `removed` is what would be."""
    return {
        "dry_run": report.dry_run,
        "removed": [
            {"file": r.file, "kept": list(r.kept), "exact": r.exact, "bytes": r.bytes}
            for r in report.removed
        ],
        "skipped": [{"file": s.file, "reason": s.reason} for s in report.skipped],
        "bytes_freed": 0 if report.dry_run else report.freed,
        "bytes_reclaimable": report.freed if report.dry_run else 0,
        "commit": report.commit,
        "commit_error": report.commit_error,
    }


def _print(report: ReclaimReport) -> None:
    verb = "would remove" if report.dry_run else "removed"
    for r in report.removed:
        out.print(f"{verb} {shown(r.file)} ({shown(r.relation)}), {r.bytes:,} bytes", markup=False)
    for s in report.skipped:
        out.print(f"kept {shown(s.file)}: {shown(s.reason)}", markup=False)
    if not report.removed and not report.skipped:
        out.print("nothing to reclaim: every Raw file holds something no other file holds")
        return
    files = "file" if len(report.removed) == 1 else "files"
    if report.dry_run:
        out.print(
            f"dry run: {len(report.removed)} {files}, {report.freed:,} bytes would be freed; "
            "nothing removed",
            markup=False,
        )
    else:
        out.print(f"freed {report.freed:,} bytes ({len(report.removed)} {files})", markup=False)
    if report.commit:
        out.print(f"committed the removal of tracked files: {report.commit[:10]}", markup=False)
    if report.commit_error:
        err.print(
            f"dreaming: the removal is not committed ({shown(report.commit_error)}); "
            "commit it yourself once git is free",
            markup=False,
        )
