"""The run report: what a night did, as plain Markdown for `Log/YYYY-MM-DD.md`.

One page a day; a second run that day adds its own section under the first,
so no run's report is ever lost or renamed. Rendering is a pure function of
the `NightReport` (and the page as it stood), so it is tested without a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dreaming.article import title_for_stem
from dreaming.article.linking import page_link
from dreaming.ledger.gate_rejections import GateRejection
from dreaming.ledger.model_calls import StageUsage
from dreaming.ledger.runs import RunStatus
from dreaming.ledger.work import MAX_ATTEMPTS
from stages.jobs.ingest import IngestReport
from stages.runner.contract import UnitResult


@dataclass(frozen=True, slots=True)
class WrittenArticle:
    stem: str
    created: bool


@dataclass
class StageReport:
    stage: str
    done: int = 0
    failed: int = 0
    rejected: int = 0
    skipped: int = 0
    """Already done with the same input, or waiting for the person to fix its article
    (`UnitResult.stuck`): no model call."""
    given_up: list[str] = field(default_factory=list)
    """Units that failed `MAX_ATTEMPTS` times with their input, waiting for it to change
    (counted in `skipped` too)."""
    left: int = 0
    """Not reached this run (budget spent or --limit); the next run does them."""
    planned: int = 0
    """In a dry run: the units a run would do."""
    plan: list[str] = field(default_factory=list)
    """In a dry run: what each of those units is (for SYNTHESIZE, `create X` or
    `update X`: the articles a run would write)."""
    commits: int = 0
    budget_spent: str | None = None
    model_unavailable: str | None = None
    """Why the model could not load: the stage stopped at its first unit that asked."""
    failures: list[tuple[str, str]] = field(default_factory=list)
    """(unit, one-line reason) of every failed or rejected unit."""
    unresolved: list[tuple[str, str]] = field(default_factory=list)
    """(unit key, what) a done unit could not settle (RECONCILE's disagreements, keyed
    on the article's stem)."""
    held: list[tuple[str, str]] = field(default_factory=list)
    """(unit, why) of every done unit that wrote no article for its subject yet."""

    def add(self, later: StageReport) -> None:
        """Add a later round's report of this stage into this one: what the rounds did
        adds up; what was already done is what was done before the night (the first
        round's count), and what is left is what the last round left."""
        self.done += later.done
        self.failed += later.failed
        self.rejected += later.rejected
        self.left = later.left
        self.commits += later.commits
        self.given_up = list(dict.fromkeys([*self.given_up, *later.given_up]))
        self.failures += later.failures
        self.unresolved += later.unresolved
        self.held += later.held
        self.budget_spent = self.budget_spent or later.budget_spent
        self.model_unavailable = self.model_unavailable or later.model_unavailable

    def count(self, unit: str, result: UnitResult, key: str = "") -> None:
        self.unresolved += [(key or unit, what) for what in result.unresolved]
        if result.held is not None:
            self.held.append((unit, result.held))
        if result.stuck:
            # Said once, by the run that found it, under "Needs your attention".
            self.skipped += 1
            return
        if result.status == "done":
            self.done += 1
            return
        if result.status == "failed":
            self.failed += 1
        else:
            self.rejected += 1
        self.failures.append((unit, result.detail or result.status))

    @property
    def attempted(self) -> int:
        return self.done + self.failed + self.rejected

    def units(self) -> dict[str, int]:
        return {
            "done": self.done,
            "failed": self.failed,
            "rejected": self.rejected,
            "skipped": self.skipped,
            "left": self.left,
        }


@dataclass
class NightReport:
    run_id: str
    started_at: str
    model: str
    dry_run: bool = False
    status: RunStatus = "running"
    finished_at: str | None = None
    wall_seconds: float = 0.0
    ingest: IngestReport = field(default_factory=IngestReport)
    stages: list[StageReport] = field(default_factory=list)
    articles: list[WrittenArticle] = field(default_factory=list)
    noops: list[GateRejection] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    """(stem, why) of edits a person's change to the article kept out."""
    captured: list[str] = field(default_factory=list)
    talk: list[str] = field(default_factory=list)
    """Stems whose Talk page got a proposal this run."""
    usage: dict[str, StageUsage] = field(default_factory=dict)
    commits: int = 0
    """Besides the stages' own: the report's."""
    report: str | None = None
    report_error: str | None = None
    notices: list[str] = field(default_factory=list)
    """Files the person should fix (a broken Meta page and what is in force instead)."""
    stuck: list[str] = field(default_factory=list)
    """Articles this run found no edit can pass the gate on, each with what to fix (an
    article is reported by the run that first finds its bytes so)."""
    interrupted: int = 0
    """Earlier runs this one found killed: it reports, so the Log page a killed run
    wrote but could not commit is committed now."""
    backlog: int = 0
    """Conversations still waiting for the model stages after this run
    (`dreaming.ledger.work.backlog`): an imported history takes nights."""
    quality: str | None = None
    """After a run that wrote articles: the gold-free part of `dreaming eval wiki`."""
    backlog_said: str = ""
    """The backlog as `dreaming.nights.backlog.described` says it: what waits, in which
    order, and what it will take at the measured pace."""
    night_end: str | None = None
    """The local time the night had to stop by (`night_ends`, `--until`), if any."""
    ended_at_end: bool = False
    """It stopped there, at a unit boundary, with work left for the next night."""
    started_late: bool = False
    """It began after its end (caught up after its window closed): only INGEST ran."""

    @property
    def work_left(self) -> bool:
        return any(s.left for s in self.stages)

    @property
    def model_calls(self) -> int:
        return sum(u["calls"] for u in self.usage.values())

    @property
    def budget_spent(self) -> str | None:
        return next((s.budget_spent for s in self.stages if s.budget_spent), None)

    @property
    def model_unavailable(self) -> str | None:
        return next((s.model_unavailable for s in self.stages if s.model_unavailable), None)

    @property
    def failures(self) -> int:
        return sum(s.failed for s in self.stages) + len(self.ingest.failed)

    @property
    def did_anything(self) -> bool:
        """Whether there is anything to report (a night with nothing new writes no page)."""
        return bool(
            self.ingest.changed
            or any(s.attempted for s in self.stages)
            or self.budget_spent
            or self.status != "ok"
            or self.interrupted
            or self.ended_at_end
            or self.stuck
        )

    def summary(self) -> dict[str, Any]:
        """The run's `runs.summary` (and `dreaming status --json`'s `last_run` keys)."""
        return {
            "ingest": self.ingest.summary(),
            "units": {s.stage: s.units() for s in self.stages},
            "model_calls": self.model_calls,
            "commits": self.commits + sum(s.commits for s in self.stages),
            # The gate records one row per reason; a NO-OP is one refused edit.
            "noops": len({(r.stage, r.unit, r.stem) for r in self.noops}) + len(self.conflicts),
            "failures": self.failures,
            "budget_spent": self.budget_spent,
            "articles_created": len(self.made),
            "articles_updated": len({a.stem for a in self.articles} - self.made),
            "wall_seconds": round(self.wall_seconds, 3),
            "report": self.report,
            "backlog": self.backlog,
            "night_end": self.night_end,
            "stopped_at_end": self.ended_at_end,
        }

    @property
    def made(self) -> set[str]:
        """The articles this run made (and may have written again after)."""
        return {a.stem for a in self.articles if a.created}


def report_path(started_at: str) -> str:
    """The day's Log page for a run started at `started_at` (ISO 8601 UTC)."""
    return f"Log/{started_at[:10]}.md"


def render(report: NightReport, before: str | None) -> str:
    """The Log page with this run's section added to `before` (None: a new page)."""
    head = f"# Dreaming {report.started_at[:10]}" if before is None else before.rstrip("\n")
    return f"{head}\n\n{section(report)}"


def section(report: NightReport) -> str:
    lines = [f"## Run {report.run_id} at {report.started_at[11:19]} UTC", ""]
    attention = [*report.notices, *report.stuck]
    lines += _callout("Needs your attention", [_plain(n) for n in attention])
    lines.append(
        f"Status: {report.status}. Model: {_plain(report.model)}. "
        f"Wall time: {report.wall_seconds:.1f} s. Model calls: {report.model_calls}."
    )
    if report.interrupted:
        lines.append(f"Resumed after {report.interrupted} interrupted run(s).")
    if report.started_late and report.night_end:
        lines.append(
            f"This night started after its end ({_clock(report.night_end)}), the machine "
            "off or asleep through its window: it read Raw/ and left the model work for the "
            "next night. To do it now: dreaming synthesize; to have it done, set schedule "
            "to an hour the machine is on."
        )
    elif report.ended_at_end and report.night_end:
        left = sum(s.left for s in report.stages)
        what = f"{left} units left" if left else "the backlog left"
        lines.append(
            f"Stopped at the night's end ({_clock(report.night_end)}): {what}; the next "
            "night resumes there."
        )
    if report.backlog_said:
        # Our own words (numbers, the order, a validated date): no escaping, which would
        # show setting names as backlog\_since.
        lines.append(f"Backlog: {report.backlog_said}")
    elif report.backlog:
        lines.append(f"Backlog: {report.backlog} conversations not yet synthesized.")
    if report.model_unavailable:
        lines.append(f"Stopped: the model could not load: {_plain(report.model_unavailable)}")
    if report.budget_spent:
        left = sum(s.left for s in report.stages)
        lines.append(
            f"Budget spent, {left} units left for the next run: {_plain(report.budget_spent)}"
        )
    lines += ["", "### Ingest", "", _ingest_line(report.ingest)]
    by = f" (written by {_plain(report.model)})"
    # One line an article, however many stages wrote it: created if any write made it.
    made = report.made
    stems = list(dict.fromkeys(a.stem for a in report.articles))
    lines += _listed("Articles created", [_link(s) + by for s in stems if s in made])
    lines += _listed("Articles updated", [_link(s) + by for s in stems if s not in made])
    noops = [f"{_link(r.stem)}: `{r.code}` {_plain(r.detail)} ({r.stage})" for r in report.noops]
    noops += [
        f"{_link(stem)}: kept the person's change: {_plain(why)}" for stem, why in report.conflicts
    ]
    lines += _listed("NO-OPs", noops)
    lines += _listed(
        "Proposed on Talk pages (yours to act on)",
        [f"[[Talk/{stem}|Talk: {_plain(title_for_stem(stem))}]]" for stem in report.talk],
    )
    lines += _listed(
        "Unresolved (the sources disagree; yours to settle)",
        [f"{_link(u)}: {_plain(what)}" for s in report.stages for u, what in s.unresolved],
    )
    lines += _listed("Captured subjects", [_plain(name) for name in report.captured])
    lines += _listed(
        "No article yet (nothing the conversations support enough to write; asked again "
        "when a conversation brings more)",
        [f"{_plain(u)}: {_plain(why)}" for s in report.stages for u, why in s.held],
    )
    failures = [
        f"{s.stage} {_plain(u)}: {_plain(why)}" for s in report.stages for u, why in s.failures
    ]
    failures += [f"ingest {_plain(f)}: {_plain(why)}" for f, why in report.ingest.failed]
    failures += [
        f"{s.stage} {_plain(u)}: failed {MAX_ATTEMPTS} times on this input; tried again when "
        "it changes (new conversations, a changed Meta page, another model)"
        for s in report.stages
        for u in s.given_up
    ]
    lines += _listed("Failures", failures)
    if report.quality:
        lines += ["", "### The wiki now", "", *(_plain(x) for x in report.quality.splitlines())]
    lines += ["", "### Stages", "", _stage_table(report)]
    return "\n".join(lines) + "\n"


def _clock(moment: str) -> str:
    """HH:MM of an ISO local time."""
    return moment[11:16]


def _ingest_line(i: IngestReport) -> str:
    return (
        f"{i.files} Raw files: {i.ingested} read, {i.unchanged} unchanged, "
        f"{len(i.failed)} failed, {len(i.pending)} pending; {i.conversations_new} new and "
        f"{i.conversations_updated} updated conversations, {i.messages_added} messages."
    )


def _callout(title: str, items: list[str]) -> list[str]:
    """An Obsidian warning callout: what the person must fix stands first in the section."""
    if not items:
        return []
    return [f"> [!warning] {title}", *(f"> - {item}" for item in items), ""]


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    return ["", f"### {title}", "", *(f"- {item}" for item in items)]


def _stage_table(report: NightReport) -> str:
    rows = [
        "| stage | done | failed | rejected | skipped | left "
        "| calls | tokens in | tokens out | model s |",
        "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
    ]
    for s in report.stages:
        u = report.usage.get(s.stage)
        calls, tin, tout, secs = (
            (u["calls"], u["prompt_tokens"], u["generated_tokens"], u["seconds"])
            if u
            else (0, 0, 0, 0.0)
        )
        rows.append(
            f"| {s.stage} | {s.done} | {s.failed} | {s.rejected} | {s.skipped} | {s.left} "
            f"| {calls} | {tin} | {tout} | {secs:.1f} |"
        )
    if not report.stages:
        rows.append("| (none) | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0.0 |")
    return "\n".join(rows)


def _link(stem: str) -> str:
    return page_link(stem, _plain(title_for_stem(stem)))


def _plain(text: str) -> str:
    """`text` on one line, its link and table characters escaped: a reason or name from
    a transcript must not become a link, a table cell break or a heading."""
    flat = " ".join(text.split())
    for c in "\\[]|<>`*_#":
        flat = flat.replace(c, "\\" + c)
    return flat
