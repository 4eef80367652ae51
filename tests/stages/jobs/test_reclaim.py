"""`dreaming reclaim`: a session's older copy goes, its conversation and citations stay."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dreaming.checks.status import reclaimable, status
from dreaming.ledger import Ledger, conversations
from dreaming.query import Reader
from dreaming.vault import Vault
from dreaming.vault.lock import RunLocked, run_lock
from stages.jobs import reclaim as reclaim_module
from stages.jobs.ingest import forget, ingest
from stages.jobs.reclaim import Reclaimed, reclaim
from tests.query_support import article, note
from tests.support import REPO, corpus_or_skip, drop, raw_note
from tests.watch_support import watched

SESSION = "5f0c2a9e-1b2d-4c3e-8f4a-6b7c8d9e0f1a"
HASH8 = SESSION[:8]
SHORT = "Raw/laptop/session.jsonl"
LONG = "Raw/desktop/session.jsonl"


def session(turns: int, *, session_id: str = SESSION, words: str = "the watcher") -> str:
    """A Claude Code session of `turns` question-answer pairs, in the real record shape."""
    lines = []
    for i in range(turns):
        base: dict[str, Any] = {"sessionId": session_id, "cwd": "/home/ada/src"}
        lines.append(
            base
            | {
                "type": "user",
                "uuid": f"u{i}",
                "parentUuid": f"a{i - 1}" if i else None,
                "timestamp": f"2026-01-01T00:{i:02d}:00.000Z",
                "message": {"role": "user", "content": f"Question {i} about {words}?"},
            }
        )
        lines.append(
            base
            | {
                "type": "assistant",
                "uuid": f"a{i}",
                "parentUuid": f"u{i}",
                "timestamp": f"2026-01-01T00:{i:02d}:30.000Z",
                "message": {
                    "role": "assistant",
                    "id": f"msg_{i}",
                    "content": [{"type": "text", "text": f"Answer {i} about {words}."}],
                },
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


def aged(path: Path) -> Path:
    """`path` as a file last written an hour ago (a finished session, not one being written)."""
    an_hour_ago = time.time() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))
    return path


def put(vault: Vault, rel: str, text: str | bytes) -> Path:
    return aged(drop(vault, rel.removeprefix("Raw/"), text))


def resumed(vault: Vault, ledger: Ledger) -> tuple[Path, Path]:
    """A session (4 turns) and its longer resume (6 turns) in two Raw paths, ingested."""
    short = put(vault, SHORT, session(4))
    long = put(vault, LONG, session(6))
    ingest(vault, ledger)
    return short, long


def ledger_rows(ledger: Ledger) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every conversation row and every message row, in a stable order."""
    convs = ledger.db.execute(
        "SELECT id, hash8, source, file, parent_id, title, created_at, updated_at, "
        "message_count, content_sha FROM conversations ORDER BY id"
    )
    msgs = ledger.db.execute(
        "SELECT conv_id, position, role, text, ts FROM messages ORDER BY conv_id, position"
    )
    return [tuple(r) for r in convs], [tuple(r) for r in msgs]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """This checkout's `dreaming` command as a person runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DREAMING_")}
    return subprocess.run(
        [sys.executable, "-m", "watcher.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )


def git(vault: Vault, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=vault.root, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


def test_the_older_copy_of_a_resumed_session_is_removed(vault: Vault, ledger: Ledger) -> None:
    short, long = resumed(vault, ledger)
    size = short.stat().st_size
    report = reclaim(vault, ledger)
    assert report.removed == [Reclaimed(SHORT, (LONG,), False, size)]
    assert report.skipped == []
    assert not short.exists()
    assert long.exists()


def test_the_bytes_freed_are_the_removed_files_sizes(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    dup = put(vault, "Raw/backup/session.jsonl", session(6))
    ingest(vault, ledger)
    sizes = short.stat().st_size + dup.stat().st_size
    report = reclaim(vault, ledger)
    assert sorted(r.file for r in report.removed) == ["Raw/backup/session.jsonl", SHORT]
    assert report.freed == sizes


def test_conversations_and_messages_are_unchanged(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    before = ledger_rows(ledger)
    reclaim(vault, ledger)
    after = ledger_rows(ledger)
    assert after == before
    assert len(after[1]) == 12


def test_the_ledger_forgets_the_removed_file(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    reclaim(vault, ledger)
    doc = status(ledger)
    assert reclaimable(ledger, vault) == ([], [])
    assert doc["files"]["total"] == 1
    held = ledger.db.execute("SELECT path FROM file_conversations").fetchall()
    assert [tuple(r) for r in held] == [(LONG,)]


def test_a_second_reclaim_does_nothing(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    reclaim(vault, ledger)
    before = ledger.db.total_changes
    again = reclaim(vault, ledger)
    assert (again.removed, again.skipped, again.freed) == ([], [], 0)
    assert ledger.db.total_changes == before


def test_a_later_ingest_keeps_everything_and_writes_nothing(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    reclaim(vault, ledger)
    rows, changes = ledger_rows(ledger), ledger.db.total_changes
    report = ingest(vault, ledger)
    assert (report.removed, report.conversations_new, report.conversations_updated) == (0, 0, 0)
    assert ledger.db.total_changes == changes
    assert ledger_rows(ledger) == rows


def test_the_watcher_forgetting_the_deletion_changes_nothing(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    reclaim(vault, ledger)
    rows = ledger_rows(ledger)
    # What the Raw route does when it sees the file gone.
    assert forget(ledger, {SHORT}) == 0
    assert ledger_rows(ledger) == rows


def test_an_exact_duplicate_is_removed_as_a_copy(vault: Vault, ledger: Ledger) -> None:
    put(vault, LONG, session(6))
    put(vault, SHORT, session(6))
    ingest(vault, ledger)
    rows = ledger_rows(ledger)
    (removed,) = reclaim(vault, ledger).removed
    assert removed.exact
    assert removed.relation.startswith("a copy of ")
    kept = vault.root / (LONG if removed.file == SHORT else SHORT)
    assert kept.exists()
    # The conversation pointed at one of the two: now at the one kept.
    assert ledger_rows(ledger)[1] == rows[1]
    assert ledger.db.execute("SELECT file FROM conversations").fetchone()[0] == vault.rel(kept)


def test_a_hard_link_frees_nothing(vault: Vault, ledger: Ledger) -> None:
    long = put(vault, LONG, session(6))
    (vault.raw / "laptop").mkdir()
    os.link(long, vault.root / SHORT)
    ingest(vault, ledger)
    report = reclaim(vault, ledger)
    assert len(report.removed) == 1
    assert report.freed == 0


def test_a_file_edited_after_ingest_is_kept(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    aged(short).write_text(session(4, words="something else"), encoding="utf-8")
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert [s.file for s in report.skipped] == [SHORT]
    assert "changed since it was ingested" in report.skipped[0].reason
    assert short.exists()


def test_an_edit_keeping_size_and_mtime_is_caught_by_the_checksum(
    vault: Vault, ledger: Ledger
) -> None:
    short, _ = resumed(vault, ledger)
    st = short.stat()
    edited = short.read_text(encoding="utf-8").replace("Question 1", "Qvestion 1")
    short.write_text(edited, encoding="utf-8")
    os.utime(short, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert short.stat().st_size == st.st_size
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert "changed since it was ingested" in report.skipped[0].reason
    assert short.read_text(encoding="utf-8") == edited


def test_the_older_copy_stays_when_the_newer_one_changed(vault: Vault, ledger: Ledger) -> None:
    short, long = resumed(vault, ledger)
    long.write_text(session(2), encoding="utf-8")
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert report.skipped[0].reason.startswith(f"its newer copy {LONG}")
    assert short.exists()


def test_a_file_written_moments_ago_is_kept(vault: Vault, ledger: Ledger) -> None:
    put(vault, LONG, session(6))
    short = drop(vault, SHORT.removeprefix("Raw/"), session(4))
    ingest(vault, ledger)
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert "may still be being written" in report.skipped[0].reason
    assert short.exists()


def test_a_different_conversation_under_the_same_id_is_never_removed(
    vault: Vault, ledger: Ledger
) -> None:
    put(vault, LONG, session(6))
    other = put(vault, SHORT, session(4, words="another subject"))
    ingest(vault, ledger)
    report = reclaim(vault, ledger)
    assert (report.removed, report.skipped) == ([], [])
    assert other.exists()
    assert status(ledger)["conversations"] == 2


def test_a_file_the_ledger_wrongly_calls_a_prefix_is_kept_by_the_disk_check(
    vault: Vault, ledger: Ledger
) -> None:
    put(vault, LONG, session(6))
    other = put(vault, SHORT, session(4, words="another subject"))
    ingest(vault, ledger)
    # A ledger that lies: the file's copy recorded as the first 8 messages of the long one.
    long_id, long_sha = ledger.db.execute(
        "SELECT id, content_sha FROM conversations WHERE file = ?", (LONG,)
    ).fetchone()
    with ledger.transaction():
        ledger.db.execute("DELETE FROM file_conversations WHERE path = ?", (SHORT,))
        ledger.db.execute(
            "INSERT INTO file_conversations(path, conv_id, message_count, content_sha) "
            "VALUES (?, ?, 12, ?)",
            (SHORT, long_id, long_sha),
        )
    assert [s.path for s in conversations.superseded(ledger)] == [SHORT]
    why = f"holds bytes {LONG} lacks (line 1 differs)"
    assert reclaimable(ledger, vault) == ([], [{"file": SHORT, "reason": why}])
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert report.skipped[0].reason == why
    assert other.exists()


def test_a_dry_run_lists_the_same_and_removes_nothing(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    rows, changes = ledger_rows(ledger), ledger.db.total_changes
    dry = reclaim(vault, ledger, dry_run=True)
    assert short.exists()
    assert ledger.db.total_changes == changes
    assert ledger_rows(ledger) == rows
    real = reclaim(vault, ledger)
    assert dry.removed == real.removed
    assert dry.freed == real.freed == len(session(4).encode())


def test_a_running_night_refuses_reclaim(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    with run_lock(vault):
        with pytest.raises(RunLocked, match="wait for it to finish"):
            reclaim(vault, ledger)
        assert short.exists()
        # A dry run writes nothing, so it needs no lock.
        assert len(reclaim(vault, ledger, dry_run=True).removed) == 1


def test_an_article_citing_the_conversation_still_resolves(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    article(vault, "Vault Watcher", footnotes=(note(1, HASH8),))
    before = Reader(vault, ledger).source(f"conv:{HASH8}").text
    reclaim(vault, ledger)
    after = Reader(vault, ledger).source(f"conv:{HASH8}")
    assert after.text == before
    assert after.data["messages"] == 12
    assert "Answer 5 about the watcher." in after.text


def test_a_file_replaced_at_the_moment_of_removal_is_put_back(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, _ = resumed(vault, ledger)
    still = reclaim_module._still
    newer = session(5)

    def replaced_after_the_last_look(*args: Any) -> str | None:
        said = still(*args)
        # The hook writes a new copy (temp file, then rename) just after the last look.
        temp = short.with_name(".hook.tmp")
        temp.write_text(newer, encoding="utf-8")
        os.replace(temp, short)
        return said

    monkeypatch.setattr(reclaim_module, "_still", replaced_after_the_last_look)
    rows = ledger_rows(ledger)
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert "left in place" in report.skipped[0].reason
    assert short.read_text(encoding="utf-8") == newer
    assert sorted(p.name for p in short.parent.iterdir()) == ["session.jsonl"]
    assert ledger_rows(ledger) == rows


def test_a_crash_before_the_ledger_forgets_loses_no_conversation(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, _ = resumed(vault, ledger)
    rows = ledger_rows(ledger)

    def killed(*args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(reclaim_module, "forget", killed)
    with pytest.raises(KeyboardInterrupt):
        reclaim(vault, ledger)
    assert not short.exists()
    assert status(ledger)["files"]["total"] == 2
    # The next ingest forgets the file, as after any deletion; the conversation stays.
    assert ingest(vault, ledger).removed == 1
    assert ledger_rows(ledger) == rows
    assert reclaimable(ledger, vault) == ([], [])


def test_a_tracked_raw_file_is_committed_removed(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    git(vault, "add", "-f", "--", SHORT, LONG)
    git(vault, "commit", "-q", "-m", "keep my transcripts")
    report = reclaim(vault, ledger)
    assert report.commit is not None
    assert git(vault, "ls-files", "--", "Raw").split() == ["Raw/.gitignore", "Raw/README.md", LONG]
    message = git(vault, "log", "-1", "--format=%an%n%B")
    assert message.startswith("dreaming\ndreaming reclaim: remove 1 superseded Raw file")
    assert f"- {SHORT}: a prefix of {LONG}" in message
    assert "Dreaming-Run: reclaim" in message
    assert git(vault, "status", "--porcelain") == ""


def test_an_untracked_removal_makes_no_commit(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    head = git(vault, "rev-parse", "HEAD")
    report = reclaim(vault, ledger)
    assert report.commit is None
    assert git(vault, "rev-parse", "HEAD") == head


def test_a_tracked_removal_waits_for_a_merge_to_end(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    git(vault, "add", "-f", "--", SHORT)
    git(vault, "commit", "-q", "-m", "keep my transcript")
    head = git(vault, "rev-parse", "HEAD").strip()
    (Path(git(vault, "rev-parse", "--absolute-git-dir").strip()) / "MERGE_HEAD").write_text(
        head + "\n"
    )
    with pytest.raises(Exception, match="merge is in progress"):
        reclaim(vault, ledger)
    assert short.exists()


@pytest.mark.slow  # the console script in a child process
def test_the_command_says_each_file_and_the_bytes_freed(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    size = short.stat().st_size
    root = str(vault.root)
    dry = run_cli("reclaim", "--vault", root, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"would remove {SHORT} (a prefix of {LONG}), {size:,} bytes" in dry.stdout
    assert "nothing removed" in dry.stdout
    assert short.exists()
    done = run_cli("reclaim", "--vault", root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"removed {SHORT} (a prefix of {LONG}), {size:,} bytes",
        f"freed {size:,} bytes (1 file)",
    ]
    again = run_cli("reclaim", "--vault", root)
    assert again.stdout.splitlines() == [
        "nothing to reclaim: every Raw file holds something no other file holds"
    ]


@pytest.mark.slow  # the console script in a child process
def test_the_command_json(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    size = short.stat().st_size
    done = run_cli("reclaim", "--vault", str(vault.root), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "dry_run": False,
        "removed": [{"file": SHORT, "kept": [LONG], "exact": False, "bytes": size}],
        "skipped": [],
        "bytes_freed": size,
        "bytes_reclaimable": 0,
        "commit": None,
        "commit_error": None,
    }


@pytest.mark.slow  # the console script in a child process
def test_status_points_at_reclaim(vault: Vault, ledger: Ledger) -> None:
    short, _ = resumed(vault, ledger)
    shown = run_cli("status", "--vault", str(vault.root))
    assert shown.returncode == 0, shown.stderr
    assert f"reclaimable {SHORT} (held in full by {LONG})" in shown.stdout
    assert (
        f"dreaming reclaim --vault {vault.root} removes them ({short.stat().st_size:,} bytes)"
        in shown.stdout
    )


@pytest.mark.slow  # the console script in a child process
def test_a_source_still_resolves_from_the_shell_after_reclaim(vault: Vault, ledger: Ledger) -> None:
    resumed(vault, ledger)
    article(vault, "Vault Watcher", footnotes=(note(1, HASH8),))
    root = str(vault.root)
    before = run_cli("query", "source", f"conv:{HASH8}", "--vault", root)
    assert run_cli("reclaim", "--vault", root).returncode == 0
    after = run_cli("query", "source", f"conv:{HASH8}", "--vault", root)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    assert "[11] assistant: Answer 5 about the watcher." in after.stdout


def test_a_corpus_session_and_its_truncated_copy(vault: Vault, ledger: Ledger) -> None:
    corpus = corpus_or_skip()
    source = max((corpus / "claude-code").rglob("*-*-*-*-*.jsonl"), key=lambda p: p.stat().st_size)
    full = vault.raw / "claude-code" / source.name
    full.parent.mkdir(parents=True)
    shutil.copyfile(source, full)
    lines = source.read_bytes().splitlines(keepends=True)
    half = vault.raw / "old-laptop" / source.name
    half.parent.mkdir()
    half.write_bytes(b"".join(lines[: len(lines) // 2]))
    aged(full)
    aged(half)
    ingest(vault, ledger)
    assert [r["file"] for r in reclaimable(ledger, vault)[0]] == [vault.rel(half)]
    rows = ledger_rows(ledger)
    report = reclaim(vault, ledger)
    assert [r.file for r in report.removed] == [vault.rel(half)]
    assert report.freed == sum(len(line) for line in lines[: len(lines) // 2])
    assert ledger_rows(ledger) == rows


def after_the_check(monkeypatch: pytest.MonkeyPatch, then: Any) -> None:
    """Run `then()` once every file is checked, before the first removal."""
    check_all = reclaim_module._check_all

    def check_all_then(*args: Any) -> Any:
        checked = check_all(*args)
        then()
        return checked

    monkeypatch.setattr(reclaim_module, "_check_all", check_all_then)


def test_a_file_written_between_the_check_and_the_removal_is_kept(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, _ = resumed(vault, ledger)
    after_the_check(monkeypatch, lambda: short.write_text(session(5), encoding="utf-8"))
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert report.skipped[0].reason == f"{SHORT} changed while it was checked; run reclaim again"
    assert short.read_text(encoding="utf-8") == session(5)


def test_a_newer_copy_ingested_between_the_check_and_the_removal_keeps_the_file(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    short, long = resumed(vault, ledger)

    def diverged() -> None:
        long.write_text(session(6, words="another subject"), encoding="utf-8")
        ingest(vault, ledger)

    after_the_check(monkeypatch, diverged)
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert "the ledger changed while it was checked" in report.skipped[0].reason
    assert short.exists()


@pytest.mark.slow  # a real watcher
def test_a_running_watcher_sees_the_removal_and_keeps_everything(
    vault: Vault, ledger: Ledger
) -> None:
    short, _ = resumed(vault, ledger)
    rows = ledger_rows(ledger)
    with watched(vault) as w:
        reclaim(vault, ledger)
        # The watcher handles events in order: once a file dropped after the removal is
        # ingested, it has seen the removal (and the hidden name it passed through).
        drop(vault, "later.md", raw_note(("user", "And then?"), ("assistant", "Then this.")))
        w.reaction(lambda r: r.path == "Raw/later.md" and r.outcome == "ingested")
    assert not short.exists()
    assert [r for r in w.said if r.problem] == []
    assert not any(SHORT in r.path or "reclaim" in r.path for r in w.said)
    (session_id,) = [c[0] for c in rows[0]]
    convs, msgs = ledger_rows(ledger)
    assert [c for c in convs if c[0] == session_id] == rows[0]
    assert [m for m in msgs if m[0] == session_id] == rows[1]
    assert status(ledger)["files"]["total"] == 2
