"""Nights that fit the machine: a night stops by its end (`night_ends`, or `--until`) at a
unit boundary, commits its report and leaves the rest to the next night, which resumes
there; the backlog goes through every stage a slice at a time, in the person's order."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dreaming.config import Settings
from dreaming.ledger import Ledger, runs, work
from dreaming.nights.backlog import backlog
from dreaming.vault import Vault
from stages.runner.pipeline import run_night
from stages.runner.rounds import FIRST_ROUND
from tests.pipeline_fakes import AfterStage, ConversationStage, FakeStage, answers, page
from tests.support import raw_note
from watcher.app import App

EARLY = datetime(2026, 3, 1, 6, 30)
END = datetime(2026, 3, 1, 7, 0)
LATE = datetime(2026, 3, 1, 7, 0, 1)


def app_for(vault: Vault, tmp_path: Path, **settings: Any) -> App:
    path = tmp_path / "answers.jsonl"
    rows = answers("segment", "abc") + answers("extract", "xy")
    path.write_text("".join(a.line() for a in rows), encoding="utf-8")
    base = Settings(vault=vault.root, model=f"scripted:{path}")
    return App(vault, replace(base, **settings))


def git_log(vault: Vault) -> str:
    return subprocess.run(
        ["git", "log", "--format=%s", "--name-only"], cwd=vault.root, capture_output=True,
        text=True, check=True,
    ).stdout  # fmt: skip


def after(stage: FakeStage, units: int) -> Callable[[], datetime]:
    """A clock that reads 06:30 until `stage` has done `units` units, then 07:00:01."""
    return lambda: LATE if len(stage.ran) >= units else EARLY


def test_a_night_past_its_end_stops_at_the_unit_boundary_commits_its_report_and_the_next_resumes(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    segment, extract = FakeStage("segment", "abc"), FakeStage("extract", "xy")
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment, extract), until=END, clock=after(segment, 1))
    assert segment.ran == ["a"], "unit a finished (written and committed); b never began"
    assert extract.ran == []
    assert report.status == "ok", "a night that ends on time has not failed"
    assert report.ended_at_end
    assert report.stages[0].left == 2
    assert report.summary()["stopped_at_end"] is True
    assert work.is_done(ledger, "segment", "a", "hash-a")
    assert not work.is_done(ledger, "segment", "b", "hash-b")
    last = runs.last(ledger)
    assert last is not None
    assert last.commit_sha is not None, "the report is committed"
    assert report.report is not None
    text = (vault.root / report.report).read_text(encoding="utf-8")
    assert "Stopped at the night's end (07:00): 2 units left; the next night resumes there." in (
        text
    )
    log = git_log(vault)
    assert page("segment", "a") in log
    assert page("segment", "b") not in log
    rest, extract = FakeStage("segment", "abc"), FakeStage("extract", "xy")
    with app_for(vault, tmp_path) as app:
        again = run_night(
            app, stages=(rest, extract), until=datetime(2026, 3, 2, 7, 0), clock=lambda: EARLY
        )
    assert rest.ran == ["b", "c"], "the next night resumes where this one stopped"
    assert extract.ran == ["x", "y"]
    assert again.status == "ok"
    assert not again.ended_at_end


def test_a_night_that_starts_after_its_end_reads_raw_and_leaves_the_model_work(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    (vault.raw / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    segment = FakeStage("segment", "abc")
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment,), until=END, clock=lambda: LATE)
    assert segment.ran == []
    assert report.ingest.ingested == 1
    assert report.started_late
    assert report.report is not None
    text = (vault.root / report.report).read_text(encoding="utf-8")
    assert "This night started after its end (07:00)" in text
    assert "dreaming synthesize" in text


def test_without_an_end_a_night_runs_all_its_work_whatever_the_clock(
    vault: Vault, tmp_path: Path
) -> None:
    segment = FakeStage("segment", "abc")
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment,), clock=lambda: LATE)
    assert segment.ran == ["a", "b", "c"]
    assert not report.ended_at_end


DATES = ("2024-11-02", "2025-01-05", "2025-03-14", "2025-06-01", "2025-09-09", "2025-12-24")


def dated_history(vault: Vault) -> None:
    """Six conversations, one a date, each titled by its date."""
    for day in DATES:
        note = raw_note(("user", f"what happened on {day}?"), ("assistant", "a lot"), title=day,
                        date=day)  # fmt: skip
        (vault.raw / f"{day}.md").write_text(note, encoding="utf-8")


@pytest.mark.parametrize(
    ("order", "first"),
    [("newest", DATES[-FIRST_ROUND:]), ("oldest", DATES[:FIRST_ROUND])],
)
def test_a_night_takes_the_backlog_in_the_order_asked(
    vault: Vault, tmp_path: Path, order: str, first: tuple[str, ...]
) -> None:
    dated_history(vault)
    segment = ConversationStage()
    with app_for(vault, tmp_path, backlog_order=order) as app:
        run_night(app, stages=(segment,), until=END, clock=after(segment, FIRST_ROUND))
    assert sorted(segment.ran) == sorted(first)


def test_the_backlog_goes_through_every_stage_a_round_at_a_time_newest_first(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    dated_history(vault)
    segment, later = ConversationStage(), AfterStage()
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment, later), until=END, clock=lambda: EARLY)
    newest, rest = DATES[-FIRST_ROUND:], DATES[:-FIRST_ROUND]
    assert sorted(later.ran[:FIRST_ROUND]) == sorted(newest), "the first round reached EXTRACT"
    assert sorted(later.ran[FIRST_ROUND:]) == sorted(rest)
    assert report.stages[0].done == len(DATES), "the rounds add up to one line a stage"
    assert report.stages[1].done == len(DATES)
    assert report.backlog == 0
    (pace,) = runs.measured(ledger)
    assert (pace.conversations, pace.messages) == (len(DATES), 2 * len(DATES))


def test_since_a_date_the_older_conversations_wait_and_the_report_says_so(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    dated_history(vault)
    segment = ConversationStage()
    with app_for(vault, tmp_path, backlog_since="2025-06-01") as app:
        report = run_night(app, stages=(segment,))
        found = backlog(ledger, app.settings)
    assert sorted(segment.ran) == ["2025-06-01", "2025-09-09", "2025-12-24"]
    assert (found.conversations, found.held) == (0, 3)
    assert report.report is not None
    text = (vault.root / report.report).read_text(encoding="utf-8")
    assert "3 older conversations wait until backlog_since (2025-06-01)" in text


def test_the_report_estimates_what_is_left_from_the_pace_the_night_measured(
    vault: Vault, tmp_path: Path
) -> None:
    dated_history(vault)
    segment = ConversationStage()
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment,), until=END, clock=after(segment, FIRST_ROUND))
    assert report.report is not None
    text = (vault.root / report.report).read_text(encoding="utf-8")
    left = len(DATES) - FIRST_ROUND
    assert f"Backlog: {left} conversation" in text
    assert "At the pace of the last night" in text


def test_a_dry_run_plans_no_conversation_backlog_since_holds_back(
    vault: Vault, tmp_path: Path
) -> None:
    dated_history(vault)
    with App(vault, Settings(vault=vault.root)) as app:
        from stages.jobs.ingest import ingest

        ingest(vault, app.ledger)
    segment = ConversationStage()
    with app_for(vault, tmp_path, backlog_since="2025-06-01") as app:
        plan = run_night(app, stages=(segment,), dry_run=True)
    assert sorted(plan.stages[0].plan) == ["2025-06-01", "2025-09-09", "2025-12-24"]


def test_a_round_is_what_fits_in_the_time_left_at_the_last_nights_pace(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    dated_history(vault)
    # A night before measured 10 s on the clock a message; each conversation here has 2
    # messages, so the 21 s a round plans to use of the 30 s left hold one (a round never
    # plans to fill the time: its pace is an estimate).
    runs.put(ledger, runs.Run("before", "night", "2026-02-01T03:00:00+00:00", None, "running"))
    runs.record_pace(ledger, "before", runs.RunPace(1, 10, 90.0, 100.0, 30))
    segment, later = ConversationStage(), AfterStage()
    until = datetime(2026, 3, 1, 6, 30, 30)
    with app_for(vault, tmp_path) as app:
        run_night(app, stages=(segment, later), until=until, clock=lambda: EARLY)
    assert later.ran[0] == DATES[-1], "the first round: the newest conversation alone"
    assert sorted(later.ran[1:]) == sorted(DATES[:-1]), "then this night's own pace"
