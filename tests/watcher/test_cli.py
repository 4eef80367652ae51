"""The console script as a person runs it: real processes, real exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreaming.ledger import Ledger, runs
from dreaming.vault import Vault
from tests.support import drop, raw_note
from watcher.cli import cli

DREAMING = Path(sys.executable).parent / "dreaming"


# Slow: the console script in child processes.
pytestmark = pytest.mark.slow


def dreaming(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DREAMING_VAULT"}
    return subprocess.run(
        [str(DREAMING), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


def test_init_says_the_next_step_is_a_night(tmp_path: Path) -> None:
    made = dreaming("init", str(tmp_path / "v"))
    assert f"dreaming watch --vault {tmp_path / 'v'}" in made.stdout


def test_init_ingest_status_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    (root / "Raw" / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    ingested = dreaming("ingest", "--vault", str(root))
    assert ingested.returncode == 0, ingested.stderr
    assert "1 ingested" in ingested.stdout
    doc = json.loads(dreaming("status", "--vault", str(root), "--json").stdout)
    assert doc["conversations"] == 1
    assert doc["messages"] == 2
    assert doc["sources"] == {"raw": {"conversations": 1, "messages": 2}}
    assert {"failed", "redactions", "last_run"} <= set(doc)
    assert doc["last_run"]["kind"] == "ingest"


def test_status_says_one_conversation_in_the_singular(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / "Raw" / "t.md").write_text(raw_note(("user", "hi")))
    dreaming("ingest", "--vault", str(root))
    said = dreaming("status", "--vault", str(root)).stdout
    assert "1 conversation, 1 message, 0 articles, 0 secrets redacted" in said
    assert "Backlog: 1 conversation not yet synthesized" in said


def test_a_bad_file_is_named_in_one_line_on_stderr(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / "Raw" / "bad.json").write_text("{ not json")
    result = dreaming("ingest", "--vault", str(root))
    assert result.returncode == 0
    lines = [line for line in result.stderr.splitlines() if "bad.json" in line]
    assert len(lines) == 1
    assert "Traceback" not in result.stderr


def test_a_vault_that_is_a_file_is_refused_without_a_traceback(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    result = dreaming("status", "--vault", str(f))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"dreaming: error: {f}: is a file, not a folder; pass the vault folder"
    ]


def test_status_without_a_vault_says_how_to_make_one(tmp_path: Path) -> None:
    result = dreaming("status", cwd=tmp_path)
    assert result.returncode == 1
    assert "dreaming init" in result.stderr
    assert "Traceback" not in result.stderr


def test_ingest_and_status_refuse_a_raw_folder_linked_outside_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    elsewhere = tmp_path / "transcripts"
    elsewhere.mkdir()
    (root / "Raw").rename(tmp_path / "old-raw")
    (root / "Raw").symlink_to(elsewhere)
    for command in ("ingest", "status"):
        result = dreaming(command, "--vault", str(root))
        assert result.returncode == 1
        [line] = result.stderr.strip().splitlines()
        assert line.startswith(f"dreaming: error: {root / 'Raw'}: a link to {elsewhere}")


def test_init_shows_a_path_with_control_characters_and_brackets_as_text(tmp_path: Path) -> None:
    root = tmp_path / "my[red]vault\x1b[31m\nsecond"
    result = dreaming("init", str(root))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "my[red]vault\\x1b[31m\\nsecond: added" in result.stdout


def test_an_error_naming_a_path_with_control_characters_stays_one_line(tmp_path: Path) -> None:
    f = tmp_path / "evil\x1b]0;title\x07\nname"
    f.write_text("x")
    result = dreaming("status", "--vault", str(f))
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert "\x1b" not in line
    assert "evil\\x1b]0;title\\x07\\nname: is a file" in line


def test_synthesize_ingests_reports_and_a_second_run_with_nothing_new_commits_nothing(
    tmp_path: Path,
) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    (root / "Raw" / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    # INGEST alone: the model stages are tested with a scripted model elsewhere.
    first = dreaming("synthesize", "--vault", str(root), "--stage", "ingest")
    assert first.returncode == 0, first.stderr
    assert "0 model calls, 1 commits" in first.stdout
    assert "report Log/" in first.stdout
    second = dreaming("synthesize", "--vault", str(root), "--stage", "ingest")
    assert second.returncode == 0, second.stderr
    assert "0 model calls, 0 commits" in second.stdout
    doc = json.loads(dreaming("status", "--vault", str(root), "--json").stdout)
    assert doc["last_run"]["kind"] == "stage"
    assert (doc["last_run"]["model_calls"], doc["last_run"]["commits"]) == (0, 0)


def test_synthesize_dry_run_prints_the_plan_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    (root / "Raw" / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    plan = dreaming("synthesize", "--vault", str(root), "--dry-run")
    assert plan.returncode == 0, plan.stderr
    assert "ingest: 1 Raw files to read" in plan.stdout
    assert "model calls expected: about 0" in plan.stdout
    assert not list((root / "Log").glob("2*.md"))
    assert dreaming("status", "--vault", str(root)).stdout.count("Last run: never\n") == 1


@pytest.mark.timeout(60)
def test_a_night_that_reindexes_with_a_named_pipe_in_articles_ends_and_frees_the_vault(
    tmp_path: Path,
) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    # A killed run before it: this night reindexes articles/ whatever it writes.
    with Ledger(root / ".dreaming" / "ledger.sqlite") as ledger, ledger.transaction():
        runs.put(ledger, runs.Run("killed", "night", "2026-12-01T02:00:00+00:00", None, "running"))
    os.mkfifo(root / "articles" / "Pipe.md")
    argv = [str(DREAMING), "synthesize", "--vault", str(root), "--stage", "ingest"]
    night = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert night.returncode == 0, night.stderr
    assert "dreaming: articles/Pipe.md: a named pipe, not a file; delete it\n" in night.stderr
    again = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    assert again.returncode == 0, again.stderr


def test_synthesize_refuses_an_unknown_stage_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    bad = dreaming("synthesize", "--vault", str(root), "--stage", "nope")
    assert bad.returncode == 1
    assert bad.stderr == (
        "dreaming: error: no stage named 'nope'; "
        "choose one of: ingest, segment, extract, bucket, resolve, synthesize, reconcile, link, "
        "editorial\n"
    )


def test_synthesize_refuses_in_one_line_while_another_run_holds_the_vault(tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        refused = dreaming("synthesize", "--vault", str(root))
    finally:
        holder.kill()
        holder.communicate()
    assert refused.returncode == 1
    assert f"another dreaming run (pid {holder.pid})" in refused.stderr
    assert refused.stderr.count("\n") == 1


HOLD_LOCK = """
import sys, time
from dreaming.vault import Vault
from dreaming.vault.lock import run_lock
with run_lock(Vault.open(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


STUCK_INGEST = """
import sys, time
import dreaming.raw
from dreaming.raw import deadline
from watcher.cli import cli

def stuck_on_one(real):
    def read(path, text):
        while path.name == "stuck.md":  # a reader that never ends but for its time limit
            time.sleep(0.05)
            deadline.check()
        return real(path, text)
    return read

for source, real in list(dreaming.raw._READERS.items()):
    dreaming.raw._READERS[source] = stuck_on_one(real)
cli(["ingest", "--vault", sys.argv[1]])
"""


@pytest.mark.timeout(90)
def test_a_second_ingest_says_at_once_whom_it_waits_for_while_the_first_is_stuck(
    tmp_path: Path,
) -> None:
    from dreaming.ledger.writer import current_holder

    root = tmp_path / "v"
    assert dreaming("init", str(root)).returncode == 0
    (root / "Raw" / "stuck.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    (root / "Raw" / "fine.md").write_text(raw_note(("user", "yes"), ("assistant", "no")))
    env = {k: v for k, v in os.environ.items() if k != "DREAMING_VAULT"}
    env["DREAMING_RAW_READ_TIMEOUT_S"] = "6"
    # This checkout's code, whichever one the console script was installed from.
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    first = subprocess.Popen(
        [sys.executable, "-c", STUCK_INGEST, str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    ledger = root / ".dreaming" / "ledger.sqlite"
    while (holder := current_holder(ledger)) is None or holder.pid != first.pid:
        assert first.poll() is None, first.communicate()
    second = subprocess.Popen(
        [str(DREAMING), "ingest", "--vault", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert second.stderr is not None
    said = second.stderr.readline()
    first_still_stuck = first.poll() is None
    first_out, first_err = first.communicate(timeout=60)
    second_out, second_err = second.communicate(timeout=60)
    assert first_still_stuck
    assert said.startswith(
        f"dreaming: {ledger}: waiting up to 30 s for the ledger: pid {first.pid} "
        "(dreaming ingest, writing since "
    )
    assert said.endswith(" s ago) is writing it\n")
    assert "dreaming: Raw/stuck.md: reading it took over 6 s" in first_err
    assert "1 ingested" in first_out
    assert "1 failed" in first_out
    assert second.returncode == 0, second_err
    assert second_err == ""
    assert "0 ingested, 2 unchanged" in second_out


def test_one_file_ingested_is_said_as_one_file(vault: Vault) -> None:
    drop(vault, "talk.md", "**User:** How long does bread proof?\n\n**Assistant:** An hour.\n")
    said = CliRunner().invoke(cli, ["ingest", "--vault", str(vault.root)]).output
    assert " ".join(said.split()).startswith("1 file in ")
