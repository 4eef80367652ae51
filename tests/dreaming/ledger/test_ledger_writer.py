"""A writer that must wait for the ledger says whom it waits for, for how long, while it
waits, and when it gives up; a dead writer's lock is taken over and said."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import dreaming.ledger.writer as writer
from dreaming.errors import LedgerUnavailable
from dreaming.ledger import Ledger, watermarks

NOW = "2026-01-01T00:00:00+00:00"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    made = tmp_path / "ledger.sqlite"
    Ledger(made).close()
    return made


@pytest.fixture
def holding(path: Path) -> Iterator[Ledger]:
    """`dreaming ingest` in the middle of a write transaction."""
    with Ledger(path, command="dreaming ingest") as held, held.transaction():
        watermarks.put(held, "held", "1", NOW)
        yield held


def waiting_writer(path: Path, heard: list[str], patience: float) -> Ledger:
    return Ledger(path, command="dreaming status", notice=heard.append, patience=patience)


def test_a_waiting_writer_says_at_once_who_holds_the_ledger_and_for_how_long_it_waits(
    path: Path, holding: Ledger
) -> None:
    heard: list[str] = []
    times: list[float] = []
    started = time.monotonic()

    def note(line: str) -> None:
        times.append(time.monotonic() - started)
        heard.append(line)

    with (
        Ledger(path, notice=note, patience=1.5) as waiting,
        pytest.raises(LedgerUnavailable),
        waiting.transaction(),
    ):
        pass
    assert times[0] < 0.5
    assert heard[0].startswith(f"{path}: waiting up to 1.5 s for the ledger: pid {os.getpid()} ")
    assert "(dreaming ingest, writing since " in heard[0]
    assert "\n" not in heard[0]


def test_a_writer_that_gives_up_names_the_holder_and_what_to_do(
    path: Path, holding: Ledger
) -> None:
    heard: list[str] = []
    with (
        waiting_writer(path, heard, 0.3) as waiting,
        pytest.raises(LedgerUnavailable) as refused,
        waiting.transaction(),
    ):
        pass
    said = str(refused.value)
    assert said.startswith(f"{path}: gave up after 0 s waiting for pid {os.getpid()} ")
    assert "(dreaming ingest, writing since " in said
    assert said.endswith(
        f"which is still writing the ledger; wait for it to finish "
        f"(or stop it: kill {os.getpid()}), then retry"
    )
    assert "\n" not in said


def test_a_long_wait_is_said_again_every_so_often(
    path: Path, holding: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "_PROGRESS_EVERY_S", 0.2)
    heard: list[str] = []
    with (
        waiting_writer(path, heard, 1.0) as waiting,
        pytest.raises(LedgerUnavailable),
        waiting.transaction(),
    ):
        pass
    still = [line for line in heard if "still waiting for the ledger (" in line]
    assert 2 <= len(still) <= 5
    assert all("of 1 s): pid " in line for line in still)


def test_a_write_outside_a_transaction_waits_and_says_so_too(path: Path, holding: Ledger) -> None:
    heard: list[str] = []
    with waiting_writer(path, heard, 0.3) as waiting, pytest.raises(LedgerUnavailable):
        watermarks.put(waiting, "alone", "1", NOW)
    assert "(dreaming ingest, writing since " in heard[0]


def test_a_waiting_writer_goes_on_once_the_holder_commits(path: Path) -> None:
    heard: list[str] = []
    taken = threading.Event()

    def hold_briefly() -> None:
        with Ledger(path, command="dreaming ingest") as held, held.transaction():
            watermarks.put(held, "first", "1", NOW)
            taken.set()
            time.sleep(0.4)

    holder = threading.Thread(target=hold_briefly)
    holder.start()
    assert taken.wait(10)
    with waiting_writer(path, heard, 10) as waiting, waiting.transaction():
        watermarks.put(waiting, "second", "2", NOW)
    holder.join(10)
    assert len(heard) == 1
    with Ledger(path) as check:
        assert watermarks.get(check, "first") == "1"
        assert watermarks.get(check, "second") == "2"


def test_a_finished_writer_leaves_no_holder_behind(path: Path) -> None:
    with Ledger(path, command="dreaming ingest") as done, done.transaction():
        watermarks.put(done, "k", "v", NOW)
    heard: list[str] = []
    with waiting_writer(path, heard, 1) as after, after.transaction():
        watermarks.put(after, "k", "w", NOW)
    assert heard == []
    assert writer.current_holder(path) is None


HOLD_AND_HANG = """
import sys, time
from pathlib import Path
from dreaming.ledger import Ledger, watermarks
ledger = Ledger(Path(sys.argv[1]), command="dreaming ingest")
ledger.db.execute("BEGIN IMMEDIATE")
watermarks.put(ledger, "unfinished", "1", "2026-01-01T00:00:00+00:00")
print("held", flush=True)
time.sleep(60)
"""


def test_a_dead_writers_lock_is_taken_over_and_said(path: Path) -> None:
    dead = subprocess.Popen(
        [sys.executable, "-c", HOLD_AND_HANG, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert dead.stdout is not None
    assert dead.stdout.readline() == "held\n"
    dead.send_signal(signal.SIGKILL)
    dead.communicate()
    heard: list[str] = []
    with waiting_writer(path, heard, 1) as after, after.transaction():
        watermarks.put(after, "after", "1", NOW)
    assert len(heard) == 1
    assert heard[0].startswith(
        f"{path}: took over the ledger's write lock from pid {dead.pid} (dreaming ingest, "
    )
    assert heard[0].endswith(
        "which ended without letting go of it; SQLite rolled back what it left unfinished"
    )
    with Ledger(path) as check:
        assert watermarks.get(check, "unfinished") is None
        assert watermarks.get(check, "after") == "1"
