"""The heartbeat `.dreaming/watch.json`: what `dreaming status` says of the watcher."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from dreaming.vault import Vault
from watcher.heartbeat import Heartbeat, read_heartbeat
from watcher.instance import instance_lock
from watcher.watch import Reaction

# Slow: a real watcher's heartbeat.
pytestmark = pytest.mark.slow


def test_no_heartbeat_when_no_watcher_ever_ran(vault: Vault) -> None:
    assert read_heartbeat(vault) is None


def test_running_while_the_writer_holds_the_watch_lock_and_stopped_after(vault: Vault) -> None:
    with instance_lock(vault):
        beat = Heartbeat(vault)
        doc = read_heartbeat(vault)
        assert doc is not None
        assert doc["running"] is True
        assert doc["pid"] == os.getpid()
        assert doc["state"] == "watching"
        beat.stopped()
    after = read_heartbeat(vault)
    assert after is not None
    assert after["running"] is False
    assert after["state"] == "stopped"


def test_a_watcher_that_died_without_saying_so_reads_stopped(vault: Vault) -> None:
    with instance_lock(vault):
        Heartbeat(vault)
    doc = read_heartbeat(vault)
    assert doc is not None
    assert (doc["running"], doc["state"]) == (False, "stopped")


def test_a_policy_problem_stays_until_a_good_edit_of_that_page(vault: Vault) -> None:
    beat = Heartbeat(vault)
    beat.reaction(Reaction("meta", "Meta/Chunking.md", "no frontmatter", problem=True))
    beat.reaction(Reaction("meta", "Meta/Buckets.md", "missing section", problem=True))
    beat.reaction(Reaction("meta", "Meta/Chunking.md", "policy reloaded"))
    doc = json.loads((vault.state / "watch.json").read_text())
    assert doc["policy_problems"] == [{"path": "Meta/Buckets.md", "problem": "missing section"}]
    assert doc["last_event"]["path"] == "Meta/Chunking.md"
    assert doc["last_event"]["problem"] is False


def test_the_last_event_and_pending_raw_are_recorded(vault: Vault) -> None:
    beat = Heartbeat(vault)
    beat.reaction(Reaction("raw", "Raw/a.md", "still being copied"), pending_raw=1)
    doc = json.loads((vault.state / "watch.json").read_text())
    assert doc["pending_raw"] == 1
    assert doc["last_event"]["outcome"] == "still being copied"


def test_the_last_night_survives_a_restart(vault: Vault) -> None:
    beat = Heartbeat(vault)
    beat.next_night(datetime(2030, 1, 2, 3, 0, tzinfo=UTC))
    beat.night_started()
    assert json.loads((vault.state / "watch.json").read_text())["state"] == "night"
    beat.night_finished("ok", "run abc ok: 3 units done")
    again = Heartbeat(vault).doc["last_night"]
    assert again is not None
    assert again["status"] == "ok"
    assert again["summary"] == "run abc ok: 3 units done"
    assert again["started"] is not None


@pytest.mark.timeout(10)
def test_a_named_pipe_for_the_heartbeat_reads_as_none_at_once(vault: Vault) -> None:
    os.mkfifo(vault.state / "watch.json")
    assert read_heartbeat(vault) is None
