"""A whole night with the real stages, a model answering by rule: the wiring end to end."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from dreaming.checks.status import status
from dreaming.config import Settings
from dreaming.ledger import Ledger, article_index, chunks, conversations, subjects
from dreaming.vault import Vault
from stages.runner.pipeline import run_night
from tests.rule_model import RuleModel
from tests.support import drop, raw_note
from watcher.app import App

TALK = raw_note(
    ("user", "How do I keep Sourdough Bread fresh for a week?"),
    ("assistant", "Wrap it in a cotton cloth, or slice it and freeze it."),
    ("user", "And what about the `requests` library timing out in Python?"),
    ("assistant", "Pass a timeout to requests.get and retry with backoff."),
)


def night(vault: Vault) -> int:
    """One night through the app context; the number of commits it made."""
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        report = run_night(app)
        return int(report.summary()["commits"])


def test_a_night_turns_a_new_conversation_into_a_cited_article_and_reports_it(
    vault: Vault, model: RuleModel
) -> None:
    drop(vault, "talk.md", TALK)
    assert night(vault) == 2  # the article, then the report
    with Ledger(vault.ledger_path) as db:
        (conv,) = conversations.by_updated(db)
        found = chunks.of_conversation(db, conv.id)
        names = {s.name for s in subjects.every(db)}
        cite = conversations.citation(db, conv.id)
    assert [(c.first_message, c.last_message) for c in found] == [(0, 3)]
    assert {"sourdough bread", "requests"} <= names
    log = subprocess.run(
        ["git", "log", "-1", "--format=%B"], cwd=vault.root, capture_output=True, text=True
    ).stdout
    assert "Dreaming-Run:" in log
    article = (vault.root / "articles" / "Sourdough_Bread.md").read_text(encoding="utf-8")
    assert cite is not None
    assert f"`conv:{cite.hash8}`" in article
    assert model.calls > 0


def test_a_night_that_wrote_articles_reports_the_wiki_s_gold_free_scorecard(
    vault: Vault, model: RuleModel
) -> None:
    drop(vault, "talk.md", TALK)
    night(vault)
    text = "".join(p.read_text(encoding="utf-8") for p in (vault.root / "Log").glob("*.md"))
    assert "### The wiki now" in text
    assert "unsupported sentences 0/" in text


def test_a_second_night_with_nothing_new_calls_no_model_and_commits_nothing(
    vault: Vault, model: RuleModel
) -> None:
    drop(vault, "talk.md", TALK)
    night(vault)
    calls = model.calls
    assert night(vault) == 0
    assert model.calls == calls


def test_a_broken_meta_page_is_reported_and_the_night_still_runs(
    vault: Vault, model: RuleModel
) -> None:
    drop(vault, "talk.md", TALK)
    (vault.meta / "Chunking.md").write_bytes(b"\xff\xfe broken")
    assert night(vault) == 2
    log = next(vault.log.glob("2*.md")).read_text(encoding="utf-8")
    assert "> [!warning] Needs your attention\n> - Meta/Chunking.md: not UTF-8 text" in log
    assert (vault.root / "articles" / "Sourdough_Bread.md").is_file()


def test_a_night_s_new_articles_are_indexed_for_status_and_the_next_night(
    vault: Vault, model: RuleModel
) -> None:
    drop(vault, "talk.md", TALK)
    night(vault)
    with Ledger(vault.ledger_path) as db:
        assert status(db)["articles"] == 1
        assert ("sourdough bread", "Sourdough Bread") in article_index.alias_titles(db)


def test_a_night_whose_model_cannot_load_stops_at_once_failed_and_says_the_fix(
    vault: Vault, tmp_path: Path
) -> None:
    drop(vault, "talk.md", TALK)
    missing = tmp_path / "nowhere.gguf"
    with App(vault, replace(Settings(vault=vault.root), model=f"gguf:{missing}")) as app:
        report = run_night(app)
        failed_units = app.ledger.db.execute(
            "SELECT count(*) FROM work WHERE status = 'failed'"
        ).fetchone()[0]
    assert report.status == "failed"
    assert report.model_unavailable is not None
    assert "no such preset" in report.model_unavailable
    assert failed_units == 0
    assert sum(s.failed for s in report.stages) == 0
    assert len(report.stages) == 1
