"""A whole night on real corpus conversations, answered as the default model answered.

The answers were recorded from `gguf:qwen2.5-coder-1.5b` and kept as (stage, prompt
key, answer) only, no transcript text:

    python bench/night_model.py 'record:ANSWERS|gguf:qwen2.5-coder-1.5b'

then each line cut to stage, key, text and usage. Replay is exact, so a changed
prompt fails loudly here: record again. Skips without `../shared/corpus`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bench.night_model import CONVERSATIONS
from dreaming.article import parse
from dreaming.checks.audit import audit
from dreaming.config import Settings
from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest
from stages.runner.pipeline import run_night
from stages.runner.report import NightReport
from tests.support import FIXTURES, corpus_or_skip
from watcher.app import App

ANSWERS = FIXTURES / "night" / "qwen2.5-coder-1.5b.jsonl"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, NightReport]:
    corpus = corpus_or_skip()
    vault = init_vault(tmp_path_factory.mktemp("recorded") / "vault").vault
    with Ledger(vault.ledger_path) as ledger:
        ingest(vault, ledger, [corpus / name for name in CONVERSATIONS])
    settings = replace(Settings(vault=vault.root), model=f"scripted:{ANSWERS}")
    with App(vault, settings) as app:
        report = run_night(app)
    return vault.root, report


def article(root: Path, stem: str) -> str:
    return (root / "articles" / f"{stem}.md").read_text(encoding="utf-8")


def test_the_night_writes_articles_about_the_things_discussed(
    night: tuple[Path, NightReport],
) -> None:
    root, _ = night
    stems = {p.stem for p in (root / "articles").glob("*.md")}
    assert "WebSearch" in stems


def test_a_subject_whose_drafts_held_nothing_true_stays_captured(
    night: tuple[Path, NightReport],
) -> None:
    # Recorded, the model drafted "Claude Code is a tool for managing …" and "The
    # article provides a balanced opinion …": neither is in the excerpt, so no article.
    root, report = night
    assert not (root / "articles" / "Claude_Code.md").exists()
    assert "Claude Code" in report.captured


def test_the_vault_is_audit_clean(night: tuple[Path, NightReport]) -> None:
    root, _ = night
    vault = Vault.open(root)
    with Ledger(vault.ledger_path) as ledger:
        report = audit(vault, ledger)
    assert report.violations == []


def test_every_section_cites_the_conversation_it_came_from(
    night: tuple[Path, NightReport],
) -> None:
    root, _ = night
    text = article(root, "WebSearch")
    assert "`conv:256ba646`" in text
    body = [s for s in parse(text).sections if s.heading != "References"]
    assert body
    assert all("[^1]" in s.body for s in body)


def test_the_article_carries_the_command_the_conversation_gave(
    night: tuple[Path, NightReport],
) -> None:
    root, _ = night
    assert '--allowedTools "WebSearch"' in article(root, "WebSearch")


def test_a_subject_drafted_only_falsely_stays_captured(night: tuple[Path, NightReport]) -> None:
    # Recorded, the model called MDX "a markup language for creating interactive data
    # visualizations": the excerpt says nothing of the kind.
    root, report = night
    assert not (root / "articles" / "MDX.md").exists()
    assert "MDX" in report.captured


def test_no_sentence_keeps_a_frame_the_excerpt_never_gave(
    night: tuple[Path, NightReport],
) -> None:
    # Recorded, the model wrote "WebSearch is a feature in Claude Code CLI that allows
    # users to pre-approve it …": the excerpt never calls it a feature.
    root, _ = night
    assert "feature" not in article(root, "WebSearch")


def test_a_name_discussed_without_an_article_of_its_own_resolves_to_where_it_was_said(
    night: tuple[Path, NightReport],
) -> None:
    root, _ = night
    vault = Vault.open(root)
    with Ledger(vault.ledger_path) as ledger:
        answer = Reader(vault, ledger).resolve("Haiku")
    assert "conv:256ba646" in answer.text
    assert answer.data["stem"] == "WebSearch"  # the one article citing that conversation


def test_a_name_generic_in_any_wiki_is_no_article(night: tuple[Path, NightReport]) -> None:
    root, _ = night
    assert not (root / "articles" / "URLs.md").exists()


def test_no_unit_fails_for_want_of_a_recorded_answer(night: tuple[Path, NightReport]) -> None:
    _, report = night
    reasons = [why for s in report.stages for _, why in s.failures]
    assert not [r for r in reasons if "no scripted answer" in r]
