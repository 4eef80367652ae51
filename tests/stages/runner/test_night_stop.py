"""The runner's stop check: a stopping night (SIGTERM to `synthesize`) ends at a unit
boundary, `interrupted`, with its report committed; the rest waits for the next run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.config import Settings
from dreaming.ledger import Ledger, runs, work
from dreaming.vault import Vault
from stages.runner.pipeline import run_night
from tests.pipeline_fakes import FakeStage, answers
from watcher.app import App

# Slow: a night in a child process, stopped by a signal.
pytestmark = pytest.mark.slow


def app_for(vault: Vault, tmp_path: Path) -> App:
    path = tmp_path / "answers.jsonl"
    rows = answers("segment", "abc") + answers("extract", "xy")
    path.write_text("".join(a.line() for a in rows), encoding="utf-8")
    return App(vault, replace(Settings(vault=vault.root), model=f"scripted:{path}"))


def test_a_stop_after_the_first_unit_commits_the_report_and_leaves_the_rest(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    segment, extract = FakeStage("segment", "abc"), FakeStage("extract", "xy")
    with app_for(vault, tmp_path) as app:
        report = run_night(app, stages=(segment, extract), stop=lambda: len(segment.ran) >= 1)
    assert segment.ran == ["a"]
    assert extract.ran == [], "a stopped night starts no later stage"
    assert report.status == "interrupted"
    assert report.stages[0].left == 2
    last = runs.last(ledger)
    assert last is not None
    assert last.status == "interrupted"
    assert last.commit_sha is not None, "the report is committed"
    assert report.report is not None
    assert (vault.root / report.report).is_file()
    assert work.is_done(ledger, "segment", "a", "hash-a")
    rest = FakeStage("segment", "abc")
    with app_for(vault, tmp_path) as app:
        again = run_night(app, stages=(rest,))
    assert rest.ran == ["b", "c"]
    assert again.status == "ok"
