"""When nights run: the real APScheduler a few seconds ahead, catch-up, run-now requests
(a fake night stands in for the child process)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from dreaming.config import load_settings
from dreaming.errors import ConfigError
from dreaming.vault import Vault
from watcher.control import request_night, wait_result
from watcher.night import NightRequest, NightResult
from watcher.scheduler import SCHEDULE_FILE, NightScheduler

# Slow: the real scheduler, seconds ahead.
pytestmark = pytest.mark.slow


class FakeNight:
    """Records each night; takes `seconds`; counts how many ran at once."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.ran: list[NightRequest] = []
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, request: NightRequest) -> NightResult:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.seconds)
        with self._lock:
            self.running -= 1
            self.ran.append(request)
        return NightResult("ok", f"night {len(self.ran)}", f"run{len(self.ran)}", 0)


def far_away() -> str:
    """A schedule that cannot fire during a test: 12 hours from now."""
    return (datetime.now() + timedelta(hours=12)).strftime("%H:%M:%S")


@pytest.fixture
def started() -> Iterator[list[NightScheduler]]:
    made: list[NightScheduler] = []
    yield made
    for s in made:
        s.stop(wait=10)


def start(made: list[NightScheduler], vault: Vault, schedule: str, night: FakeNight) -> None:
    s = NightScheduler(vault, schedule, night, poll=0.1)
    made.append(s)
    s.start()


def wait_for(check: object, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def schedule_state(vault: Vault) -> dict[str, str]:
    state: dict[str, str] = json.loads((vault.state / SCHEDULE_FILE).read_text())
    return state


def test_the_schedule_a_few_seconds_ahead_fires_the_night_once(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight()
    at = (datetime.now() + timedelta(seconds=3)).replace(microsecond=0)
    start(started, vault, at.strftime("%H:%M:%S"), night)
    wait_for(lambda: night.ran)
    time.sleep(1.5)
    assert [r.reason for r in night.ran] == ["scheduled"]
    assert datetime.fromisoformat(schedule_state(vault)["last_started"]) >= at.astimezone()


def test_a_new_install_records_a_baseline_and_catches_nothing_up(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight()
    start(started, vault, "00:00:01", night)
    time.sleep(1.0)
    assert night.ran == []
    assert set(schedule_state(vault)) == {"baseline"}


def test_a_missed_night_is_caught_up_exactly_once_and_not_again_at_the_next_start(
    vault: Vault, started: list[NightScheduler]
) -> None:
    two_days_ago = (datetime.now() - timedelta(days=2)).astimezone().isoformat()
    (vault.state / SCHEDULE_FILE).write_text(json.dumps({"last_started": two_days_ago}))
    night = FakeNight()
    start(started, vault, far_away(), night)
    wait_for(lambda: night.ran)
    time.sleep(1.0)
    assert [r.reason for r in night.ran] == ["catch-up"]
    assert schedule_state(vault)["last_status"] == "ok"
    started.pop().stop(wait=10)
    again = FakeNight()
    start(started, vault, far_away(), again)
    time.sleep(1.5)
    assert again.ran == []


def test_no_catch_up_when_the_last_night_started_after_the_last_scheduled_time(
    vault: Vault, started: list[NightScheduler]
) -> None:
    recent = (datetime.now() - timedelta(minutes=1)).astimezone().isoformat()
    (vault.state / SCHEDULE_FILE).write_text(json.dumps({"last_started": recent}))
    night = FakeNight()
    start(started, vault, far_away(), night)
    time.sleep(1.0)
    assert night.ran == []


def test_a_run_now_request_is_honoured_once_with_its_options(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight()
    start(started, vault, far_away(), night)
    rid = request_night(vault, NightRequest("requested", stage="segment", limit=2, model="m"))
    result = wait_result(vault, rid, alive=lambda: True, poll=0.05)
    assert result == NightResult("ok", "night 1", "run1", 0)
    time.sleep(0.5)
    assert night.ran == [NightRequest("requested", "segment", 2, "m")]
    assert list((vault.state / "control").iterdir()) == []


def test_requests_and_the_schedule_never_run_two_nights_at_once(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight(seconds=0.4)
    at = datetime.now() + timedelta(seconds=2)
    start(started, vault, at.strftime("%H:%M:%S"), night)
    ids = [request_night(vault, NightRequest("requested")) for _ in range(2)]
    for rid in ids:
        wait_result(vault, rid, alive=lambda: True, poll=0.05)
    wait_for(lambda: len(night.ran) == 3)
    assert night.most == 1


def test_an_unreadable_request_is_answered_failed_and_not_run(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight()
    start(started, vault, far_away(), night)
    (vault.state / "control").mkdir(exist_ok=True)
    (vault.state / "control" / "bad.request.json").write_text('{"limit": -1}')
    result = wait_result(vault, "bad", alive=lambda: True, poll=0.05)
    assert result.status == "failed"
    assert night.ran == []


@pytest.mark.timeout(20)
def test_a_named_pipe_as_a_request_is_answered_failed_and_not_waited_on(
    vault: Vault, started: list[NightScheduler]
) -> None:
    night = FakeNight()
    start(started, vault, far_away(), night)
    (vault.state / "control").mkdir(exist_ok=True)
    os.mkfifo(vault.state / "control" / "pipe.request.json")
    result = wait_result(vault, "pipe", alive=lambda: True, poll=0.05)
    assert result.status == "failed"
    assert night.ran == []


def test_a_request_to_a_watcher_that_stopped_is_an_error_not_a_hang(vault: Vault) -> None:
    from dreaming.errors import DreamingError

    rid = request_night(vault, NightRequest("requested"))
    with pytest.raises(DreamingError, match="the watcher stopped before it answered"):
        wait_result(vault, rid, alive=lambda: False)
    assert list((vault.state / "control").iterdir()) == []


@pytest.mark.parametrize(("given", "kept"), [("3:05", "03:05"), ("23:59:30", "23:59:30")])
def test_the_schedule_is_hh_mm_or_hh_mm_ss(vault: Vault, given: str, kept: str) -> None:
    assert load_settings(vault.root, schedule=given).schedule == kept


@pytest.mark.parametrize("given", ["24:00", "12:60", "12:00:60", "1:2:3:4", "noon"])
def test_a_schedule_that_is_no_time_is_refused(vault: Vault, given: str) -> None:
    with pytest.raises(ConfigError, match="schedule"):
        load_settings(vault.root, schedule=given)


def test_a_scheduled_night_that_did_not_run_is_still_owed(
    vault: Vault, started: list[NightScheduler]
) -> None:
    two_days_ago = (datetime.now() - timedelta(days=2)).astimezone().isoformat()
    (vault.state / SCHEDULE_FILE).write_text(json.dumps({"last_started": two_days_ago}))
    skipped: list[NightRequest] = []

    def night(request: NightRequest) -> NightResult:
        skipped.append(request)
        return NightResult("skipped", "not run: the watcher stopped while it waited")

    s = NightScheduler(vault, far_away(), night, poll=0.1)
    started.append(s)
    s.start()
    wait_for(lambda: skipped)
    time.sleep(0.5)
    assert schedule_state(vault) == {"last_started": two_days_ago}
