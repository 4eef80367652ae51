"""The `dreaming` command line: the top of the stack and the only reader of argv.

Every DreamingError becomes one clean line on stderr and a non-zero exit,
never a traceback.
"""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from dreaming.errors import DreamingError
from watcher.cmd_hook import hook
from watcher.cmd_import import import_history
from watcher.cmd_mcp import eval_group, mcp
from watcher.cmd_model import model
from watcher.cmd_query import query
from watcher.cmd_reclaim import reclaim
from watcher.cmd_station import station
from watcher.cmd_watch import print_watcher, service, through_watcher, watch, watcher_doc
from watcher.console import command_app, counted, err, file_bar, out, shown, vault_option
from watcher.night import NightRequest, run_lock_holder
from watcher.progress import night_view

if TYPE_CHECKING:
    from dreaming.checks.status import StatusDoc
    from stages.runner.report import NightReport


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dreaming")
def cli() -> None:
    """dreaming: your AI conversations, turned into a personal wiki in your vault."""


@cli.command()
@click.argument("path", type=click.Path(path_type=Path), default=Path("vault"))
@click.option(
    "--find-history/--no-find-history",
    default=None,
    help="Look for Claude Code, Codex and pi sessions and ChatGPT exports to import "
    "(default: when run in a terminal).",
)
def init(path: Path, find_history: bool | None) -> None:
    """Create a vault at PATH (or add what is missing to an existing one); in a terminal,
    offer the history found on this machine."""
    from dreaming.vault.scaffold import init_vault

    report = init_vault(path)
    root = report.vault.root
    if report.added:
        out.print(f"[bold]{escape(shown(root))}[/]: added {len(report.added)} files")
        for rel in report.added:
            out.print(f"  + {shown(rel)}", markup=False)
    else:
        out.print(f"[bold]{escape(shown(root))}[/]: already a complete vault; nothing added")
    if report.kept:
        out.print(f"  kept {len(report.kept)} existing files untouched")
    if report.commit:
        out.print(f"  committed {report.commit[:10]} (only the files added)")
    for line in report.leaks:
        err.print(
            f"dreaming: git would commit a transcript or the ledger: {shown(line)}", markup=False
        )
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if find_history or (find_history is None and terminal):
        from watcher.cmd_first import offer_history

        offer_history(command_app(root), _yes_or_no if terminal else None)
    out.print(
        f"Next: run dreaming watch --vault {shlex.quote(shown(root))} and drop transcripts "
        f"into {shown(report.vault.raw)}; it ingests each at once and writes the wiki nightly",
        markup=False,
    )


def _yes_or_no(question: str) -> bool:
    return bool(click.confirm(question, default=True))


@cli.command()
@vault_option
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
def ingest(vault_path: Path | None, files: tuple[Path, ...]) -> None:
    """Read transcripts (default: everything in Raw/) into the ledger."""
    from stages.jobs.ingest import ingest as run_ingest

    started = time.monotonic()
    app = command_app(vault_path)
    limit = app.settings.max_raw_file_mb * 1024 * 1024
    with file_bar("ingest") as progress:
        report = run_ingest(
            app.vault,
            app.ledger,
            list(files) or None,
            progress=progress,
            max_file_bytes=limit,
            read_seconds=app.settings.raw_read_timeout_s,
        )
    # Every pending reason already says when the file will be read.
    for rel, reason in report.failed + report.pending:
        err.print(f"dreaming: {shown(rel)}: {shown(reason)}", markup=False)
    out.print(
        f"{counted(report.files, 'file')} in {time.monotonic() - started:.1f} s: {report.ingested} "
        f"ingested, {report.unchanged} unchanged, "
        f"{report.empty} without conversations, {len(report.failed)} failed, "
        f"{len(report.pending)} pending; {report.conversations_new} new and "
        f"{report.conversations_updated} updated conversations, "
        f"{report.messages_added} messages added, {report.redactions} secrets redacted"
    )


@cli.command()
@vault_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
def status(vault_path: Path | None, as_json: bool) -> None:
    """What is in the vault's ledger and what happened last."""
    from dreaming.checks.status import backlog_doc, git_leaks, reclaimable
    from dreaming.checks.status import status as get_status
    from dreaming.policy.pages import policy_problems

    app = command_app(vault_path)
    doc = get_status(app.ledger)
    doc["vault"] = str(app.vault.root)
    doc["reclaimable"], doc["reclaim_kept"] = reclaimable(app.ledger, app.vault)
    doc["policy_problems"] = policy_problems(app.vault)
    doc["git_leaks"] = git_leaks(app.vault)
    doc["backlog_estimate"] = backlog_doc(app.ledger, app.settings)
    doc["watcher"] = watcher_doc(app.vault)
    last = doc["last_run"]
    if last is not None:
        last["abandoned"] = last["status"] == "running" and run_lock_holder(app.vault) is None
    if as_json:
        click.echo(json.dumps(doc, indent=2, sort_keys=True))
        return
    _print_status(doc)
    print_watcher(doc["watcher"], app.vault)


@cli.command()
@vault_option
def reindex(vault_path: Path | None) -> None:
    """Rebuild the article index in the ledger from articles/ (Markdown is the truth)."""
    from dreaming.query.reindex import reindex as run_reindex

    started = time.monotonic()
    app = command_app(vault_path)
    with out.status("reindexing articles/"):
        report = run_reindex(app.vault, app.ledger)
    for rel, reason in report.unreadable:
        err.print(f"dreaming: {shown(rel)}: {shown(reason)}", markup=False)
    out.print(
        f"reindexed {report.articles} articles in {time.monotonic() - started:.1f} s: "
        f"{report.aliases} names, {report.categories} categories, {report.links} links"
    )


@cli.command()
@vault_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
def audit(vault_path: Path | None, as_json: bool) -> None:
    """Check every article against the wiki's rules; exit 1 on any violation.

    Reads the vault and its ledger, changes neither."""
    from dreaming.checks.audit import audit as run_audit
    from dreaming.checks.audit import audit_doc

    app = command_app(vault_path)
    report = run_audit(app.vault, app.existing_ledger())
    if as_json:
        click.echo(json.dumps(audit_doc(report, app.vault), indent=2, sort_keys=True))
    else:
        for note in report.unchecked:
            err.print(f"dreaming: unchecked: {shown(note)}", markup=False)
        for v in report.violations:
            out.print(f"{shown(v.file)}: {v.check}: {shown(v.detail)}", markup=False)
        verdict = "clean" if report.clean else f"{len(report.violations)} violations"
        out.print(f"audited {report.articles} articles: {verdict}", markup=False)
    if not report.clean:
        sys.exit(1)


@cli.command()
@vault_option
@click.option("--stage", "only", default=None, help="Run only this stage (after INGEST).")
@click.option("--model", "spec", default=None, help="The model spec for this run.")
@click.option("--dry-run", is_flag=True, help="Print the plan: no model call, no write.")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most N units a stage.")
@click.option(
    "--since-policy",
    "since_policy",
    metavar="PAGE",
    default=None,
    help="Only the units the Meta page PAGE governs that ran under another version of it.",
)
@click.option(
    "--until",
    metavar="HH:MM",
    default=None,
    help="Stop at a unit boundary by this local time (a night by hand has no end otherwise).",
)
@click.option(
    "--since", metavar="DATE", default=None, help="Only backlog conversations since DATE."
)
@click.option(
    "--order",
    type=click.Choice(["newest", "oldest"]),
    default=None,
    help="Which end of the backlog goes first (default: the backlog_order setting).",
)
@click.option("--now", is_flag=True, help="Through the running watcher, else here (saying so).")
# The watcher's own night child: it must not hand the night back to the watcher.
@click.option("--here", is_flag=True, hidden=True)
def synthesize(
    vault_path: Path | None,
    only: str | None,
    spec: str | None,
    dry_run: bool,
    limit: int | None,
    since_policy: str | None,
    until: str | None,
    since: str | None,
    order: str | None,
    now: bool,
    here: bool,
) -> None:
    """Run the night now: INGEST, then every stage, then the run report in Log/.

    While a watcher runs for the vault, the night runs there (never a second writer).
    A night started here is not cut by night_ends: a person who asks for one now wants
    it done; --until HH:MM gives it an end."""
    from datetime import datetime

    from dreaming.nights.window import until as until_time
    from stages.runner.pipeline import run_night

    app = command_app(vault_path)
    # Checked here, before a watcher is asked: a bad value is one line, and no night.
    end = None if until is None else until_time(until, datetime.now())
    app.use_settings(backlog_since=since, backlog_order=order)
    request = NightRequest("requested", only, limit, spec, since_policy, until, since, order)
    if not (dry_run or here) and through_watcher(app.vault, request, now):
        return
    # SIGTERM (the watcher stopping, a service manager) ends the night at a unit boundary.
    stopping = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    click.get_current_context().call_on_close(lambda: signal.signal(signal.SIGTERM, previous))
    if spec:
        app.use_model(spec)
    if dry_run:
        report = run_night(app, only=only, limit=limit, dry_run=True, since_policy=since_policy)
    else:
        with night_view(out) as progress:
            report = run_night(
                app,
                only=only,
                limit=limit,
                progress=progress,
                since_policy=since_policy,
                stop=stopping.is_set,
                until=end,
            )
    if dry_run:
        _print_plan(report)
        return
    _print_night(report)


PLAN_SHOWN = 20
"""Units listed per stage in a dry run; the rest are counted."""


def _print_plan(report: NightReport) -> None:
    out.print(f"plan (dry run, model {shown(report.model)}): nothing is called or written")
    out.print(f"  ingest: {report.ingest.files} Raw files to read", markup=False)
    calls = 0
    for s in report.stages:
        calls += s.planned
        later = f", {s.left} more left for a later run" if s.left else ""
        out.print(
            f"  {s.stage}: {s.planned} units to do, {s.skipped} already done{later}", markup=False
        )
        for label in s.plan[:PLAN_SHOWN]:
            out.print(f"    {shown(label)}", markup=False)
        if len(s.plan) > PLAN_SHOWN:
            out.print(f"    … and {len(s.plan) - PLAN_SHOWN} more", markup=False)
    out.print(
        f"model calls expected: about {calls} (one or more a unit; none for a name already known)",
        markup=False,
    )


def _print_night(report: NightReport) -> None:
    for notice in report.notices:
        err.print(f"dreaming: {shown(notice)}", markup=False)
    for s in report.stages:
        for unit, why in s.failures:
            err.print(f"dreaming: {s.stage} {shown(unit)}: {shown(why)}", markup=False)
    # What stopped the night comes before the summary, which ends the output.
    if report.budget_spent:
        err.print(f"dreaming: {shown(report.budget_spent)}", markup=False)
    if report.model_unavailable:
        err.print(f"dreaming: the model could not load: {shown(report.model_unavailable)}")
    if report.report_error:
        err.print(f"dreaming: the run report was not written: {shown(report.report_error)}")
    summary = report.summary()
    done = sum(s.done for s in report.stages)
    line = (
        f"run {report.run_id}: {done} units done, {summary['failures']} failed, "
        f"{summary['noops']} no-ops, {summary['model_calls']} model calls, "
        f"{summary['commits']} commits in {report.wall_seconds:.1f} s"
    )
    if report.report:
        line += f"; report {report.report}"
    out.print(line, markup=False)


def _name(text: str) -> str:
    """A name or reason inside rich markup: escaped for the terminal and for rich."""
    return escape(shown(text))


def _print_status(doc: StatusDoc) -> None:
    from rich.table import Table

    out.print(f"[bold]{escape(shown(doc['vault']))}[/]")
    out.print(
        f"{counted(doc['conversations'], 'conversation')}, "
        f"{counted(doc['messages'], 'message')}, {counted(doc['articles'], 'article')}, "
        f"{counted(doc['redactions'], 'secret')} redacted, "
        f"{counted(doc['controls'], 'control character')} removed"
    )
    if doc["sources"]:
        table = Table("source", "conversations", "messages", box=None)
        for name, s in doc["sources"].items():
            table.add_row(name, str(s["conversations"]), str(s["messages"]))
        out.print(table)
    files = doc["files"]
    out.print(
        f"Raw files: {files['total']} ({files['ok']} ok, {files['empty']} without "
        f"conversations, {files['failed']} failed, {files['pending']} pending)"
    )
    # File names may hold brackets and control characters: show them as they are.
    for f in doc["failed"]:
        out.print(f"  [red]failed[/] {_name(f['file'])}: {_name(f['reason'] or '')}")
    for f in doc["pending"]:
        out.print(f"  [yellow]pending[/] {_name(f['file'])}: {_name(f['reason'] or '')}")
    reclaimable = doc.get("reclaimable", [])
    for r in reclaimable:
        out.print(
            f"  [dim]reclaimable[/] {_name(r['file'])} (held in full by "
            f"{_name(r['superseded_by'])})"
        )
    for k in doc.get("reclaim_kept", []):
        out.print(f"  [dim]kept[/] {_name(k['file'])}: {_name(k['reason'] or '')}")
    if reclaimable:
        freed = sum(r["bytes"] for r in reclaimable)
        again = f"dreaming reclaim --vault {shlex.quote(shown(doc['vault']))}"
        out.print(f"  {again} removes them ({freed:,} bytes); --dry-run lists first", markup=False)
    said = doc["backlog_estimate"]["said"] if "backlog_estimate" in doc else ""
    if said:
        out.print(f"Backlog: {said} (To start now: dreaming synthesize --limit N.)", markup=False)
    elif doc["backlog"]:
        out.print(f"Backlog: {counted(doc['backlog'], 'conversation')} not yet synthesized")
    if doc["model_usage"]:
        table = Table("stage", "calls", "prompt tok", "cached tok", "gen tok", "s", box=None)
        for stage, u in doc["model_usage"].items():
            table.add_row(
                stage,
                str(u["calls"]),
                str(u["prompt_tokens"]),
                str(u["cached_tokens"]),
                str(u["generated_tokens"]),
                f"{u['seconds']:.1f}",
            )
        out.print(table)
    problems = doc.get("policy_problems", [])
    if problems:
        plural = "s" if len(problems) > 1 else ""
        out.print(f"Policy: {len(problems)} Meta page problem{plural}; each says what is in force")
    else:
        out.print("Policy: every Meta page in force")
    for problem in problems:
        out.print(f"  [red]refused[/] {_name(problem)}")
    leaks = doc.get("git_leaks", [])
    if leaks:
        out.print(f"[red]Git: {counted(len(leaks), 'file')} of Raw/ or .dreaming/ not kept out[/]")
    else:
        out.print("Git: transcripts and the ledger kept out")
    for leak in leaks:
        out.print(f"  [red]committable[/] {_name(leak)}")
    run = doc["last_run"]
    if run is None:
        out.print("Last run: never")
    else:
        out.print(f"Last run: {run['kind']} {run['id']} at {run['started_at']}: {run['status']}")
        if run.get("abandoned"):
            out.print(
                "  but no dreaming process runs it any more: it stopped without finishing "
                "(killed, or the machine went down); the next run marks it interrupted and "
                "takes up where it stopped",
                markup=False,
            )
        if run["units"]:
            done = sum(u["done"] for u in run["units"].values())
            out.print(
                f"  {done} units done, {run['failures']} failures, {run['noops']} no-ops, "
                f"{run['model_calls']} model calls, {run['commits']} commits"
            )
        end = run["summary"].get("night_end")
        if run["summary"].get("stopped_at_end") and isinstance(end, str):
            out.print(
                f"  stopped at the night's end ({end[11:16]}); the next night resumes there",
                markup=False,
            )


cli.add_command(model)
cli.add_command(query)
cli.add_command(station)
cli.add_command(watch)
cli.add_command(service)
cli.add_command(mcp)
cli.add_command(eval_group)
cli.add_command(reclaim)
cli.add_command(hook)
cli.add_command(import_history)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except DreamingError as e:
        err.print(f"dreaming: error: {shown(e)}", markup=False, soft_wrap=True)
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        err.print("dreaming: aborted")
        sys.exit(130)
    except click.UsageError as e:
        # One line, as every other error: what is wrong and where the help is.
        where = f"; see `{e.ctx.command_path} --help`" if e.ctx is not None else ""
        said = e.format_message().rstrip(".")
        err.print(f"dreaming: error: {shown(said)}{where}", markup=False, soft_wrap=True)
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except (OSError, sqlite3.Error) as e:
        # A backstop: the system said no (disk full, permissions), or SQLite did while a
        # result was read row by row, past the ledger's statement edge; still one line.
        err.print(f"dreaming: error: {shown(e)}", markup=False, soft_wrap=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
