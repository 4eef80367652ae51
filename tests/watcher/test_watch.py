"""The watch loop and its Raw route: real watchfiles on real vaults, the loop in a thread."""

from __future__ import annotations

import errno
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
import watchfiles

from bench.bench_read_memory import FORMATS
from dreaming.errors import GitError
from dreaming.ledger import Ledger
from dreaming.ledger.connection import ledger_error
from dreaming.raw import read_transcript
from dreaming.vault import Vault
from dreaming.vault.repo import PIPELINE_AUTHOR, VaultRepo
from tests.support import drop, raw_note
from tests.watch_support import spy_ingest, wait_for, watched
from watcher.reactions import trouble

# Slow: real watchfiles events, waited for.
pytestmark = pytest.mark.slow


def claude_line(n: int) -> str:
    """One Claude Code record; a file ending in part of one is still being written."""
    return (
        '{"type":"user","sessionId":"11111111-2222-3333-4444-555555555555",'
        f'"uuid":"u{n}","timestamp":"2026-01-01T00:00:0{n}Z",'
        f'"message":{{"role":"user","content":"hello {n}"}}}}\n'
    )


def talk(n: int) -> str:
    return raw_note(
        ("user", f"How do I rotate the logs of service {n}?"),
        ("assistant", f"Keep five files of one megabyte for service {n}."),
        title=f"Logs {n}",
    )


def status_of(ledger: Ledger, rel: str) -> str | None:
    row = ledger.db.execute("SELECT status FROM raw_files WHERE path = ?", (rel,)).fetchone()
    return None if row is None else str(row[0])


def test_a_dropped_transcript_is_ingested_at_once(vault: Vault, ledger: Ledger) -> None:
    with watched(vault) as w:
        start = time.monotonic()
        drop(vault, "bread.md", talk(1))
        wait_for(lambda: status_of(ledger, "Raw/bread.md") == "ok", 5)
        took = time.monotonic() - start
        assert w.reaction(lambda r: r.path == "Raw/bread.md").outcome == "ingested"
    assert took < 5


def test_a_file_written_in_two_halves_is_ingested_once_whole(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = spy_ingest(monkeypatch)
    first, second = claude_line(1), claude_line(2)
    path = vault.raw / "session.jsonl"
    with watched(vault):
        with path.open("w", encoding="utf-8") as f:
            f.write(first + second[:40])
            f.flush()
            time.sleep(0.8)
            f.write(second[40:])
        wait_for(lambda: status_of(ledger, "Raw/session.jsonl") == "ok")
    count = ledger.db.execute("SELECT message_count FROM conversations").fetchall()
    assert [tuple(r) for r in count] == [(2,)]
    # Looked at while cut off (left pending), stored once: never half of it first.
    assert [r.messages_added for r in spy.reports if r.ingested] == [2]


def test_a_bad_file_is_a_problem_and_the_next_good_file_still_goes_in(
    vault: Vault, ledger: Ledger
) -> None:
    with watched(vault) as w:
        drop(vault, "broken.jsonl", b"\x00\x01\x02 not a transcript \xff\xfe")
        bad = w.reaction(lambda r: r.path == "Raw/broken.jsonl")
        drop(vault, "good.md", talk(2))
        wait_for(lambda: status_of(ledger, "Raw/good.md") == "ok")
        assert w.alive()
    assert bad.problem
    assert status_of(ledger, "Raw/broken.jsonl") == "failed"


def test_a_file_that_reads_too_long_is_given_up_and_the_next_file_still_goes_in(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    long_chat = tmp_path / "long-chat.md"
    with long_chat.open("w", encoding="utf-8") as f:
        FORMATS["markdown"](f, 8 * 1024 * 1024)
    started = time.perf_counter()
    read_transcript(long_chat)
    whole = time.perf_counter() - started
    (vault.state / "config.toml").write_text(
        f"raw_read_timeout_s = {whole / 10}\n", encoding="utf-8"
    )
    with watched(vault) as w:
        shutil.copy(long_chat, vault.raw / "long-chat.md")
        slow = w.reaction(lambda r: r.path == "Raw/long-chat.md")
        drop(vault, "good.md", talk(2))
        wait_for(lambda: status_of(ledger, "Raw/good.md") == "ok")
    assert slow.problem
    assert f"reading it took over {whole / 10:g} s" in slow.outcome
    assert status_of(ledger, "Raw/long-chat.md") == "failed"


def test_a_file_over_the_size_setting_is_skipped_by_the_watcher_too(
    vault: Vault, ledger: Ledger
) -> None:
    (vault.state / "config.toml").write_text("max_raw_file_mb = 1\n", encoding="utf-8")
    with watched(vault) as w:
        drop(vault, "big.md", talk(1) + "x" * (1024 * 1024))
        big = w.reaction(lambda r: r.path == "Raw/big.md")
    assert big.problem
    assert "over the 1 MB limit" in big.outcome


def test_a_burst_of_a_thousand_files_is_ingested_each_exactly_once(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = spy_ingest(monkeypatch)
    folder = vault.raw / "burst"
    with watched(vault):
        folder.mkdir()
        for n in range(1000):
            (folder / f"b-{n:04d}.md").write_text(talk(n), encoding="utf-8")

        def all_in() -> bool:
            row = ledger.db.execute(
                "SELECT count(*) FROM raw_files WHERE status = 'ok' AND path LIKE 'Raw/burst/%'"
            ).fetchone()
            return int(row[0]) == 1000

        wait_for(all_in, 90)
    assert ledger.db.execute("SELECT count(*) FROM conversations").fetchone()[0] == 1000
    assert {spy.times(f"b-{n:04d}.md") for n in range(1000)} == {1}
    # Batched: far fewer INGEST calls than files.
    assert len(spy.calls) < 100


def test_a_file_deleted_from_raw_is_forgotten(vault: Vault, ledger: Ledger) -> None:
    with watched(vault) as w:
        path = drop(vault, "bread.md", talk(1))
        wait_for(lambda: status_of(ledger, "Raw/bread.md") == "ok")
        path.unlink()
        w.reaction(lambda r: r.path == "Raw/bread.md" and "forgot" in r.outcome)
    assert status_of(ledger, "Raw/bread.md") is None
    assert ledger.db.execute("SELECT count(*) FROM conversations").fetchone()[0] == 1


def test_raw_replaced_by_a_file_is_said_once_and_a_recreated_raw_works_again(
    vault: Vault, ledger: Ledger
) -> None:
    with watched(vault) as w:
        shutil.rmtree(vault.raw)
        vault.raw.write_text("oops", encoding="utf-8")
        w.reaction(lambda r: r.path == "Raw" and r.problem and "is a file" in r.outcome)
        time.sleep(0.5)
        vault.raw.unlink()
        vault.raw.mkdir()
        drop(vault, "bread.md", talk(1))
        wait_for(lambda: status_of(ledger, "Raw/bread.md") == "ok")
        assert w.alive()
        problems = [r for r in w.said if r.path == "Raw" and r.problem]
    assert len({r.outcome for r in problems}) == len(problems)


def test_files_already_in_raw_at_the_start_are_ingested(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "before.md", talk(1))
    with watched(vault):
        wait_for(lambda: status_of(ledger, "Raw/before.md") == "ok")


def test_editor_temp_files_are_ignored(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = spy_ingest(monkeypatch)
    with watched(vault) as w:
        for name in (".bread.md.swp", "bread.md~", "4913", "bread.md.crdownload", ".#bread.md"):
            drop(vault, name, talk(1))
        drop(vault, "bread.md", talk(1))
        wait_for(lambda: status_of(ledger, "Raw/bread.md") == "ok")
        said = w.said
    assert [name for call in spy.calls for name in call] == ["bread.md"]
    assert [r.path for r in said] == ["Raw/bread.md"]


def test_the_loop_returns_within_a_second_of_the_stop_event(vault: Vault) -> None:
    with watched(vault) as w:
        assert w.close() < 1.0


def test_a_full_disk_is_said_as_such() -> None:
    said = trouble(OSError(errno.ENOSPC, "No space left on device", "/v/STATION.md"))
    assert "disk is full" in said
    assert "nothing was overwritten" in said
    full = ledger_error(
        Path("/v/ledger.sqlite"), sqlite3.OperationalError("database or disk is full")
    )
    assert "disk is full" in trouble(full)
    assert trouble(GitError("/v: a rebase is in progress")) == "/v: a rebase is in progress"


def test_a_fault_in_dreaming_is_said_in_one_line_and_its_traceback_kept(vault: Vault) -> None:
    try:
        raise KeyError("a bug")
    except KeyError as e:
        said = trouble(e, vault)
    assert said == (
        "internal error on it (KeyError); please report it with .dreaming/logs/internal.log; "
        "your file is untouched: save it again"
    )
    assert "a bug" in (vault.logs / "internal.log").read_text(encoding="utf-8")


def test_a_card_saved_while_the_watch_starts_is_committed(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The save lands after the watcher's first look at the person's edits and before
    # its watch is in place, so no event ever tells of it: only a second look does.
    card = vault.root / "STATION.md"
    mine = card.read_bytes().replace(b"(none yet)", b"saved as the watch began")
    real = watchfiles.watch

    def saved_first(*args: object, **kwargs: object) -> object:
        card.write_bytes(mine)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(watchfiles, "watch", saved_first)
    repo = VaultRepo(vault.root)
    with watched(vault, lock_grace=0.3):
        wait_for(lambda: repo.dirty_paths() == [])
    theirs = [
        c.tree["STATION.md"].data_stream.read()
        for c in repo.repo.iter_commits("HEAD", paths="STATION.md")
        if c.author.name != PIPELINE_AUTHOR.name
    ]
    assert theirs[0] == mine, "the save is committed as the person's"
