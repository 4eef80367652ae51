"""The write journal: a file dreaming wrote but was killed before committing is dreaming's.

Before dreaming writes a file it will commit (a night's edit, `dreaming init`'s seeds),
the ledger journals the file and the SHA-256 of the bytes; the commit clears the entry.
Killed in between (kill -9, a power cut), the next night or watcher start commits those
bytes as dreaming's, never as the person's edit; bytes the person saved over ours since
are committed as theirs. The kills are real: `dreaming` child processes (tests/rule_model.py)
SIGKILLed at an event.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.config import Settings
from dreaming.errors import GitError
from dreaming.ledger import Ledger, runs, write_journal
from dreaming.ledger.write_journal import Entry
from dreaming.vault import OwnWrites, Vault, checksum
from dreaming.vault.repo import PIPELINE_AUTHOR, VaultRepo
from dreaming.vault.scaffold import init_vault
from dreaming.vault.unfinished import finish_interrupted
from stages.runner.pipeline import run_night
from stages.runner.write import Edit, Writer
from tests.stages.runner.test_crash_resume import TALKS
from tests.stages.runner.test_write import THING
from tests.support import REPO, drop
from tests.watch_support import wait_for, watched
from watcher.app import App

ROOT = REPO
RUN = "run1"
AT = "2026-12-01T03:00:00+00:00"


# Slow: processes killed mid-write.
pytestmark = pytest.mark.slow


def dreaming(options: tuple[str, ...], *args: str) -> subprocess.CompletedProcess[str]:
    """`dreaming ARGS` with the rule model; `options`: `--kill EVENT:N`, `--count FILE`."""
    return subprocess.run(
        [sys.executable, "-m", "tests.rule_model", *options, "--", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def night(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return dreaming(options, "synthesize", "--model", "rule:any", "--vault", str(root))


def _log(root: Path, rel: str, field: str) -> list[str]:
    """One `git log` field of each commit that changed `rel`, oldest first."""
    log = subprocess.run(
        ["git", "log", "--reverse", f"--format={field}", "--", rel],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return log.splitlines()


def authors(root: Path, rel: str) -> list[str]:
    """Who made each commit that changed `rel`, oldest first."""
    return _log(root, rel, "%an")


def subjects(root: Path, rel: str) -> list[str]:
    return _log(root, rel, "%s")


def at_head(root: Path, rel: str) -> bytes | None:
    """The bytes HEAD holds at `rel` (a git process each look: a poll opens no repository
    it would have to close)."""
    shown = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=root, capture_output=True)
    return shown.stdout if shown.returncode == 0 else None


def person(root: Path) -> str:
    return str(VaultRepo(root).person().name)


def killed_night(fresh: Path, tmp_path: Path, kill: str) -> Vault:
    """A copy of `fresh` after a night SIGKILLed at `kill`."""
    root = tmp_path / "vault"
    shutil.copytree(fresh, root)
    killed = night(root, "--kill", kill)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    return Vault.open(root)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new vault with three conversations in Raw/."""
    vault = init_vault(tmp_path_factory.mktemp("fresh") / "vault").vault
    for name, text in TALKS.items():
        drop(vault, name, text)
    return vault.root


@pytest.fixture(scope="module")
def writes(fresh: Path, tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many edits a whole night makes (the run report is the last)."""
    root = tmp_path_factory.mktemp("whole") / "vault"
    shutil.copytree(fresh, root)
    counts = root.parent / "counts.json"
    whole = night(root, "--count", str(counts))
    assert whole.returncode == 0, whole.stderr
    n: int = json.loads(counts.read_text())["write"]
    return n


def uncommitted_article(vault: Vault) -> str:
    """The one article the killed night wrote and never committed."""
    repo = VaultRepo(vault.root)
    dirty = [rel for rel in repo.dirty_paths([vault.articles]) if rel.endswith(".md")]
    assert len(dirty) == 1, dirty
    return dirty[0]


# The ledger's journal


def test_a_journaled_write_is_pending_until_cleared(ledger: Ledger) -> None:
    entry = Entry("articles/Thing.md", checksum(b"ours"), RUN, AT)
    write_journal.record(ledger, [entry])
    assert write_journal.pending(ledger) == [entry]
    write_journal.clear(ledger, ["articles/Thing.md"])
    assert write_journal.pending(ledger) == []


def test_clearing_a_runs_entries_leaves_another_runs(ledger: Ledger) -> None:
    mine = Entry("articles/Thing.md", checksum(b"ours"), RUN, AT)
    other = Entry("articles/Thing.md", checksum(b"theirs"), "init", AT)
    write_journal.record(ledger, [mine, other])
    write_journal.clear(ledger, ["articles/Thing.md"], run_id=RUN)
    assert write_journal.pending(ledger) == [other]


def test_an_init_leaves_nothing_in_the_journal(ledger: Ledger) -> None:
    assert write_journal.pending(ledger) == []


def test_a_journaled_file_that_is_gone_only_clears_its_entry(vault: Vault, ledger: Ledger) -> None:
    head = at_head(vault.root, "STATION.md")
    write_journal.record(ledger, [Entry("articles/Gone.md", checksum(b"ours"), RUN, AT)])
    assert finish_interrupted(vault, ledger) == {}
    assert write_journal.pending(ledger) == []
    assert at_head(vault.root, "STATION.md") == head


def test_a_journaled_file_holding_other_bytes_is_left_for_the_persons_commit(
    vault: Vault, ledger: Ledger
) -> None:
    path = vault.articles / "Thing.md"
    path.write_bytes(b"# Thing\n\nThe person's words.\n")
    write_journal.record(ledger, [Entry("articles/Thing.md", checksum(b"ours"), RUN, AT)])
    assert finish_interrupted(vault, ledger) == {}
    assert write_journal.pending(ledger) == []
    assert VaultRepo(vault.root).dirty_paths([path]) == ["articles/Thing.md"]


# The writer


@pytest.fixture
def writer(vault: Vault, ledger: Ledger) -> Writer:
    runs.put(ledger, runs.Run(RUN, "night", AT, None, "running"))
    return Writer(vault, ledger, OwnWrites(), RUN)


def test_a_write_is_journaled_with_the_bytes_that_reach_disk(
    vault: Vault, ledger: Ledger, writer: Writer
) -> None:
    assert writer.write(Edit("Thing", THING, None, stage="synthesize")).status == "written"
    data = (vault.articles / "Thing.md").read_bytes()
    [entry] = write_journal.pending(ledger)
    assert (entry.path, entry.sha256, entry.run_id) == ("articles/Thing.md", checksum(data), RUN)


def test_the_commit_that_carries_a_write_clears_its_entry(ledger: Ledger, writer: Writer) -> None:
    writer.write(Edit("Thing", THING, None, stage="synthesize"))
    assert writer.commit("create Thing") is not None
    assert write_journal.pending(ledger) == []


def test_a_write_whose_commit_failed_is_committed_as_dreamings_by_the_next_night(
    vault: Vault, ledger: Ledger, writer: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer.write(Edit("Thing", THING, None, stage="synthesize"))

    def refuse(*args: object, **kwargs: object) -> str:
        raise GitError("the disk went away")

    with monkeypatch.context() as m:
        m.setattr(VaultRepo, "commit_pipeline_blobs", refuse)
        with pytest.raises(GitError):
            writer.commit("create Thing")
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        run_night(app, stages=())
    assert authors(vault.root, "articles/Thing.md") == [PIPELINE_AUTHOR.name]
    assert subjects(vault.root, "articles/Thing.md") == [f"dreaming: finish interrupted run {RUN}"]
    assert write_journal.pending(ledger) == []


def test_a_night_does_not_start_while_git_cannot_finish_a_killed_runs_write(
    vault: Vault, ledger: Ledger, writer: Writer
) -> None:
    writer.write(Edit("Thing", THING, None, stage="synthesize"))
    (VaultRepo(vault.root).git_dir / "rebase-merge").mkdir()
    settings = replace(Settings(vault=vault.root), model="rule")
    with App(vault, settings) as app, pytest.raises(GitError, match="rebase is in progress"):
        run_night(app, stages=())
    assert [e.path for e in write_journal.pending(ledger)] == ["articles/Thing.md"]
    assert runs.last(ledger) == runs.get(ledger, RUN)


# Real kills


def test_a_night_killed_between_write_and_commit_is_dreamings_when_the_watcher_starts(
    fresh: Path, tmp_path: Path
) -> None:
    vault = killed_night(fresh, tmp_path, "write:1")
    rel = uncommitted_article(vault)
    ours = (vault.root / rel).read_bytes()
    with watched(vault) as w:
        wait_for(lambda: at_head(vault.root, rel) is not None)
        assert not [r for r in w.said if r.problem], w.said
    assert authors(vault.root, rel) == [PIPELINE_AUTHOR.name]
    assert at_head(vault.root, rel) == ours
    with Ledger(vault.ledger_path) as ledger:
        assert write_journal.pending(ledger) == []


def test_a_night_killed_after_writing_its_report_is_dreamings_in_the_next_night(
    fresh: Path, tmp_path: Path, writes: int
) -> None:
    vault = killed_night(fresh, tmp_path, f"write:{writes}")
    [page] = [rel for rel in VaultRepo(vault.root).dirty_paths() if rel.startswith("Log/")]
    killed_report = (vault.root / page).read_bytes()
    resumed = night(vault.root)
    assert resumed.returncode == 0, resumed.stderr
    assert authors(vault.root, page) == [PIPELINE_AUTHOR.name, PIPELINE_AUTHOR.name]
    repo = VaultRepo(vault.root)
    first = next(repo.repo.iter_commits("HEAD", paths=page, reverse=True))
    assert (first.tree / page).data_stream.read() == killed_report
    assert person(vault.root) not in authors(vault.root, page)


def test_a_night_killed_while_the_watcher_runs_is_dreamings_once_the_night_ends(
    fresh: Path, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    shutil.copytree(fresh, root)
    vault = Vault.open(root)
    with watched(vault) as w:
        w.night.set()
        killed = night(root, "--kill", "write:1")
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        rel = uncommitted_article(vault)
        w.night.clear()
        wait_for(lambda: at_head(root, rel) is not None)
    assert authors(root, rel) == [PIPELINE_AUTHOR.name]


def test_an_article_the_person_saved_over_after_the_kill_is_committed_as_theirs(
    fresh: Path, tmp_path: Path
) -> None:
    vault = killed_night(fresh, tmp_path, "write:1")
    rel = uncommitted_article(vault)
    path = vault.root / rel
    theirs = path.read_bytes() + b"\nA line the person added.\n"
    path.write_bytes(theirs)
    with watched(vault):
        wait_for(lambda: at_head(vault.root, rel) is not None)
    assert authors(vault.root, rel) == [person(vault.root)]
    assert at_head(vault.root, rel) == theirs == path.read_bytes()
    with Ledger(vault.ledger_path) as ledger:
        assert write_journal.pending(ledger) == []


def test_an_init_killed_before_its_commit_has_its_seeds_committed_as_dreamings(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    killed = dreaming(("--kill", "lock:1"), "init", str(root))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    seeds = init_vault(tmp_path / "reference").added
    vault = Vault.open(root)
    repo = VaultRepo(root)
    with watched(vault, lock_grace=0.3):
        wait_for(lambda: at_head(root, "STATION.md") is not None)
    assert repo.dirty_paths() == []
    for rel in seeds:
        assert authors(root, rel) == [PIPELINE_AUTHOR.name], rel
    assert subjects(root, "STATION.md") == ["dreaming: finish interrupted run init"]
