"""`dreaming import` as a person runs it: real processes, real signals, real exit codes.
A dry run writes nothing; an import killed at random points and resumed lands every file
exactly once and never half; two at once, the second refuses."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from dreaming.ledger import Ledger, conversations, imports, raw_files
from dreaming.vault import Vault
from dreaming.vault.lock import import_lock
from tests.import_support import (
    chatgpt_conversation,
    chatgpt_zip,
    claude_projects,
    dreaming,
    slow_import,
)
from tests.import_support import raw_files as raw_tree
from tests.support import corpus_or_skip
from watcher.instance import instance_lock

MAY_2025 = 1_746_100_000.0


# Slow: `dreaming import` in child processes, real signals.
pytestmark = pytest.mark.slow


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under `root`: its checksum and mtime. SQLite's own shared-memory files,
    which even a read-only reader of a WAL database makes, are not the vault's."""
    return {
        p.relative_to(root).as_posix(): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def test_a_dry_run_shows_count_size_and_dates_and_writes_nothing(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    made = claude_projects(home, {"-p": 3})
    for n, path in enumerate(made.values()):
        stamp = 1_735_732_800 + n * 86400 * 40  # 2025-01-01 12:00 UTC, then 40 days apart
        os.utime(path, (stamp, stamp))
    chats = chatgpt_zip(tmp_path / "export.zip", [chatgpt_conversation(1, MAY_2025)])
    before = snapshot(vault.root)
    run = dreaming(
        home, "import", "claude-code", str(chats), "--vault", str(vault.root), "--dry-run"
    )
    assert run.returncode == 0, run.stderr
    size = sum(p.stat().st_size for p in made.values())
    projects = home / ".claude" / "projects"
    assert (
        f"claude-code: 3 found in {projects}, {size / 1e3:.1f} KB, 2025-01-01 → 2025-03-22; "
        "3 to copy" in run.stdout
    )
    assert "export.zip: 1 found" in run.stdout
    assert "dry run: nothing was copied or written" in run.stdout
    assert snapshot(vault.root) == before


def test_an_import_ingests_and_status_shows_the_backlog(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_projects(home, {"-p": 2, "-q": 1})
    run = dreaming(home, "import", "claude-code", "codex", "--vault", str(vault.root))
    assert run.returncode == 0, run.stderr
    assert (
        f"codex: nothing at {home / '.codex' / 'sessions'} (give codex=PATH for another folder)"
        in run.stdout
    )
    assert f"claude-code: 3 found in {home / '.claude' / 'projects'}" in run.stdout
    assert "ingested 3 files: 3 new and 0 updated conversations" in run.stdout
    assert "backlog: 3 conversations for the nights to synthesize" in run.stdout
    doc = json.loads(dreaming(home, "status", "--vault", str(vault.root), "--json").stdout)
    assert (doc["conversations"], doc["backlog"]) == (3, 3)
    assert doc["last_run"]["summary"]["files"] == 3
    said = dreaming(home, "status", "--vault", str(vault.root)).stdout
    assert "Backlog: 3 conversations not yet synthesized" in said


def test_a_second_import_says_nothing_new(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_projects(home, {"-p": 2})
    dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    again = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    assert again.returncode == 0
    assert "0 copied (0 B), 2 already imported" in again.stdout
    assert "ingested" not in again.stdout


def test_since_leaves_out_older_sessions_and_says_how_many(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = list(claude_projects(home, {"-p": 3}).values())
    os.utime(made[0], (1_700_000_000, 1_700_000_000))  # 2023-11-14
    run = dreaming(
        home, "import", "claude-code", "--vault", str(vault.root), "--since", "2024-01-31"
    )
    assert run.returncode == 0, run.stderr
    assert "; 1 older than --since left out; 2 copied" in run.stdout
    assert len(raw_tree(vault.root)) == 2


@pytest.mark.parametrize(
    ("since", "said"),
    [
        (
            "2025-13-01",
            "--since '2025-13-01': not a date; write it as YYYY-MM-DD (e.g. 2025-01-31)",
        ),
        ("yesterday", "--since 'yesterday': not a date; write it as YYYY-MM-DD (e.g. 2025-01-31)"),
    ],
)
def test_a_bad_since_is_one_line(vault: Vault, tmp_path: Path, since: str, said: str) -> None:
    run = dreaming(tmp_path, "import", "claude-code", "--vault", str(vault.root), "--since", since)
    assert run.returncode == 1
    assert run.stderr.splitlines() == [f"dreaming: error: {said}"]


def test_an_unknown_source_is_one_line(vault: Vault, tmp_path: Path) -> None:
    run = dreaming(tmp_path, "import", "claude", "--vault", str(vault.root))
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    assert line.startswith("dreaming: error: claude: no such file or folder; give claude-code")


def test_a_zip_slip_export_is_one_line_and_nothing_is_copied(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_projects(home, {"-p": 1})
    slip = chatgpt_zip(
        tmp_path / "slip.zip", [chatgpt_conversation(1, MAY_2025)], **{"../../evil.sh": b"rm"}
    )
    run = dreaming(home, "import", "claude-code", str(slip), "--vault", str(vault.root))
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"dreaming: error: {slip}: holds a member named '../../evil.sh' that would be written "
        "outside the folder it is unpacked into (zip-slip); refused, nothing imported from it"
    ]
    assert raw_tree(vault.root) == {}
    assert not list(tmp_path.parent.rglob("evil.sh"))


def test_a_zip_without_conversations_json_is_one_line(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("IMG_0001.jpg", b"\xff\xd8\xff")
    run = dreaming(tmp_path, "import", str(path), "--vault", str(vault.root))
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"dreaming: error: {path}: no conversations.json in this zip; a ChatGPT data export "
        "(Settings → Data controls → Export data) holds one: give that zip, or the "
        "conversations.json itself"
    ]


def test_an_import_where_nothing_landed_says_how_many_and_exits_1(
    vault: Vault, tmp_path: Path
) -> None:
    chats = chatgpt_zip(
        tmp_path / "export.zip", [chatgpt_conversation(n, MAY_2025) for n in (1, 2)]
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.raw / "chatgpt").symlink_to(outside)
    run = dreaming(tmp_path, "import", str(chats), "--vault", str(vault.root))
    assert run.returncode == 1, run.stderr
    assert "0 copied (0 B), 0 already imported, 2 did not come in (the lines above say why)" in (
        run.stdout
    )
    lines = run.stderr.splitlines()
    assert len(lines) == 3
    assert all("a link in Raw/ leads out of the vault" in line for line in lines[:2])
    assert lines[2] == (
        "dreaming: not everything came in (2 problems above); fix what they say and run the "
        "same command again: what came in is not copied twice"
    )
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_an_export_that_holds_no_conversation_is_one_line_and_exits_1(
    vault: Vault, tmp_path: Path, dry_run: tuple[str, ...]
) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("conversations.json", '{"a": 1}')
    run = dreaming(tmp_path, "import", str(path), "--vault", str(vault.root), *dry_run)
    assert run.returncode == 1
    assert run.stderr.splitlines()[0] == (
        f"dreaming: {path}: not a ChatGPT export (a JSON object that is no conversation: it "
        "has no mapping); give the export's conversations.json"
    )
    assert raw_tree(vault.root) == {}


def test_while_a_watcher_runs_the_copies_are_left_to_it(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_projects(home, {"-p": 2})
    with instance_lock(vault):
        run = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    assert run.returncode == 0, run.stderr
    assert f"the watcher (pid {os.getpid()}) ingests the copies as they land" in run.stdout
    assert len(raw_tree(vault.root)) == 2
    with Ledger(vault.ledger_path) as ledger:
        assert raw_files.counts(ledger) == {}


def wait_for_staging(vault: Vault, proc: subprocess.Popen[str]) -> None:
    """Until the child's import has begun copying (its staging folder exists)."""
    deadline = time.monotonic() + 30
    while not (vault.state / "import").is_dir():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the import never began"
        time.sleep(0.005)


def test_a_second_import_at_once_refuses_naming_the_first(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_projects(home, {"-p": 20})
    first = slow_import(home, 0.2, "claude-code", "--vault", str(vault.root), "--no-ingest")
    try:
        wait_for_staging(vault, first)
        second = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    finally:
        first.kill()
        first.communicate()
    assert second.returncode == 1
    assert second.stderr.splitlines() == [
        f"dreaming: error: {vault.state / 'import.lock'}: another dreaming import "
        f"(pid {first.pid}) is copying into this vault; wait for it to finish (or stop it), "
        "then run again: it resumes where it stopped"
    ]


def test_an_import_held_by_this_process_refuses_a_second(vault: Vault, tmp_path: Path) -> None:
    with import_lock(vault):
        run = dreaming(tmp_path, "import", str(tmp_path), "--vault", str(vault.root))
    assert run.returncode == 1
    assert f"another dreaming import (pid {os.getpid()})" in run.stderr


def assert_whole_copies(vault: Vault, sources: dict[str, Path]) -> None:
    """Every file in Raw/ is a whole copy of its source, at its own name: none half."""
    for rel, data in raw_tree(vault.root).items():
        name = rel.removeprefix("claude-code/")
        assert name in sources, f"an unexpected file in Raw/: {rel}"
        assert data == sources[name].read_bytes(), f"{rel} is not a whole copy"
    hidden = [p for p in vault.raw.rglob(".*") if p != vault.raw / ".gitignore"]
    assert not hidden, "a hidden temp file in Raw/"


def killed_and_resumed(vault: Vault, home: Path, sources: dict[str, Path], delay: float) -> None:
    """`dreaming import claude-code` killed (SIGKILL) at four random moments, each time
    leaving only whole copies, then run to its end: every file exactly once."""
    rng = random.Random(11)
    for _ in range(4):
        proc = slow_import(home, delay, "claude-code", "--vault", str(vault.root))
        wait_for_staging(vault, proc)
        time.sleep(rng.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert_whole_copies(vault, sources)
    assert len(raw_tree(vault.root)) < len(sources), "every kill came too late to test"
    done = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    assert_whole_copies(vault, sources)
    assert set(raw_tree(vault.root)) == {f"claude-code/{rel}" for rel in sources}
    with Ledger(vault.ledger_path) as ledger:
        for path in sources.values():
            assert imports.get(ledger, str(path)) is not None
    again = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    assert f"0 copied (0 B), {len(sources)} already imported" in again.stdout


def test_an_import_killed_at_random_points_lands_every_file_exactly_once(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    sources = claude_projects(home, {"-a": 60, "-b": 60, "-c": 80})
    killed_and_resumed(vault, home, sources, 0.01)
    with Ledger(vault.ledger_path) as ledger:
        assert len(conversations.by_updated(ledger)) == len(sources)
        assert raw_files.counts(ledger) == {"ok": len(sources)}


@pytest.mark.corpus
def test_the_corpus_imported_killed_and_resumed_lands_every_file_once(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects"
    shutil.copytree(corpus_or_skip() / "claude-code", projects)
    sources = {p.relative_to(projects).as_posix(): p for p in projects.rglob("*") if p.is_file()}
    killed_and_resumed(vault, home, sources, 0.03)
    whole = dreaming(home, "status", "--vault", str(vault.root), "--json")
    doc = json.loads(whole.stdout)
    assert doc["failed"] == []
    assert doc["files"]["total"] == sum(1 for rel in sources if rel.endswith(".jsonl"))


def test_ctrl_c_stops_after_the_files_in_hand_and_the_next_run_goes_on(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    sources = claude_projects(home, {"-p": 100})
    proc = slow_import(home, 0.02, "claude-code", "--vault", str(vault.root))
    wait_for_staging(vault, proc)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    said, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command again to go on where it stopped" in err
    assert "Traceback" not in err
    copied = raw_tree(vault.root)
    assert 0 < len(copied) < len(sources)
    assert f"claude-code: stopped after {len(copied)} of {len(sources)} in " in said
    assert_whole_copies(vault, sources)
    with Ledger(vault.ledger_path) as ledger:
        # What it copied before stopping is recorded and ingested.
        assert raw_files.counts(ledger) == {"ok": len(copied)}
    rest = dreaming(home, "import", "claude-code", "--vault", str(vault.root))
    assert f"{len(sources) - len(copied)} copied" in rest.stdout
    assert f"{len(copied)} already imported" in rest.stdout
    assert len(raw_tree(vault.root)) == len(sources)
