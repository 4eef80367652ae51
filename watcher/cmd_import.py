"""`dreaming import`: a person's history copied into Raw/ (dreaming/importing), ingested
as it lands, with a progress bar on a terminal and quiet lines otherwise.

INGEST runs here, a batch at a time, unless a watcher runs for the vault: then the
watcher ingests each file as it lands (never two ingests racing over one batch).
Ctrl-C or SIGTERM ends the import after the batch in hand; a second Ctrl-C at once.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from dreaming.errors import DreamingError, LedgerError
from watcher.app import App
from watcher.console import command_app, counted, day, err, out, shown, sized, vault_option
from watcher.progress import QUIET_EVERY_S

if TYPE_CHECKING:
    from rich.progress import TaskID

    from dreaming.importing import ImportReport, Plan, SourceReport


@click.command("import")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@vault_option
@click.option(
    "--since", metavar="DATE", default=None, help="Only what changed on or after DATE (YYYY-MM-DD)."
)
@click.option(
    "--dry-run", is_flag=True, help="Show what would be imported; copy and write nothing."
)
@click.option(
    "--no-ingest",
    is_flag=True,
    help="Copy only; the watcher, the night or `dreaming ingest` reads the files later.",
)
def import_history(
    sources: tuple[str, ...],
    vault_path: Path | None,
    since: str | None,
    dry_run: bool,
    no_ingest: bool,
) -> None:
    """Import your history into Raw/: SOURCE is claude-code, codex or pi (NAME=PATH for
    another folder), a ChatGPT export .zip or conversations.json, a folder, or a file.

    A second import copies only what is new or grew; a stopped one resumes where it
    stopped. The nights synthesize the backlog (or: dreaming synthesize --limit N)."""
    from dreaming.importing import parse_source, plan

    started = time.monotonic()
    after = _since(since) if since is not None else None
    app = command_app(vault_path)
    chosen = [parse_source(spec) for spec in sources]
    with out.status("finding sessions…"):
        plans = [plan(source, app.vault.root) for source in chosen]
    limit = app.settings.max_raw_file_mb * 1024 * 1024
    if dry_run:
        _dry_run(app, plans, after, limit)
        return
    report = bring_in(app, plans, after, limit, ingest=not no_ingest, started=started)
    end(report, dry_run=False)


def _since(text: str) -> float:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise DreamingError(
            f"--since {text!r}: not a date; write it as YYYY-MM-DD (e.g. 2025-01-31)"
        ) from None
    # A date alone is midnight where the person is.
    return (moment if moment.tzinfo else moment.astimezone()).timestamp()


def _dry_run(app: App, plans: list[Plan], after: float | None, limit: int) -> None:
    from dreaming.importing import survey

    try:
        ledger = app.existing_ledger()
    except LedgerError:
        ledger = None  # an older ledger has no cursor yet: nothing was imported
    with _watching(lines=False) as watch:
        report = survey(ledger, plans, since=after, max_bytes=limit, watch=watch)
    for source in report.sources:
        _say_source(source, dry_run=True)
    out.print("dry run: nothing was copied or written", markup=False)
    end(report, dry_run=True)


def bring_in(
    app: App,
    plans: list[Plan],
    after: float | None,
    limit: int,
    *,
    ingest: bool,
    started: float | None = None,
) -> ImportReport:
    """Copy (and ingest) what the plans hold, saying what came in, ending in one summary
    line whose time counts from `started` (the command's start: finding the sessions
    is part of it), else from here; `end` says how it ended."""
    started = time.monotonic() if started is None else started
    from dreaming.importing import run_import
    from dreaming.ledger.work import backlog
    from stages.jobs.ingest import IngestReport, record_ingest
    from stages.jobs.ingest import ingest as run_ingest
    from watcher.instance import watching_pid

    vault, ledger = app.vault, app.ledger
    pid = watching_pid(vault)
    read = IngestReport()

    def ingest_batch(paths: list[Path]) -> None:
        part = run_ingest(
            vault,
            ledger,
            paths,
            max_file_bytes=limit,
            read_seconds=app.settings.raw_read_timeout_s,
            record_run=False,
        )
        read.files += part.files
        read.absorb(part)

    here = ingest and pid is None
    try:
        with _stoppable() as stopping, _watching() as watch:
            report = run_import(
                vault,
                ledger,
                plans,
                since=after,
                max_bytes=limit,
                on_batch=ingest_batch if here else None,
                watch=watch,
                stop=stopping,
            )
    finally:
        # However the import ended, what it ingested is one run in the ledger.
        if read.files:
            record_ingest(ledger, read)
    for source in report.sources:
        _say_source(source, dry_run=False)
    if here and read.files:
        for rel, reason in read.failed + read.pending:
            err.print(f"dreaming: {shown(rel)}: {shown(reason)}", markup=False)
        out.print(
            f"ingested {counted(read.files, 'file')}: {read.conversations_new} new and "
            f"{read.conversations_updated} updated conversations, {read.messages_added} "
            f"messages, {read.redactions} secrets redacted",
            markup=False,
        )
    elif report.copied and pid is not None:
        out.print(f"the watcher (pid {pid}) ingests the copies as they land", markup=False)
    elif report.copied:
        out.print("not ingested (--no-ingest): run dreaming ingest, or let a night do it")
    waiting = backlog(ledger)
    if waiting:
        out.print(
            f"backlog: {counted(waiting, 'conversation')} for the nights to synthesize "
            "(to start now: dreaming synthesize --limit N)",
            markup=False,
        )
    copied = sum(s.copied_bytes for s in report.sources)
    unchanged = sum(s.unchanged for s in report.sources)
    ingested = f", {counted(read.files, 'file')} ingested" if here and read.files else ""
    out.print(
        f"imported {counted(report.copied, 'file')} ({sized(copied)}) in "
        f"{time.monotonic() - started:.1f} s; {unchanged} already imported{ingested}",
        markup=False,
    )
    return report


def end(report: ImportReport, *, dry_run: bool) -> None:
    """Exit 130 when stopped, 1 when something did not (or would not) come in."""
    if report.interrupted:
        err.print(
            f"dreaming: stopped after {report.copied} copies; run the same command again "
            "to go on where it stopped",
            markup=False,
        )
        sys.exit(130)
    if report.problems:
        above = counted(report.problems, "problem")
        err.print(
            f"dreaming: not everything would come in ({above} above); fix what they say first"
            if dry_run
            else f"dreaming: not everything came in ({above} above); fix what they say and "
            "run the same command again: what came in is not copied twice",
            markup=False,
        )
        sys.exit(1)


def _say_source(s: SourceReport, *, dry_run: bool) -> None:
    for line in s.failed:
        err.print(f"dreaming: {shown(line)}", markup=False)
    if s.missing:
        out.print(
            f"{s.label}: nothing at {shown(s.where)} (give {s.label}=PATH for another folder)"
        )
        return
    for line in s.notes:
        out.print(f"{s.label}: {shown(line)}", markup=False)
    if s.notes and not (s.found or s.older):
        return
    what = f"{s.label}: {s.found} found in {s.where}, {sized(s.size)}"
    if s.planned is not None and s.looked < s.planned:
        what = f"{s.label}: stopped after {s.looked} of {s.planned} in {s.where}: {sized(s.size)}"
    if s.first is not None and s.last is not None:
        what += f", {day(s.first)} → {day(s.last)}"
    if s.older:
        what += f"; {s.older} older than --since left out"
    if s.skipped:
        what += f"; {s.skipped} files no reader takes left out"
    verb = "to copy" if dry_run else "copied"
    what += f"; {s.copied} {verb} ({sized(s.copied_bytes)}), {s.unchanged} already imported"
    if s.missed:
        what += f", {s.missed} {'would not come' if dry_run else 'did not come'} in "
        what += "(the lines above say why)"
    out.print(shown(what), markup=False)


class _Bar:
    """The rich progress bar: one row a source, files, bytes, speed and time left."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[files]}"),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=out,
        )
        self.task: TaskID | None = None
        self.total: int | None = None

    def start(self, label: str, files: int | None, size: int) -> None:
        self.total = files
        self.task = self.progress.add_task(escape(label), total=size or None, files="")

    def step(self, files: int, size: int, name: str) -> None:
        if self.task is not None:
            count = f"{files}/{self.total} files" if self.total is not None else f"{files} found"
            self.progress.update(self.task, completed=size, files=count)


class _Lines:
    """Without a terminal: a line when a source starts, then at most one every 10 s."""

    def __init__(self) -> None:
        self.label = ""
        self.total: int | None = None
        self.said = 0.0

    def start(self, label: str, files: int | None, size: int) -> None:
        self.label, self.total, self.said = label, files, time.monotonic()
        count = f"{files} files" if files is not None else "an export"
        out.print(f"{label}: importing {count} ({sized(size)})", markup=False)

    def step(self, files: int, size: int, name: str) -> None:
        if time.monotonic() - self.said >= QUIET_EVERY_S:
            self.said = time.monotonic()
            of = f"/{self.total}" if self.total is not None else ""
            out.print(f"{self.label}: {files}{of} files, {sized(size)}", markup=False)


@contextmanager
def _watching(*, lines: bool = True) -> Iterator[_Bar | _Lines | None]:
    """The progress reporter for the command's output: a bar on a terminal, else lines
    (or none)."""
    if not out.is_terminal:
        yield _Lines() if lines else None
        return
    bar = _Bar()
    with bar.progress:
        yield bar


@contextmanager
def _stoppable() -> Iterator[Callable[[], bool]]:
    """SIGINT and SIGTERM ask the import to stop after its batch; a second SIGINT stops
    it at once (Python's own KeyboardInterrupt)."""
    asked = threading.Event()

    def ask(signum: int, frame: FrameType | None) -> None:
        if asked.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        asked.set()
        err.print("dreaming: stopping after the files in hand (Ctrl-C again: at once)")

    previous = {s: signal.signal(s, ask) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield asked.is_set
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
