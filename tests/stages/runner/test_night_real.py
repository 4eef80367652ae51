"""The tiny real model (SmolLM2-135M) through a whole night: it answers badly, and that
must cost nothing but the units it spoiled. The night completes, every unit is done or
failed with a one-line reason (never an internal error), the gates keep its garbage off
disk, and the vault audits clean.

It runs on this platform's default route: `gguf:` where a llama.cpp binding imports
(the `[llama]` extra on Linux x86-64), `mlx:` elsewhere.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.checks.audit import audit
from dreaming.config import Settings
from dreaming.ledger import Ledger, chunks, conversations, work
from dreaming.model.backends.gguf import engine_name
from dreaming.vault import Vault
from stages.runner.pipeline import STAGES, run_night
from tests.fixtures.model.support import TINY, tiny_cache
from tests.support import drop, raw_note
from watcher.app import App

__all__ = ["tiny_cache"]

pytestmark = pytest.mark.model

TALKS = {
    "bread.md": raw_note(
        ("user", "How do I keep Sourdough Bread fresh for a week?"),
        ("assistant", "Wrap it in a cotton cloth, or slice it and freeze it."),
        ("user", "And what about the `requests` library timing out in Python?"),
        ("assistant", "Pass a timeout to requests.get and retry with backoff."),
        title="Bread and timeouts",
        date="2026-01-02",
    ),
    "garden.md": raw_note(
        ("user", "When do I plant Tomato Seedlings outside?"),
        ("assistant", "After the last frost, when nights stay above ten degrees."),
        title="Garden",
        date="2026-01-03",
    ),
}
UNCHECKED = set() if "resolve" in {s.name for s in STAGES} else {"coverage"}
"""Checks a night cannot pass yet: without RESOLVE no subject gets a home."""


def tiny_spec() -> str:
    return f"gguf:{TINY}" if engine_name() is not None else f"mlx:{TINY}"


@pytest.mark.timeout(600)  # ~6 s on gguf and ~40 s on mlx when quiet; minutes on a busy CPU
def test_the_tiny_model_completes_a_night_and_the_vault_audits_clean(
    vault: Vault, tiny_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DREAMING_CACHE_DIR", str(tiny_cache))
    for name, text in TALKS.items():
        drop(vault, name, text)
    with App(vault, replace(Settings(vault=vault.root), model=tiny_spec())) as app:
        report = run_night(app)
    assert report.status == "ok"
    summary = report.summary()
    assert summary["model_calls"] > 0
    for stage in report.stages:
        for unit, why in stage.failures:
            assert "internal error" not in why, (stage.stage, unit, why)
            assert "\n" not in why
    with Ledger(vault.ledger_path) as ledger:
        convs = conversations.by_updated(ledger)
        assert len(convs) == len(TALKS)
        for conv in convs:
            item = work.get(ledger, "segment", conv.id)
            if item is None or item.status != "done":
                continue
            ranges = [
                (c.first_message, c.last_message) for c in chunks.of_conversation(ledger, conv.id)
            ]
            covered = [i for first, last in ranges for i in range(first, last + 1)]
            assert covered == list(range(conv.message_count)), (conv.id, ranges)
        violations = audit(vault, ledger).violations
    assert [v for v in violations if v.check not in UNCHECKED] == []
