"""A night killed (SIGKILL) anywhere and started again ends where an uninterrupted one does.

Each trial copies one fresh vault, runs `dreaming synthesize` in a child process
(tests/rule_model.py: the real CLI and stages, a model answering by rule) that is
killed at a seeded random point: a model call, an edit reaching disk, a commit,
a unit about to be recorded done, a ledger transaction about to commit. A second
run resumes it. The resumed vault must audit clean, hold the same articles and the
same ledger content as a night that was never interrupted, have made no commit
twice, and leave git as that night does: nothing of ours uncommitted, no lock held.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.checks.audit import audit
from dreaming.config import Settings
from dreaming.ledger import Ledger, runs
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from dreaming.vault.writes import durable_temp, is_write_temp
from stages.runner.pipeline import STAGES, run_night
from tests.support import REPO, drop, raw_note
from watcher.app import App

ROOT = REPO
TRIALS = 20
SEED = 8

TALKS = {
    "bread.md": raw_note(
        ("user", "How do I keep Sourdough Bread fresh for a week?"),
        ("assistant", "Wrap it in a cotton cloth, or slice it and freeze it."),
        ("user", "Does the Bread Box from the kitchen shop help with Sourdough Bread?"),
        ("assistant", "A bread box keeps the crust crisp for two or three days."),
        title="Bread",
        date="2026-01-02",
    ),
    "requests.md": raw_note(
        ("user", "The `requests` library times out in Python. What should I do?"),
        ("assistant", "Pass a timeout to requests.get and retry with backoff."),
        ("user", "Should I switch to `httpx` for the Example Service client?"),
        ("assistant", "httpx has the same timeouts and adds async; requests is fine here."),
        title="Timeouts",
        date="2026-01-03",
    ),
    "garden.md": raw_note(
        ("user", "When do I plant Tomato Seedlings outside?"),
        ("assistant", "After the last frost, when nights stay above ten degrees."),
        title="Garden",
        date="2026-01-04",
    ),
}

VOLATILE = ("_at", "first_seen", "mtime_ns")
"""Columns that say when, not what: equal content at another time (a file's mtime,
which the navigation index keeps to know it unchanged, differs between vaults)."""
RUN_COLUMNS = ("run_id", "synthesized_run")
"""Columns naming a run: compared as set or not (the runs differ between vaults)."""
BOOKKEEPING = {
    "runs",
    "model_calls",
    "work",
    "unit_policy",
    "gate_rejections",
    "watermarks",
    "raw_files",
}
"""How the nights went, not what they made (work's attempts count the crash; a unit
whose output was stored before the kill is no unit any more, so neither `work` nor
`unit_policy` gets its row)."""


NIGHT = ("synthesize", "--model", "rule:any", "--vault")


# Slow: nights killed in child processes.
pytestmark = pytest.mark.slow


def child(vault: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return run_child(vault, *options, args=NIGHT)


def run_child(
    vault: Path, *options: str, args: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    """`dreaming ARGS… VAULT` in a child process on the rule model (tests/rule_model.py)."""
    return subprocess.run(
        [sys.executable, "-m", "tests.rule_model", *options, "--", *args, str(vault)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def contents(vault: Path) -> dict[str, object]:
    """The articles' bytes and every content table of the ledger, times and run ids masked."""
    found: dict[str, object] = {
        str(p.relative_to(vault)): p.read_bytes() for p in sorted((vault / "articles").glob("*.md"))
    }
    db = sqlite3.connect(f"file:{Vault.open(vault).ledger_path}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if name not in BOOKKEEPING and not name.startswith("sqlite_")
        ]
        for table in tables:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            kept = [
                f"{c} IS NOT NULL" if c in RUN_COLUMNS else c
                for c in columns
                if not c.endswith(VOLATILE)
            ]
            rows = db.execute(f"SELECT {', '.join(kept)} FROM {table}").fetchall()
            found[table] = sorted(rows, key=repr)
    finally:
        db.close()
    return found


def pipeline_commits(vault: Path) -> list[str]:
    """The articles each of dreaming's commits changed, one entry a commit and file (run
    reports left out), and `person: SUBJECT` for any commit not dreaming's.

    A file a killed run wrote but never committed is committed by the next start, as
    dreaming's (`dreaming: finish interrupted run`), or by the next run's unit that makes
    the same edit: either way once, and never as the person's."""
    log = subprocess.run(
        ["git", "log", "--format=%x1e%an%x00%s", "--name-only"],
        cwd=vault,
        capture_output=True,
        text=True,
    ).stdout
    made = []
    for entry in log.split("\x1e")[1:]:
        head, _, names = entry.partition("\n")
        author, _, subject = head.partition("\x00")
        if author != "dreaming":
            made.append(f"person: {subject}")
            continue
        made += [name for name in names.split() if name.startswith("articles/")]
    return sorted(made)


UNCHECKED = set() if "resolve" in {s.name for s in STAGES} else {"coverage"}
"""Checks a night cannot pass yet: without RESOLVE no subject gets a home."""


def git_state(vault: Path) -> tuple[bool, str]:
    """Whether git's index lock is held, and what `git status` shows."""
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=vault, capture_output=True, text=True
    ).stdout
    return (vault / ".git" / "index.lock").exists(), status


def audit_clean(vault: Path) -> list[str]:
    """`dreaming audit`'s violations, less the checks the stages of this tree cannot meet."""
    with Ledger(Vault.open(vault).ledger_path) as ledger:
        report = audit(Vault.open(vault), ledger)
    return [
        f"{v.file}: {v.check}: {v.detail}" for v in report.violations if v.check not in UNCHECKED
    ]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new vault with three conversations in Raw/, not yet ingested."""
    vault = init_vault(tmp_path_factory.mktemp("fresh") / "vault").vault
    for name, text in TALKS.items():
        drop(vault, name, text)
    return vault.root


@pytest.fixture(scope="module")
def uninterrupted(fresh: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of the fresh vault after one whole night, and how often each event happened."""
    vault = tmp_path_factory.mktemp("whole") / "vault"
    shutil.copytree(fresh, vault)
    counts = vault.parent / "counts.json"
    done = child(vault, "--count", str(counts))
    assert done.returncode == 0, done.stderr
    return vault, counts


def kill_points(counts: Path, trials: int, seed: int) -> list[tuple[str, int]]:
    """`trials` (event, n) pairs: every kind of event the night had, then seeded draws."""
    seen = {event: n for event, n in json.loads(counts.read_text()).items() if n > 0}
    rng = random.Random(seed)
    points = [(event, rng.randint(1, n)) for event, n in sorted(seen.items())]
    while len(points) < trials:
        event = rng.choice(sorted(seen))
        points.append((event, rng.randint(1, seen[event])))
    return points[:trials]


def test_the_uninterrupted_night_made_chunks_and_subjects(
    uninterrupted: tuple[Path, Path],
) -> None:
    vault, counts = uninterrupted
    made = contents(vault)
    assert made["chunks"]
    assert made["subjects"]
    assert json.loads(counts.read_text())["call"] > 0
    assert audit_clean(vault) == []


@pytest.mark.timeout(600)  # 40 child processes: ~15 s on a quiet machine, far more on a busy one
def test_a_night_killed_anywhere_resumes_to_the_uninterrupted_result(
    fresh: Path, uninterrupted: tuple[Path, Path], tmp_path: Path
) -> None:
    whole, counts = uninterrupted
    expected, expected_commits = contents(whole), pipeline_commits(whole)
    expected_git = git_state(whole)
    for trial, (event, n) in enumerate(kill_points(counts, TRIALS, SEED)):
        vault = tmp_path / f"trial-{trial}"
        shutil.copytree(fresh, vault)
        killed = child(vault, "--kill", f"{event}:{n}")
        assert killed.returncode == -signal.SIGKILL, (event, n, killed.stderr)
        resumed = child(vault)
        assert resumed.returncode == 0, (event, n, resumed.stderr)
        assert audit_clean(vault) == [], (event, n)
        assert contents(vault) == expected, (event, n)
        assert pipeline_commits(vault) == expected_commits, (event, n)
        assert git_state(vault) == expected_git, (event, n)


@pytest.mark.parametrize(
    ("name", "ours"),
    [
        (".Thing.md.k3_9zq1a.tmp", True),
        (".2026-12-01.md.abcdefgh.tmp", True),
        (".Thing.md.tmp", False),
        ("Thing.md.k3_9zq1a.tmp", False),
        (".Thing.txt.k3_9zq1a.tmp", False),
        (".Thing.md.K3-9ZQ1A.tmp", False),
        (".Thing.md.k3_9zq1ab.tmp", False),
        (".notes.tmp", False),
    ],
)
def test_only_the_temp_files_of_atomic_writes_count_as_ours(name: str, ours: bool) -> None:
    assert is_write_temp(name) is ours


def test_a_night_removes_the_temp_file_a_killed_write_left_and_nothing_else(
    vault: Vault,
) -> None:
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n", encoding="utf-8")
    killed = durable_temp(vault.articles, b"# Thing, half written\n", prefix=".Thing.md.")
    persons = vault.articles / ".my-draft.tmp"
    persons.write_text("mine\n", encoding="utf-8")
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        run_night(app, stages=())
    assert not killed.exists()
    assert persons.exists()
    assert page.read_text(encoding="utf-8") == "# Thing\n"


def test_a_night_after_a_killed_one_reports_and_commits_what_the_killed_one_left(
    vault: Vault,
) -> None:
    with Ledger(vault.ledger_path) as ledger, ledger.transaction():
        runs.put(ledger, runs.Run("killed", "night", "2026-12-01T02:00:00+00:00", None, "running"))
    left = vault.root / "Log" / "2026-12-01.md"
    left.write_text("# Dreaming 2026-12-01\n\n## Run killed at 02:00:00 UTC\n", encoding="utf-8")
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        report = run_night(app, stages=(), now=lambda: "2026-12-01T03:00:00+00:00")
    assert report.interrupted == 1
    assert report.report == "Log/2026-12-01.md"
    text = left.read_text(encoding="utf-8")
    assert "## Run killed at 02:00:00 UTC" in text
    assert "Resumed after 1 interrupted run(s)." in text
    assert git_state(vault.root) == (False, "")
