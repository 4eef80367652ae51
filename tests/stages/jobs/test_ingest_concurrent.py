"""Two ingests of one Raw/ at once: the ledger ends the same as after one, and each run
reports only what it did itself."""

from __future__ import annotations

import threading
import time

import pytest

import stages.jobs.ingest as ingest_job
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from stages.jobs.ingest import IngestReport, ingest
from tests.support import drop, raw_note

FILES = 6


@pytest.fixture
def lock_handed_over_between_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file is a batch of its own, and the write lock stays free for a moment
    after each commit: long enough for the other run, waiting on it, to take it."""
    monkeypatch.setattr(ingest_job, "BATCH_BYTES", 1)

    def pausing(self: Ledger) -> None:
        self.db.execute("COMMIT")
        time.sleep(0.3)
        self.db.execute("BEGIN IMMEDIATE")

    monkeypatch.setattr(Ledger, "commit_and_continue", pausing)


def both_at_once(vault: Vault) -> list[IngestReport]:
    reports: list[IngestReport] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with Ledger(vault.ledger_path) as ledger:
                reports.append(ingest(vault, ledger))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert len(reports) == 2
    return reports


@pytest.mark.usefixtures("lock_handed_over_between_batches")
def test_two_ingests_at_once_count_each_file_as_ingested_once(vault: Vault) -> None:
    for n in range(FILES):
        drop(vault, f"talk{n}.md", raw_note(("user", f"question {n}"), ("assistant", "answer")))
    first, second = both_at_once(vault)
    assert first.ingested + second.ingested == FILES
    assert first.conversations_new + second.conversations_new == FILES
    assert first.messages_added + second.messages_added == 2 * FILES
    assert first.ingested + first.unchanged == second.ingested + second.unchanged == FILES


@pytest.mark.usefixtures("lock_handed_over_between_batches")
def test_two_ingests_at_once_count_each_deleted_file_as_removed_once(vault: Vault) -> None:
    paths = [
        drop(vault, f"talk{n}.md", raw_note(("user", f"question {n}"), ("assistant", "answer")))
        for n in range(FILES)
    ]
    with Ledger(vault.ledger_path) as ledger:
        ingest(vault, ledger)
    for path in paths[: FILES // 2]:
        path.unlink()
    for n in range(FILES):
        drop(vault, f"new{n}.md", raw_note(("user", f"later {n}"), ("assistant", "answer")))
    first, second = both_at_once(vault)
    assert first.removed + second.removed == FILES // 2
