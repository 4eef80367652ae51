from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from dreaming.errors import LedgerError, LedgerUnavailable
from dreaming.ledger import MIGRATIONS, Ledger, raw_files, watermarks
from dreaming.ledger.raw_files import RawFile


def test_a_new_ledger_runs_every_migration(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as led:
        assert led.version == len(MIGRATIONS)


def test_reopening_runs_no_migration_twice(tmp_path: Path) -> None:
    Ledger(tmp_path / "l.sqlite").close()
    with Ledger(tmp_path / "l.sqlite") as led:
        assert led.version == len(MIGRATIONS)
        tables = {r[0] for r in led.db.execute("SELECT name FROM sqlite_master")}
        assert {"conversations", "messages", "chunks", "runs", "model_calls"} <= tables


def test_the_ledger_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as led:
        assert led.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert led.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_deleting_a_conversation_deletes_its_messages(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as led, led.transaction() as db:
        db.execute(
            "INSERT INTO conversations(id, hash8, source, file, message_count, content_sha, "
            "ingested_at) VALUES ('c', 'c', 'raw', 'f', 1, 's', 'now')"
        )
        db.execute("INSERT INTO messages VALUES ('c', 0, 'user', 'hi', NULL)")
        db.execute("DELETE FROM conversations WHERE id = 'c'")
        assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


def test_a_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as led:

        def fail_midway() -> None:
            with led.transaction() as db:
                db.execute("INSERT INTO watermarks VALUES ('w', 'v', 'now')")
                raise RuntimeError("boom")

        with pytest.raises(RuntimeError):
            fail_midway()
        assert watermarks.get(led, "w") is None


def test_a_ledger_from_a_newer_dreaming_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(LedgerError, match="newer dreaming"):
        Ledger(path)


def test_a_corrupt_ledger_file_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerError, match="damaged"):
        Ledger(path)


def _open_and_report(path: str) -> int:
    with Ledger(Path(path)) as led:
        return led.version


def test_processes_opening_a_new_ledger_at_once_all_succeed(tmp_path: Path) -> None:
    from concurrent.futures import ProcessPoolExecutor

    path = str(tmp_path / "l.sqlite")
    with ProcessPoolExecutor(4) as pool:
        versions = list(pool.map(_open_and_report, [path] * 8))
    assert versions == [len(MIGRATIONS)] * 8


def test_a_ledger_held_by_another_writer_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    Ledger(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with Ledger(path) as led:
            led.db.execute("PRAGMA busy_timeout = 50")
            with pytest.raises(LedgerError, match="another dreaming process"), led.transaction():
                pass
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_failed_savepoint_undoes_only_its_own_writes(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as led:
        with led.transaction():
            watermarks.put(led, "kept", "1", "now")

            def fail_midway() -> None:
                with led.savepoint("one"):
                    watermarks.put(led, "undone", "2", "now")
                    raise RuntimeError("boom")

            with pytest.raises(RuntimeError):
                fail_midway()
            with led.savepoint("two"):
                watermarks.put(led, "also kept", "3", "now")
        assert [watermarks.get(led, n) for n in ("kept", "undone", "also kept")] == ["1", None, "3"]


def test_a_lookup_of_more_values_than_sqlite_binds_at_once_sees_them_all(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path / "l.sqlite") as led:
        wanted = [f"{n:08x}" for n in range(2500)]
        rows = led.each_in("SELECT value FROM json_each(?) WHERE value IN ({marks})", wanted, "[]")
        assert list(rows) == []
        rows = led.each_in(
            "SELECT value FROM json_each(?) WHERE value IN ({marks})",
            wanted,
            json.dumps(wanted[::7]),
        )
        assert sorted(r[0] for r in rows) == sorted(wanted[::7])


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (None, True),
        (RawFile("Raw/a.md", 10, 5, "sha", "raw", "ok", None), False),
        (RawFile("Raw/a.md", 11, 5, "sha", "raw", "ok", None), True),
        (RawFile("Raw/a.md", 10, 6, "sha", "raw", "ok", None), True),
        (RawFile("Raw/a.md", 10, 5, "", None, "pending", "still being written"), True),
        (RawFile("Raw/a.md", 10, 5, "", None, "failed", "not a transcript"), False),
    ],
)
def test_the_raw_watermark_reads_a_file_new_changed_or_pending(
    row: RawFile | None, expected: bool
) -> None:
    assert raw_files.unread_since(row, 10, 5) is expected


def test_a_fault_in_a_statement_leaves_the_ledger_as_a_ledger_error(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        with pytest.raises(LedgerError, match="no such table: nowhere; this is a fault") as e:
            ledger.db.execute("SELECT * FROM nowhere")
        assert isinstance(e.value.__cause__, sqlite3.OperationalError)
        assert not isinstance(e.value, LedgerUnavailable)


def test_a_ledger_another_process_holds_is_unavailable_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Ledger(path) as ledger, Ledger(path, patience=0) as other, ledger.transaction():
        watermarks.put(ledger, "a", "b", "2026-01-01T00:00:00+00:00")
        with pytest.raises(LedgerUnavailable, match="which is still writing the ledger"):
            other.db.execute("BEGIN IMMEDIATE")
