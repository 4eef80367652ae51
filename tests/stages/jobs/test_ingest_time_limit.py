"""A Raw file that takes too long to read is given up after the per-file limit, marked
failed with why, and the others go in; it waits for a change before it is read again."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.bench_read_memory import FORMATS
from dreaming.ledger import Ledger, raw_files
from dreaming.raw import read_transcript
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.support import drop, raw_note

MB = 1024 * 1024


def slow_file(vault: Vault) -> tuple[Path, float]:
    """A long chat log (first in Raw/'s order) and how long reading it whole takes."""
    path = vault.raw / "a-long-chat.md"
    with path.open("w", encoding="utf-8") as f:
        FORMATS["markdown"](f, 8 * MB)
    started = time.perf_counter()
    read_transcript(path)
    return path, time.perf_counter() - started


def talks(vault: Vault, n: int) -> None:
    for k in range(n):
        drop(vault, f"talk{k}.md", raw_note(("user", f"question {k}"), ("assistant", "answer")))


def test_a_file_read_past_its_limit_is_marked_failed_and_the_others_go_in(
    vault: Vault, ledger: Ledger
) -> None:
    _, whole = slow_file(vault)
    talks(vault, 3)
    started = time.perf_counter()
    report = ingest(vault, ledger, read_seconds=whole / 10)
    took = time.perf_counter() - started
    assert report.ingested == 3
    assert [rel for rel, _ in report.failed] == ["Raw/a-long-chat.md"]
    assert report.failed[0][1].startswith(f"reading it took over {whole / 10:g} s")
    row = raw_files.get(ledger, "Raw/a-long-chat.md")
    assert row is not None
    assert (row.status, row.reason) == ("failed", report.failed[0][1])
    assert took < whole / 2


def test_a_file_given_up_on_is_not_read_again_until_it_changes(
    vault: Vault, ledger: Ledger
) -> None:
    path, whole = slow_file(vault)
    ingest(vault, ledger, read_seconds=whole / 10)
    again = ingest(vault, ledger, read_seconds=whole / 10)
    assert (again.unchanged, again.failed) == (1, [])
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    changed = ingest(vault, ledger, read_seconds=whole * 100)
    assert (changed.ingested, changed.failed) == (1, [])
