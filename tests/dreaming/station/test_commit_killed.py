"""A commit killed at its worst moments: a real `dreaming station heat` process SIGKILLed
while it holds git's index lock, then a watcher started on the vault. The restart takes the
dead process's lock back, leaves the person's index as they left it, and commits what was
in flight: the person's edit as theirs, dreaming's heat as dreaming's."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dreaming.station import card
from dreaming.station.settle import article_stems
from dreaming.vault import Vault
from dreaming.vault.repo import PIPELINE_AUTHOR, VaultRepo
from tests.support import REPO
from tests.watch_support import wait_for, watched
from tests.watcher.test_station_typing import card_at, reheated
from watcher.heartbeat import read_heartbeat

ROOT = REPO

KILLS = {
    "lock:1": "the index lock just taken for the person's commit",
    "git:1": "the person's commit made, HEAD not yet moved",
    "ref:1": "HEAD moved to the person's commit, the index not yet",
    "index:1": "the index installed after the person's commit, its lock not yet removed",
    "git:2": "the heat on disk, its commit made, HEAD not yet moved",
    "ref:2": "HEAD moved to the heat, the index not yet",
}


HEAT = ("station", "heat", "--vault")


# Slow: processes killed mid-commit.
pytestmark = pytest.mark.slow


def killed_at(vault: Vault, point: str) -> subprocess.CompletedProcess[str]:
    """`dreaming station heat`, SIGKILLed at `point` (tests/rule_model.py's events)."""
    return subprocess.run(
        [sys.executable, "-m", "tests.rule_model", "--kill", point, "--", *HEAT, str(vault.root)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def git(vault: Vault, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=vault.root, capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.parametrize("point", sorted(KILLS))
def test_a_restarted_watcher_finishes_a_commit_killed_mid_way(vault: Vault, point: str) -> None:
    path = vault.root / card.CARD
    mine = path.read_bytes().replace(b"(none yet)", b"words in flight")
    path.write_bytes(mine)
    killed = killed_at(vault, point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    lock = vault.root / ".git" / "index.lock"
    assert lock.exists(), "killed while holding the lock"
    repo = VaultRepo(vault.root)
    with watched(vault, lock_grace=0.3) as w:
        wait_for(lambda: not lock.exists() and repo.dirty_paths() == [])
        assert not [r for r in w.said if r.problem], w.said
    assert git(vault, "diff", "--cached", "--name-only") == ""
    history = list(repo.repo.iter_commits("HEAD", paths=card.CARD))[::-1][1:]
    theirs = [card_at(c) for c in history if c.author.name != PIPELINE_AUTHOR.name]
    assert theirs == [mine], "the person's edit is committed as theirs, once"
    for commit in history:
        if commit.author.name == PIPELINE_AUTHOR.name:
            before = card_at(commit.parents[0])
            assert card_at(commit) == reheated(before, card_at(commit), article_stems(vault))


def test_a_watcher_killed_committing_a_save_commits_it_when_started_again(
    vault: Vault, tmp_path: Path
) -> None:
    path = vault.root / card.CARD
    watch = [sys.executable, "-m", "tests.rule_model", "--kill", "git:1", "--", "watch"]
    with (tmp_path / "watch.out").open("wb") as out:
        child = subprocess.Popen(
            [*watch, "--vault", str(vault.root)], stdout=out, stderr=out, cwd=ROOT
        )
    try:
        wait_for(lambda: (beat := read_heartbeat(vault)) is not None and beat.get("running"), 60)
        mine = path.read_bytes().replace(b"(none yet)", b"saved as the watcher died")
        path.write_bytes(mine)
        assert child.wait(60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    lock = vault.root / ".git" / "index.lock"
    assert lock.exists()
    repo = VaultRepo(vault.root)
    with watched(vault, lock_grace=0.3) as w:
        wait_for(lambda: not lock.exists() and repo.dirty_paths() == [])
        assert not [r for r in w.said if r.problem], w.said
    assert git(vault, "diff", "--cached", "--name-only") == ""
    history = list(repo.repo.iter_commits("HEAD", paths=card.CARD))[::-1][1:]
    assert [card_at(c) for c in history if c.author.name != PIPELINE_AUTHOR.name] == [mine]
