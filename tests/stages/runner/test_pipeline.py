"""The night runner: skip what is done, keep going past a failure, stop on budget, resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dreaming.article import build
from dreaming.checks.status import status
from dreaming.config import Settings
from dreaming.errors import DreamingError
from dreaming.ledger import Ledger, raw_files, runs, work
from dreaming.ledger.work import MAX_ATTEMPTS
from dreaming.model import TextModel
from dreaming.vault import Vault
from dreaming.vault.lock import RunLocked, run_lock
from stages.runner.contract import Stage, StageContext, StageName, Unit, UnitResult
from stages.runner.pipeline import run_night
from stages.runner.report import render
from stages.runner.write import Edit
from tests.pipeline_fakes import FakeStage, answers, page
from tests.support import REPO, raw_note
from watcher.app import App

ROOT = REPO


def git(vault: Vault, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=vault.root, capture_output=True, text=True, check=True
    ).stdout


def commits(vault: Vault) -> int:
    return int(git(vault, "rev-list", "--count", "HEAD"))


def app_for(vault: Vault, path: Path, **settings: object) -> App:
    base = Settings(vault=vault.root, model=f"scripted:{path}")
    return App(vault, replace(base, **settings))  # type: ignore[arg-type]


@pytest.fixture
def answers_file(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    rows = answers("segment", "abcdef") + answers("extract", "abcdef")
    path.write_text("".join(a.line() for a in rows), encoding="utf-8")
    return path


def night(
    vault: Vault, answers_path: Path, stages: Iterable[Stage], **kw: object
) -> dict[str, Any]:
    with app_for(vault, answers_path, **kw.pop("settings", {})) as app:  # type: ignore[arg-type]
        report = run_night(app, stages=tuple(stages), **kw)  # type: ignore[arg-type]
        doc = status(app.ledger)
    return {"report": report, "status": doc}


def test_a_second_night_with_nothing_new_makes_no_model_call_and_no_commit(
    vault: Vault, answers_file: Path
) -> None:
    first = night(vault, answers_file, [FakeStage("segment", "abc")])
    assert first["report"].model_calls == 3
    before = commits(vault)
    again = FakeStage("segment", "abc")
    second = night(vault, answers_file, [again])
    assert again.ran == []
    assert second["report"].model_calls == 0
    assert commits(vault) == before
    assert second["status"]["last_run"]["units"]["segment"]["skipped"] == 3


def test_a_unit_that_raises_is_recorded_failed_and_the_next_unit_still_runs(
    vault: Vault, ledger: Ledger, answers_file: Path
) -> None:
    stage = FakeStage("segment", "abc", fail="b")
    report = night(vault, answers_file, [stage])["report"]
    assert stage.ran == ["a", "b", "c"]
    failed = work.get(ledger, "segment", "b")
    assert failed is not None
    assert failed.status == "failed"
    assert failed.last_error == "unit b broke on two lines"
    assert (vault.root / page("segment", "c")).is_file()
    assert report.stages[0].failures == [("unit b", "unit b broke on two lines")]


def test_a_spent_budget_stops_at_a_unit_boundary_and_the_next_night_resumes(
    vault: Vault, ledger: Ledger, answers_file: Path
) -> None:
    first = night(
        vault,
        answers_file,
        [FakeStage("segment", "abcde"), FakeStage("extract", "ab")],
        settings={"max_model_calls": 2},
    )["report"]
    assert first.model_calls == 2
    assert first.stages[0].done == 2
    assert first.stages[0].left == 3
    assert len(first.stages) == 1, "a spent budget stops the night"
    text = (vault.root / first.report).read_text()
    assert "Budget spent, 3 units left for the next run" in text
    rest = FakeStage("segment", "abcde")
    second = night(vault, answers_file, [rest, FakeStage("extract", "ab")])["report"]
    assert rest.ran == ["c", "d", "e"]
    assert second.model_calls == 5
    assert all(work.is_done(ledger, "segment", k, f"hash-{k}") for k in "abcde")


def test_a_unit_that_keeps_failing_on_one_input_waits_for_it_to_change(
    vault: Vault, answers_file: Path
) -> None:
    stage = FakeStage("segment", "ab", fail="b")
    for _ in range(MAX_ATTEMPTS):
        night(vault, answers_file, [stage])
    stage.ran.clear()
    report = night(vault, answers_file, [stage])["report"]
    assert stage.ran == []
    assert report.stages[0].given_up == ["unit b"]
    assert "segment unit b: failed 3 times on this input" in render(report, None)


def test_a_unit_given_up_on_runs_again_when_its_input_changes(
    vault: Vault, answers_file: Path
) -> None:
    for _ in range(MAX_ATTEMPTS):
        night(vault, answers_file, [FakeStage("segment", "b", fail="b")])
    changed = FakeStage("segment", "b")
    changed.units = lambda ctx: iter([Unit("b", "a new input", "unit b")])  # type: ignore[method-assign]
    night(vault, answers_file, [changed])
    assert changed.ran == ["b"]


def test_a_dry_run_names_each_unit_it_would_do(vault: Vault, answers_file: Path) -> None:
    night(vault, answers_file, [FakeStage("segment", "ab")])
    with app_for(vault, answers_file) as app:
        plan = run_night(app, stages=(FakeStage("segment", "abcd"),), dry_run=True)
    assert plan.stages[0].plan == ["unit c", "unit d"]


def test_a_dry_run_makes_no_call_and_no_write_and_counts_the_units_to_do(
    vault: Vault, answers_file: Path
) -> None:
    night(vault, answers_file, [FakeStage("segment", "ab")])
    (vault.raw / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    before, state = commits(vault), git(vault, "status", "--porcelain")
    stage = FakeStage("segment", "abcd")
    with app_for(vault, answers_file) as app:
        last = runs.last(app.ledger)
        plan = run_night(app, stages=(stage, FakeStage("extract", "a")), dry_run=True, limit=1)
        assert runs.last(app.ledger) == last
    assert stage.ran == []
    assert [(s.stage, s.planned, s.skipped, s.left) for s in plan.stages] == [
        ("segment", 1, 2, 1),
        ("extract", 1, 0, 0),
    ]
    assert plan.ingest.files == 1
    assert commits(vault) == before
    assert git(vault, "status", "--porcelain") == state


def test_a_dry_run_counts_a_raw_file_still_pending_as_one_to_read(
    vault: Vault, answers_file: Path
) -> None:
    half_a_record = '{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"us'
    (vault.raw / "session.jsonl").write_text(half_a_record, encoding="utf-8")
    night(vault, answers_file, [FakeStage("segment", "a")])
    with app_for(vault, answers_file) as app:
        row = raw_files.get(app.ledger, "Raw/session.jsonl")
        assert row is not None
        assert row.status == "pending"
        plan = run_night(app, stages=(FakeStage("segment", "a"),), dry_run=True)
    assert plan.ingest.files == 1


def test_the_report_is_written_to_log_and_committed_with_the_run_trailer(
    vault: Vault, answers_file: Path
) -> None:
    report = night(vault, answers_file, [FakeStage("segment", "ab", fail="b")])["report"]
    assert report.report == f"Log/{report.started_at[:10]}.md"
    text = (vault.root / report.report).read_text()
    assert f"## Run {report.run_id}" in text
    assert "segment unit b: unit b broke on two lines" in text
    assert "| segment | 1 | 1 | 0 | 0 | 0 | 1 |" in text
    message = git(vault, "log", "-1", "--format=%B")
    assert f"Dreaming-Run: {report.run_id}" in message
    assert git(vault, "log", "-1", "--name-only", "--format=") == f"{report.report}\n"


def test_a_second_run_the_same_day_adds_its_section_to_the_day_s_report(
    vault: Vault, answers_file: Path
) -> None:
    first = night(vault, answers_file, [FakeStage("segment", "a")])["report"]
    second = night(vault, answers_file, [FakeStage("segment", "ab")])["report"]
    assert first.report == second.report
    text = (vault.root / second.report).read_text()
    assert text.count("# Dreaming ") == 1
    assert text.index(f"## Run {first.run_id}") < text.index(f"## Run {second.run_id}")


@pytest.mark.timeout(10)
def test_a_named_pipe_at_the_day_s_report_is_said_and_the_night_finishes(
    vault: Vault, answers_file: Path
) -> None:
    os.mkfifo(vault.log / "2026-12-01.md")
    report = night(
        vault, answers_file, [FakeStage("segment", "a")], now=lambda: "2026-12-01T03:00:00+00:00"
    )["report"]
    assert report.report is None
    assert report.report_error == "Log/2026-12-01.md: a named pipe, not a file; delete it"
    with run_lock(vault):
        pass


@pytest.mark.timeout(10)
def test_a_night_that_reindexes_past_a_named_pipe_in_articles_names_it_and_finishes(
    vault: Vault, answers_file: Path
) -> None:
    with Ledger(vault.ledger_path) as ledger, ledger.transaction():
        runs.put(ledger, runs.Run("killed", "night", "2026-12-01T02:00:00+00:00", None, "running"))
    os.mkfifo(vault.articles / "Pipe.md")
    report = night(vault, answers_file, [])["report"]
    assert report.interrupted == 1
    assert "articles/Pipe.md: a named pipe, not a file; delete it" in report.notices
    assert report.report is not None
    with run_lock(vault):
        pass


def test_status_last_run_has_units_calls_commits_noops_and_failures(
    vault: Vault, answers_file: Path
) -> None:
    doc = night(vault, answers_file, [FakeStage("segment", "abc", fail="c")])["status"]
    last = doc["last_run"]
    assert last["kind"] == "night"
    assert last["status"] == "ok"
    assert last["units"] == {
        "segment": {"done": 2, "failed": 1, "rejected": 0, "skipped": 0, "left": 0}
    }
    assert (last["model_calls"], last["noops"], last["failures"]) == (2, 0, 1)
    assert last["commits"] == 3, "two units and the report"


def test_only_the_named_stage_runs_and_an_unknown_name_is_refused(
    vault: Vault, answers_file: Path
) -> None:
    one, other = FakeStage("segment", "a"), FakeStage("extract", "a")
    report = night(vault, answers_file, [one, other], only="extract")["report"]
    assert (one.ran, other.ran) == ([], ["a"])
    assert runs.get(Ledger(vault.ledger_path), report.run_id).kind == "stage"  # type: ignore[union-attr]
    with pytest.raises(DreamingError, match="no stage named 'nope'; choose one of: ingest"):
        night(vault, answers_file, [one], only="nope")


def test_limit_caps_the_units_of_each_stage(vault: Vault, answers_file: Path) -> None:
    stage = FakeStage("segment", "abcd")
    report = night(vault, answers_file, [stage], limit=2)["report"]
    assert stage.ran == ["a", "b"]
    assert report.stages[0].left == 2


def test_the_report_says_how_many_conversations_wait_for_later_nights(
    vault: Vault, answers_file: Path
) -> None:
    for name in ("a", "b"):
        (vault.raw / f"{name}.md").write_text(raw_note(("user", f"hi {name}"), ("assistant", "hi")))
    doc = night(vault, answers_file, [])
    assert doc["report"].backlog == 2
    assert doc["status"]["last_run"]["summary"]["backlog"] == 2
    page = (vault.root / doc["report"].report).read_text(encoding="utf-8")
    assert "Backlog: 2 conversations not yet synthesized" in page


def test_ingest_runs_first_so_new_raw_files_are_all_a_night_needs(
    vault: Vault, answers_file: Path
) -> None:
    (vault.raw / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    doc = night(vault, answers_file, [])
    assert doc["status"]["conversations"] == 1
    assert doc["status"]["last_run"]["summary"]["ingest"]["ingested"] == 1
    assert doc["status"]["last_run"]["kind"] == "night"


def child(
    vault: Vault, answers_path: Path, keys: str, crash: str = "", *extra: str
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "tests.pipeline_fakes", str(vault.root), str(answers_path)]
    return subprocess.Popen([*args, ",".join(keys), crash, *extra], cwd=ROOT, env=env)


@pytest.mark.slow  # a child process holds the lock
def test_a_second_run_while_one_holds_the_lock_refuses_naming_its_pid(
    vault: Vault, answers_file: Path, tmp_path: Path
) -> None:
    held = tmp_path / "held"
    proc = child(vault, answers_file, "a", "", str(held))
    try:
        deadline = time.monotonic() + 30
        while not held.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held.exists()
        with pytest.raises(RunLocked, match=f"pid {proc.pid}"):
            night(vault, answers_file, [FakeStage("segment", "a")])
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with run_lock(vault):
        pass


@pytest.mark.slow  # nights killed in child processes
@pytest.mark.parametrize(
    "crash", ["b:before_write", "b:after_write", "b:at_record", "d:after_write"]
)
def test_a_night_killed_anywhere_then_rerun_does_each_unit_exactly_once(
    vault: Vault, ledger: Ledger, answers_file: Path, crash: str
) -> None:
    start = commits(vault)
    killed = child(vault, answers_file, "abcd", crash)
    assert killed.wait(timeout=60) == -signal.SIGKILL
    dead = runs.last(ledger)
    assert dead is not None
    assert dead.status == "running"
    rerun = child(vault, answers_file, "abcd")
    assert rerun.wait(timeout=60) == 0
    assert all(work.is_done(ledger, "segment", k, f"hash-{k}") for k in "abcd")
    since = f"HEAD~{commits(vault) - start}..HEAD"
    for k in "abcd":
        # Once, as dreaming's: by its unit, or (written before the kill, never committed)
        # by the rerun finishing what the killed run wrote.
        made = git(vault, "log", "--format=%an %s", since, "--", page("segment", k))
        assert made.splitlines() in (
            [f"dreaming segment: unit {k}"],
            [f"dreaming dreaming: finish interrupted run {dead.id}"],
        ), made
        assert (vault.root / page("segment", k)).read_text() == f"word-{k}\n"
    assert git(vault, "status", "--porcelain", "Talk") == ""
    last, stopped = runs.last(ledger), runs.get(ledger, dead.id)
    assert last is not None
    assert last.status == "ok"
    assert stopped is not None
    assert stopped.status == "interrupted"


def test_the_model_is_loaded_once_a_night_released_at_its_end_and_never_when_idle(
    vault: Vault, answers_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dreaming.model

    real, loads = dreaming.model.load, []

    def counting(spec: str) -> TextModel:
        loads.append(spec)
        return real(spec)

    monkeypatch.setattr(dreaming.model, "load", counting)
    with app_for(vault, answers_file) as app:
        run_night(app, stages=(FakeStage("segment", "ab"), FakeStage("extract", "ab")))
        assert len(loads) == 1
        assert app._model is None, "released when the night ends"
        run_night(app, stages=(FakeStage("segment", "ab"),))
    assert len(loads) == 1, "a night with nothing to do loads no model"


class Unlistable(FakeStage):
    def units(self, ctx: StageContext) -> Iterator[Unit]:
        yield Unit("a", "hash-a")
        raise DreamingError("Meta/Chunking.md: unreadable; fix the page")


def test_a_stage_that_cannot_list_its_units_fails_alone_and_the_next_stage_runs(
    vault: Vault, answers_file: Path
) -> None:
    after = FakeStage("extract", "a")
    report = night(vault, answers_file, [Unlistable("segment", ""), after])["report"]
    assert after.ran == ["a"]
    assert report.stages[0].failures == [
        ("its units", "Meta/Chunking.md: unreadable; fix the page")
    ]
    assert report.summary()["failures"] == 1


class Buggy(FakeStage):
    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if unit.key == "a":
            raise KeyError("a")
        if unit.key == "stop":
            raise KeyboardInterrupt
        return super().run(ctx, unit)


def test_a_bug_in_a_unit_is_an_internal_error_for_that_unit_alone(
    vault: Vault, answers_file: Path
) -> None:
    report = night(vault, answers_file, [Buggy("segment", "ab")])["report"]
    assert report.stages[0].failures == [
        (
            "unit a",
            "internal error in this stage (KeyError); "
            "please report it with .dreaming/logs/internal.log",
        )
    ]
    assert report.stages[0].done == 1


def test_an_internal_error_keeps_its_traceback_in_the_internal_log(
    vault: Vault, answers_file: Path
) -> None:
    night(vault, answers_file, [Buggy("segment", "ab")])
    log = (vault.logs / "internal.log").read_text(encoding="utf-8")
    assert "internal error in this stage (KeyError)" in log
    assert "Traceback (most recent call last)" in log
    assert 'raise KeyError("a")' in log


def test_an_interrupted_night_is_recorded_interrupted_and_its_done_units_stay_done(
    vault: Vault, ledger: Ledger, answers_file: Path
) -> None:
    stage = Buggy("segment", ["b", "stop", "c"])
    with app_for(vault, answers_file) as app, pytest.raises(KeyboardInterrupt):
        run_night(app, stages=(stage,))
    last = runs.last(ledger)
    assert last is not None
    assert last.status == "interrupted"
    assert work.is_done(ledger, "segment", "b", "hash-b")
    assert stage.ran == ["b"]


def test_status_shows_what_the_last_night_did(vault: Vault, answers_file: Path) -> None:
    from click.testing import CliRunner

    from watcher.cli import cli

    night(vault, answers_file, [FakeStage("segment", "abc", fail="c")])
    shown = CliRunner().invoke(cli, ["status", "--vault", str(vault.root)])
    assert shown.exit_code == 0, shown.output
    assert "2 units done, 1 failures, 0 no-ops, 2 model calls, 3 commits" in shown.output


class Linking:
    """A stage writing one article that links to `target`."""

    name: StageName = "link"
    policy: tuple[str, ...] = ()

    def __init__(self, target: str) -> None:
        self.target = target

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        yield Unit("Page", f"links {self.target}", "page")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        assert ctx.writer is not None
        text = build("Page", lead=f"See [[{self.target}]].", sections=[], infobox={"kind": "thing"})
        outcome = ctx.writer.write(Edit("Page", text, None, stage="link", unit="Page"))
        return UnitResult("done" if outcome.status == "written" else "rejected", outcome.detail)


def test_the_nights_writer_refuses_a_new_link_to_no_article(
    vault: Vault, answers_file: Path
) -> None:
    with app_for(vault, answers_file) as app:
        report = run_night(app, stages=[Linking("Nowhere")])
    assert report.stages[0].rejected == 1
    assert not (vault.articles / "Page.md").exists()


def test_the_nights_writer_takes_a_link_to_an_article_of_the_vault(
    vault: Vault, answers_file: Path
) -> None:
    (vault.articles / "Beads.md").write_text(
        build("Beads", lead="Beads tracks issues.", sections=[], infobox={"kind": "thing"}),
        encoding="utf-8",
    )
    with app_for(vault, answers_file) as app:
        report = run_night(app, stages=[Linking("Beads")])
    assert report.stages[0].done == 1
    assert "See [[Beads]]." in (vault.articles / "Page.md").read_text(encoding="utf-8")
