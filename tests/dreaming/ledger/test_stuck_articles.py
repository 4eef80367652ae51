"""`stuck_articles`: an article no edit can pass the gate on is reported once for its bytes."""

from __future__ import annotations

from dreaming.ledger import Ledger, runs, stuck_articles
from dreaming.ledger.runs import Run
from dreaming.ledger.stuck_articles import Stuck

NOW = "2026-03-02T03:00:00+00:00"
WHY = "articles/Bread.md: dreaming cannot edit it ([^9] is cited but never defined)"


def night(ledger: Ledger, run_id: str) -> str:
    runs.put(ledger, Run(run_id, "night", NOW, None, "running"))
    return run_id


def test_an_article_is_noted_once_for_the_same_bytes(ledger: Ledger) -> None:
    first, second = night(ledger, "n1"), night(ledger, "n2")
    assert stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, first, NOW))
    assert not stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, second, NOW))
    assert stuck_articles.of_run(ledger, first) == [Stuck("Bread", "sha-a", WHY, first, NOW)]
    assert stuck_articles.of_run(ledger, second) == []


def test_an_article_edited_and_still_stuck_is_noted_again(ledger: Ledger) -> None:
    first, second = night(ledger, "n1"), night(ledger, "n2")
    stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, first, NOW))
    assert stuck_articles.note(ledger, Stuck("Bread", "sha-b", "another reason", second, NOW))
    assert stuck_articles.of_run(ledger, second) == [
        Stuck("Bread", "sha-b", "another reason", second, NOW)
    ]
    assert stuck_articles.of_run(ledger, first) == []


def test_an_article_fixed_is_forgotten_so_that_the_same_bytes_again_are_reported(
    ledger: Ledger,
) -> None:
    first, second = night(ledger, "n1"), night(ledger, "n2")
    stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, first, NOW))
    stuck_articles.clear(ledger, "Bread")
    assert stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, second, NOW))


def test_each_article_is_noted_on_its_own(ledger: Ledger) -> None:
    run = night(ledger, "n1")
    stuck_articles.note(ledger, Stuck("Bread", "sha-a", WHY, run, NOW))
    stuck_articles.note(ledger, Stuck("Butter", "sha-c", WHY, run, NOW))
    stuck_articles.clear(ledger, "Butter")
    assert [s.stem for s in stuck_articles.of_run(ledger, run)] == ["Bread"]
