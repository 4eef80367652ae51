"""One watcher per vault: `.dreaming/watch.lock` (real processes, real flock)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from dreaming.vault import Vault
from tests.support import REPO
from watcher.instance import AlreadyWatching, instance_lock, watching_pid

ROOT = REPO

# Holds the watch lock; with "child" it first starts a long-lived child process, as a
# watcher does for a night, to show the child does not keep the lock.
HOLD = """
import subprocess, sys, time
from dreaming.vault import Vault
from watcher.instance import instance_lock
with instance_lock(Vault.open(sys.argv[1])):
    if sys.argv[2:] == ["child"]:
        kid = subprocess.Popen(["sleep", "60"], start_new_session=True)
        print(kid.pid, flush=True)
    print("held", flush=True)
    time.sleep(60)
"""


# Slow: real processes holding real locks.
pytestmark = pytest.mark.slow


@contextmanager
def holder(vault: Vault, *extra: str) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(vault.root), *extra],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while not lines or lines[-1] != "held":
            line = proc.stdout.readline()
            assert line, "the holder died before taking the lock"
            lines.append(line.strip())
        yield proc, lines
    finally:
        proc.kill()
        proc.communicate()


def test_a_second_watcher_is_refused_naming_the_first_s_pid(vault: Vault) -> None:
    with holder(vault) as (proc, _), pytest.raises(AlreadyWatching) as refused:  # noqa: SIM117
        with instance_lock(vault):
            pass
    assert f"a dreaming watcher (pid {proc.pid}) already watches this vault" in str(refused.value)
    assert str(vault.state / "watch.lock") in str(refused.value)


def test_watching_pid_names_the_holder_while_it_lives(vault: Vault) -> None:
    assert watching_pid(vault) is None
    with holder(vault) as (proc, _):
        assert watching_pid(vault) == proc.pid


def test_a_lock_left_by_a_killed_watcher_is_taken_over(vault: Vault) -> None:
    with holder(vault) as (proc, _):
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert (vault.state / "watch.lock").read_text().strip() == str(proc.pid)
        assert watching_pid(vault) is None
        with instance_lock(vault):
            assert watching_pid(vault) == os.getpid()
    assert watching_pid(vault) is None


def test_a_night_child_outliving_a_killed_watcher_does_not_keep_the_vault_watched(
    vault: Vault,
) -> None:
    with holder(vault, "child") as (proc, lines):
        kid = int(lines[0])
        try:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            os.kill(kid, 0)  # the child still runs
            with instance_lock(vault):
                pass
        finally:
            os.kill(kid, signal.SIGKILL)


def test_a_live_pid_left_in_the_file_by_a_killed_watcher_is_not_a_holder(vault: Vault) -> None:
    # After a kill -9 the file keeps the pid, which the system may give to another process.
    (vault.state / "watch.lock").write_text(f"{os.getpid()}\n")
    assert watching_pid(vault) is None
    with instance_lock(vault):
        assert watching_pid(vault) == os.getpid()
