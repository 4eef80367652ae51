"""A self-healing story, three nights over three dates (a plan, a change of mind, the
result), answered as the default model answered: lead, body and infobox end on the
latest position, the superseded one stays with its date, and the History keeps the trace.

The conversations are tests/fixtures/story/*.md; the answers were recorded with

    python bench/story.py 'record:ANSWERS|gguf:qwen2.5-coder-1.5b'

and cut to stage, key, text and usage. Replay is exact: a changed prompt fails loudly
here (record again).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.article import parse
from dreaming.checks.audit import audit
from dreaming.config import Settings
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from stages.runner.pipeline import run_night
from stages.runner.report import NightReport
from tests.support import FIXTURES
from watcher.app import App

STORY = FIXTURES / "story"
ANSWERS = STORY / "qwen2.5-coder-1.5b.jsonl"


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Vault, list[NightReport]]:
    vault = init_vault(tmp_path_factory.mktemp("story") / "vault").vault
    settings = replace(Settings(vault=vault.root), model=f"scripted:{ANSWERS}")
    reports = []
    for note in sorted(STORY.glob("*.md")):
        shutil.copy(note, vault.raw / note.name)
        with App(vault, settings) as app:
            reports.append(run_night(app))
    return vault, reports


def shed(vault: Vault) -> str:
    return (vault.articles / "Garden_Shed.md").read_text(encoding="utf-8")


def test_every_night_runs_without_a_failed_unit(nights: tuple[Vault, list[NightReport]]) -> None:
    _, reports = nights
    assert [(r.status, r.failures) for r in reports] == [("ok", 0)] * 3


def test_the_infobox_ends_on_the_latest_position(nights: tuple[Vault, list[NightReport]]) -> None:
    vault, _ = nights
    assert dict(parse(shed(vault)).infobox or ())["status"] == "finished"


def test_the_lead_says_the_latest_position(nights: tuple[Vault, list[NightReport]]) -> None:
    vault, _ = nights
    lead = parse(shed(vault)).lead
    assert "The Garden Shed is finished.[^2]" in lead  # numbered as first cited
    assert "started" not in lead


def test_the_superseded_plan_stays_with_its_date(nights: tuple[Vault, list[NightReport]]) -> None:
    vault, _ = nights
    assert "As of March 2026, the Garden Shed is planned for April" in shed(vault)


def test_the_history_keeps_the_trace_in_date_order(
    nights: tuple[Vault, list[NightReport]],
) -> None:
    vault, _ = nights
    history = parse(shed(vault)).section("History")
    assert history is not None
    assert history.body.splitlines() == [
        "- March 2026: planned.[^1]",
        "- April 2026: in progress.[^3]",
        "- May 2026: finished.[^2]",
    ]


def test_every_conversation_is_cited(nights: tuple[Vault, list[NightReport]]) -> None:
    vault, _ = nights
    text = shed(vault)
    assert [f"(2026-0{m}-" in text for m in (3, 4, 5)] == [True] * 3


def test_the_vault_is_audit_clean(nights: tuple[Vault, list[NightReport]]) -> None:
    vault, _ = nights
    with Ledger(vault.ledger_path) as ledger:
        assert audit(vault, ledger).violations == []


def test_a_fourth_night_with_nothing_new_calls_nothing_and_commits_nothing(
    nights: tuple[Vault, list[NightReport]], tmp_path: Path
) -> None:
    vault, _ = nights
    copy = Vault.open(Path(shutil.copytree(vault.root, tmp_path / "vault")))
    head = _head(copy.root)
    settings = replace(Settings(vault=copy.root), model=f"scripted:{ANSWERS}")
    with App(copy, settings) as app:
        report = run_night(app)
    assert (report.model_calls, _head(copy.root)) == (0, head)


def _head(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
