"""The runner: a night is INGEST, then every stage in order, then the run report.

Every stage takes its work from the ledger: a unit whose `work` row is done
with the same input hash is skipped, so a night with nothing new makes no
model call and no commit. Per unit the order is: the stage does it, the
runner commits what it wrote, then records it done. A crash (kill -9) between
any two of those steps only makes the next run do that unit again, and a unit
done again writes the same bytes, which is no new commit. A failed unit is
recorded with its one-line reason and the next unit runs; `BudgetExhausted`
stops the stage at the unit boundary and the rest waits for the next run, and so
does a `stop` request (SIGTERM to `dreaming synthesize`), which ends the night
`interrupted` with its report committed, and the night's end (`until`: `night_ends` for
a scheduled night), which ends it `ok`. A whole night takes the backlog in rounds
(stages/runner/rounds.py), each a slice of it through every stage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from time import monotonic
from typing import Any, Protocol

from dreaming.accounting import metered
from dreaming.checks.wiki import scorecard
from dreaming.clock import utc_now
from dreaming.config import Settings
from dreaming.errors import DreamingError, ModelError, RefusedFileError
from dreaming.ledger import (
    Ledger,
    gate_rejections,
    model_calls,
    raw_files,
    runs,
    stuck_articles,
    subjects,
    unit_policy,
    work,
)
from dreaming.model import BudgetExhausted, MeteredModel, ModelUnavailable, TextModel
from dreaming.nights.backlog import backlog, described
from dreaming.policy.pages import Policy
from dreaming.query.reindex import reindex
from dreaming.raw.folder import raw_files as raw_paths
from dreaming.vault import OwnWrites, Vault, checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from dreaming.vault.keepout import restore_committed
from dreaming.vault.lock import run_lock
from dreaming.vault.logs import internal_error
from dreaming.vault.unfinished import finish_interrupted
from dreaming.vault.writes import remove_leftover_temps
from stages.bucket import BucketStage
from stages.editorial.stage import EditorialStage
from stages.extract import ExtractStage
from stages.jobs.ingest import IngestReport, ingest
from stages.jobs.ingest import Progress as IngestProgress
from stages.link import LinkStage
from stages.reconcile import ReconcileStage
from stages.resolve import ResolveStage
from stages.runner.contract import Stage, StageContext, Unit, UnitResult
from stages.runner.report import NightReport, StageReport, WrittenArticle, render, report_path
from stages.runner.rounds import Rounds
from stages.runner.write import WRITABLE, Edit, Outcome, Writer
from stages.segment.stage import SegmentStage
from stages.synthesize.stage import SynthesizeStage

STAGES: tuple[Stage, ...] = (
    SegmentStage(),
    ExtractStage(),
    BucketStage(),
    ResolveStage(),
    SynthesizeStage(),
    ReconcileStage(),
    LinkStage(),
    EditorialStage(),
)
"""The stages of a night, in order (LINK and EDITORIAL's merge proposals call no model,
RECONCILE only where an article's infobox lacks what its sentences propose)."""


class App(Protocol):
    """What a run needs of the entry point's app context (watcher/app.py's `App`)."""

    vault: Vault
    own_writes: OwnWrites

    @property
    def settings(self) -> Settings: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def model(self) -> TextModel: ...

    def unload_model(self) -> None: ...


Progress = Callable[[str, int, int, str], None]
"""progress(stage, units handled, units to handle, what the unit in hand is about); a
stage's last call has "" for the unit: it is over."""
Stop = Callable[[], bool]
"""True once the run should stop at the next unit boundary."""


class _RecordingWriter(Writer):
    """The run's Writer, remembering which articles it created and updated."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.articles: list[WrittenArticle] = []
        self.talk: list[str] = []
        self.conflicts: list[tuple[str, str]] = []

    def write(self, edit: Edit) -> Outcome:
        outcome = super().write(edit)
        if outcome.path is not None and outcome.path.startswith("articles/"):
            stem = outcome.path.removeprefix("articles/").removesuffix(".md")
            if outcome.status == "written":
                self.articles.append(WrittenArticle(stem, created=edit.base is None))
            elif outcome.status == "noop_conflict":
                self.conflicts.append((stem, outcome.detail))
        elif outcome.path and outcome.path.startswith("Talk/") and outcome.status == "written":
            self.talk.append(outcome.path.removeprefix("Talk/").removesuffix(".md"))
        return outcome


def run_stage(
    stage: Stage,
    ctx: StageContext,
    *,
    limit: int | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    since_policy: str | None = None,
    stop: Stop | None = None,
) -> StageReport:
    """Do the units of `stage` not yet done (at most `limit`), oldest first; with
    `since_policy`, only those last done under another version of that page."""
    report = StageReport(stage.name)
    try:
        pages = {name: ctx.policy.page(name).checksum for name in stage.policy}
        units = list(stage.units(ctx))
    except Exception as e:
        # Nothing of this stage runs (its list may be partial); the next stage still does.
        report.count("its units", UnitResult("failed", _reason(e, ctx.vault)))
        return report
    # One query for the whole stage, not one a unit: a night with nothing new stays fast.
    inputs = {u.key: u.input_hash for u in units}
    pending = set(work.todo(ctx.ledger, stage.name, inputs))
    todo: list[Unit] = [u for u in units if u.key in pending]
    report.skipped = len(units) - len(todo)
    if since_policy is not None:
        ran = unit_policy.ran_under(ctx.ledger, stage.name, since_policy)
        governed = [u for u in todo if ran.get(u.key) != pages[since_policy]]
        # The rest waits for the next night, which does every unit.
        report.left = len(todo) - len(governed)
        todo = governed
    labels = {u.key: u.label or u.key for u in units}
    report.given_up = [labels[k] for k in work.given_up(ctx.ledger, stage.name, inputs)]
    if limit is not None and len(todo) > limit:
        report.left += len(todo) - limit
        todo = todo[:limit]
    if dry_run:
        report.planned = len(todo)
        report.plan = [u.label or u.key for u in todo]
        return report
    every = max(1, getattr(stage, "commit_every", 1))
    finished: list[tuple[Unit, UnitResult]] = []
    for i, unit in enumerate(todo):
        if stop is not None and stop():
            report.left += len(todo) - i
            break
        if progress is not None:
            progress(stage.name, i, len(todo), _about(unit))
        try:
            result = stage.run(ctx, unit)
        except BudgetExhausted as e:
            report.budget_spent = str(e)
            report.left += len(todo) - i
            break
        except ModelUnavailable as e:
            # Every unit would fail the same way: the night stops here, nothing recorded
            # against this unit, and says the one command that fixes it.
            report.model_unavailable = _reason(e, ctx.vault)
            report.left += len(todo) - i
            break
        except Exception as e:
            result = UnitResult("failed", _reason(e, ctx.vault))
        finished.append((unit, result))
        if len(finished) >= every:
            _settled(stage, ctx, finished, pages, report)
    _settled(stage, ctx, finished, pages, report)
    if progress is not None:
        # Units run, not `len(todo) - report.left`: `left` also counts what `--limit`
        # and `--since-policy` kept out of `todo`.
        handled = report.done + report.failed + report.rejected
        progress(stage.name, handled, len(todo), "")
    return report


def _about(unit: Unit) -> str:
    """What progress shows for a unit: the conversation it reads, then its label."""
    label = unit.label or unit.key
    if unit.conversation and unit.conversation != label:
        return f"{unit.conversation}: {label}"
    return label


def _settled(
    stage: Stage,
    ctx: StageContext,
    finished: list[tuple[Unit, UnitResult]],
    pages: dict[str, str],
    report: StageReport,
) -> None:
    """Commit what the `finished` units wrote, then record them (in that order: a unit is
    done only once its writes are in a commit; a kill in between leaves them journaled,
    for the next start to commit as dreaming's), and empty the list."""
    if not finished:
        return
    first = finished[0][0]
    what = first.label or first.key if len(finished) == 1 else f"{len(finished)} units"
    if ctx.writer is not None and ctx.writer.commit(f"{stage.name}: {what}"):
        report.commits += 1
    with ctx.ledger.transaction():
        for unit, result in finished:
            if result.stuck:
                continue  # no attempt spent: it waits for the person's fix, never given up
            if result.settle is not None:
                result.settle()
            work.record(
                ctx.ledger,
                stage.name,
                unit.key,
                unit.input_hash,
                result.status,
                run_id=ctx.run_id,
                now=ctx.now(),
                error=result.detail if result.status != "done" else None,
            )
            if result.status == "done":
                unit_policy.record(ctx.ledger, stage.name, unit.key, pages)
    for unit, result in finished:
        report.count(unit.label or unit.key, result, unit.key)
    finished.clear()


def run_night(
    app: App,
    *,
    stages: Sequence[Stage] = STAGES,
    only: str | None = None,
    limit: int | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    now: Callable[[], str] = utc_now,
    since_policy: str | None = None,
    stop: Stop | None = None,
    until: datetime | None = None,
    clock: Callable[[], datetime] = datetime.now,
) -> NightReport:
    """INGEST, then `stages` in order (or only the one named `only`), then the report.
    With `since_policy` (a Meta page's name), only the stages that read that page, and
    in them only the units last done under another version of it.

    Holds the vault's run lock throughout (a dry run takes none: it writes nothing).
    Once `stop()` is true the night ends at the next unit boundary, `interrupted`; once
    `clock()` (local wall-clock time) reaches `until`, it ends there too, `ok`, and the
    next night resumes where it stopped.
    """
    chosen = _chosen(stages, only)
    if since_policy is not None:
        chosen = _governed(stages, chosen, since_policy)
    if dry_run:
        return _plan(app, chosen, limit, now, since_policy)
    with run_lock(app.vault):
        kind: runs.RunKind = "stage" if only or since_policy else "night"
        end = _End(until, clock)
        return _night(app, chosen, kind, limit, progress, now, since_policy, stop, end)


class _End:
    """The night's end on the local clock: reached or not, and whether it was before the
    night began (a night caught up after its window closed)."""

    def __init__(self, until: datetime | None, clock: Callable[[], datetime]) -> None:
        self.until = until
        self.clock = clock

    def reached(self) -> bool:
        return self.until is not None and self.clock() >= self.until


def _chosen(stages: Sequence[Stage], only: str | None) -> list[Stage]:
    if only is None or only == "ingest":
        return [] if only else list(stages)
    picked = [s for s in stages if s.name == only]
    if not picked:
        names = ", ".join(["ingest", *(s.name for s in stages)])
        raise DreamingError(f"no stage named {only!r}; choose one of: {names}")
    return picked


def _governed(stages: Sequence[Stage], chosen: list[Stage], page: str) -> list[Stage]:
    """The chosen stages that read `page`; a page no stage reads is refused."""
    read = sorted({name for s in stages for name in s.policy})
    if page not in read:
        raise DreamingError(
            f"no stage reads a Meta page named {page!r}; choose one of: {', '.join(read)}"
        )
    return [s for s in chosen if page in s.policy]


def _night(
    app: App,
    chosen: list[Stage],
    kind: runs.RunKind,
    limit: int | None,
    progress: Progress | None,
    now: Callable[[], str],
    since_policy: str | None,
    stop: Stop | None = None,
    end: _End | None = None,
) -> NightReport:
    ledger, vault = app.ledger, app.vault
    end = end or _End(None, datetime.now)
    started, clock = now(), monotonic()
    # First, under the run lock: what a killed run wrote and never committed is committed
    # as dreaming's, before this run's writer would take it for the person's edit.
    finish_interrupted(vault, ledger)
    run_id = runs.new_id()
    # An older vault, or one whose rules were removed: transcripts kept out of git again.
    restore_committed(vault.root, ledger, run_id)
    with ledger.transaction():
        interrupted = runs.interrupt_unfinished(ledger, "night", started)
        interrupted += runs.interrupt_unfinished(ledger, "stage", started)
        runs.put(ledger, runs.Run(run_id, kind, started, None, "running"))
    report = NightReport(run_id, started, app.settings.model, interrupted=interrupted)
    if end.until is not None:
        report.night_end = end.until.isoformat(timespec="seconds")
    # Under the run lock no other write into these folders can be half done.
    for folder in WRITABLE:
        remove_leftover_temps(vault.root / folder)
    # The writer knows every article (and each one the night creates): a new wikilink to
    # none of them is refused, and NORMALIZE writes links to them in canonical form.
    writer = _RecordingWriter(vault, ledger, app.own_writes, run_id, known_stems=_stems(vault))
    model: list[MeteredModel] = []

    def the_model() -> TextModel:
        if not model:
            model.append(metered(app.model, app.settings, ledger, run_id))
        return model[0]

    policy = Policy(vault, keep=True)
    ctx = StageContext(vault, ledger, app.settings, policy, run_id, the_model, now, writer)
    # The same list: a page found broken later in the run is reported too.
    report.notices = policy.problems

    def signalled() -> bool:
        return stop is not None and stop()

    def stopping() -> bool:
        return signalled() or end.reached()

    rounds = Rounds(ledger, app.settings, end.until, end.clock, limit=limit, whole=kind != "night")
    # Judged before INGEST: a night that began in time and read Raw/ past its end just
    # ran out of time.
    report.started_late = end.reached()
    try:
        report.ingest = ingest(
            vault,
            ledger,
            progress=_ingest_progress(progress),
            max_file_bytes=app.settings.max_raw_file_mb * 1024 * 1024,
            read_seconds=app.settings.raw_read_timeout_s,
            record_run=False,
        )
        rounds.begin()
        _rounds(chosen, ctx, rounds, report, model, limit, progress, since_policy, stopping)
    except KeyboardInterrupt:
        _finish(app, report, writer, "interrupted", now, clock, rounds, model)
        raise
    except BaseException:
        _finish(app, report, writer, "failed", now, clock, rounds, model)
        raise
    finally:
        if not app.settings.keep_model_resident:
            app.unload_model()
    status: runs.RunStatus = "interrupted" if signalled() else "ok"
    # A night that reached its end with work left says so; one whose work was all done
    # just before its end has nothing to say about it.
    report.ended_at_end = not signalled() and end.reached() and (report.work_left or rounds.more())
    status = "failed" if report.model_unavailable else status
    _finish(app, report, writer, status, now, clock, rounds, model)
    return report


def _rounds(
    chosen: list[Stage],
    ctx: StageContext,
    rounds: Rounds,
    report: NightReport,
    model: list[MeteredModel],
    limit: int | None,
    progress: Progress | None,
    since_policy: str | None,
    stopping: Stop,
) -> None:
    """Every stage, a round at a time, until the backlog has no more for this night or
    the night must stop; each stage's reports of the rounds added into one."""
    by_stage: dict[str, StageReport] = {}
    while True:
        step = rounds.next(model[0] if model else None)
        if step is None:
            return
        ctx.waiting = step.waiting
        for stage in chosen:
            done = run_stage(
                stage, ctx, limit=limit, progress=progress, since_policy=since_policy, stop=stopping
            )
            if stage.name in by_stage:
                by_stage[stage.name].add(done)
            else:
                by_stage[stage.name] = done
                report.stages.append(done)
            if done.budget_spent or done.model_unavailable or stopping():
                return
        if step.taken == 0 or stopping():
            return


def _ingest_progress(progress: Progress | None) -> IngestProgress | None:
    """The night's INGEST reported as a stage of its own, each file its unit."""
    if progress is None:
        return None
    shown = progress
    return lambda done, total, rel: shown("ingest", done, total, rel)


def _stems(vault: Vault) -> list[str]:
    if not vault.articles.is_dir():
        return []
    return [p.stem for p in vault.articles.glob("*.md") if not p.name.startswith(".")]


def _finish(
    app: App,
    report: NightReport,
    writer: _RecordingWriter,
    status: runs.RunStatus,
    now: Callable[[], str],
    clock: float,
    rounds: Rounds,
    model: list[MeteredModel],
) -> None:
    """Gather what the run did, write and commit the report if it did anything, close the row."""
    ledger, run_id = app.ledger, report.run_id
    # The night's pace first: the backlog the report describes is estimated with it.
    pace = rounds.taken(model[0] if model else None)
    runs.record_pace(ledger, run_id, pace)
    report.status = status
    report.articles = list(writer.articles)
    report.talk = list(dict.fromkeys(writer.talk))
    if report.articles or report.interrupted:
        # The next night's EXTRACT and RESOLVE know the new titles and aliases, and
        # `status` counts the new articles (a killed run's too).
        indexed = reindex(app.vault, ledger)
        report.notices += [f"{rel}: {why}" for rel, why in indexed.unreadable]
    if report.articles:
        report.quality = scorecard(app.vault, ledger).free_text()
    report.conflicts = list(writer.conflicts)
    report.noops = gate_rejections.of_run(ledger, run_id)
    report.stuck = [s.reason for s in stuck_articles.of_run(ledger, run_id)]
    report.captured = [s.display for s in subjects.captured_since(ledger, report.started_at)]
    report.usage = model_calls.usage(ledger, run_id)
    report.backlog = work.backlog(ledger)
    report.backlog_said = described(backlog(ledger, app.settings))
    report.wall_seconds = monotonic() - clock
    report.finished_at = now()
    sha = None
    if report.did_anything:
        sha = _write_report(app.vault, writer, report)
    runs.finish(ledger, run_id, status, report.finished_at, report.summary(), sha)


def _write_report(vault: Vault, writer: Writer, report: NightReport) -> str | None:
    """Write the report into the day's Log page (a later run that day adds its section)."""
    rel = report_path(report.started_at)
    try:
        data = read_optional(vault, vault.root / rel, cap=MAX_PAGE_BYTES, what="a page")
        before = None if data is None else data.decode("utf-8")
    except RefusedFileError as e:
        report.report_error = str(e)
        return None
    except OSError as e:
        report.report_error = f"{rel}: cannot be read ({e.strerror}); check its permissions"
        return None
    except UnicodeDecodeError:
        report.report_error = f"{rel}: not UTF-8 text; save it as UTF-8"
        return None
    text = render(report, before)
    outcome = writer.write(Edit(rel, text, None if data is None else checksum(data)))
    if outcome.status != "written":
        report.report_error = outcome.detail or outcome.status
        return None
    report.report = rel
    sha = writer.commit(f"night report {rel}")
    if sha is not None:
        report.commits += 1
    return sha


def _plan(
    app: App,
    chosen: list[Stage],
    limit: int | None,
    now: Callable[[], str],
    since_policy: str | None,
) -> NightReport:
    """What a run would do now: 0 model calls, 0 writes (not even a `runs` row)."""
    vault, ledger = app.vault, app.ledger
    report = NightReport("dry-run", now(), app.settings.model, dry_run=True)
    report.ingest = IngestReport(files=_raw_to_read(vault, ledger))

    def no_model() -> TextModel:
        raise ModelError("a dry run makes no model calls; a stage asked for one while planning")

    ctx = StageContext(vault, ledger, app.settings, Policy(vault), "dry-run", no_model, now)
    # What `backlog_since` holds back is no part of any plan (nor past `--limit`).
    step = Rounds(ledger, app.settings, limit=limit, whole=True).next(None)
    ctx.waiting = step.waiting if step is not None else frozenset()
    report.stages = [
        run_stage(s, ctx, limit=limit, dry_run=True, since_policy=since_policy) for s in chosen
    ]
    return report


def _raw_to_read(vault: Vault, ledger: Ledger) -> int:
    """Raw files ingest would read (new, or changed since their watermark)."""
    known = {r.path: r for r in raw_files.every(ledger)}
    count = 0
    for path in raw_paths(vault):
        row = known.get(vault.rel(path))
        try:
            st = path.stat()
        except OSError:
            continue
        if raw_files.unread_since(row, st.st_size, st.st_mtime_ns):
            count += 1
    return count


def _reason(e: Exception, vault: Vault) -> str:
    """One line for the report: a DreamingError says what to do; anything else is ours,
    its traceback kept in the vault's internal log."""
    if isinstance(e, DreamingError):
        return " ".join(str(e).split())
    return internal_error(vault, e, "in this stage")
