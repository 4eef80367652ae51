"""A ledger made by the current release (schema 3) opens with this code and keeps every row."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreaming.checks.status import status
from dreaming.ledger import MIGRATIONS, Ledger, conversations, raw_files, runs

SHIPPED = 3
# sha256 of migrations 1-3 as released: a shipped migration is never edited.
SHIPPED_SHA256 = (
    "710a7618dc9f98a092202d8d323a0a346d92680ad55bc34229f2f67653896ea3",
    "4ecb3679ea25dc7b74c312e5f6c2402df0a9a50d1c9a07bcbef982c2028378fd",
    "57b20fdd3c119c2f7a79a24fae0321d160b75caf1d5ef7b6cfab00550fc9a073",
)

T0 = "2026-03-01T10:00:00+00:00"
T1 = "2026-03-02T03:00:00+00:00"

RELEASE_ROWS: dict[str, list[tuple[object, ...]]] = {
    "raw_files": [
        ("Raw/a.jsonl", 2048, 1_700_000_000_000_000_000, "aa" * 32, "claude-code", "ok", None,
         1, 1, T0),
        ("Raw/copy.md", 90, 1_700_000_000_000_000_001, "bb" * 32, "raw", "ok", None, 1, 0, T0),
        ("Raw/empty.md", 3, 1_700_000_000_000_000_002, "cc" * 32, None, "empty",
         "no conversation in this file", 0, 0, T0),
        ("Raw/bad.json", 10, 0, "", None, "failed", "not JSON at line 1; re-export it", 0, 0,
         T0),
        ("Raw/half.jsonl", 20, 1_700_000_000_000_000_003, "", None, "pending",
         "still being written; it will be read once it stops changing", 0, 0, T0),
    ],
    "conversations": [
        ("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", "8e7f6a5b", "claude-code", "Raw/a.jsonl",
         None, "Bread", T0, T0, 3, "d1" * 32, T0, None),
        ("0a1b2c3d", "0a1b2c3d", "claude-code", "Raw/a.jsonl",
         "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", "subagent", T0, T0, 1, "d2" * 32, T0, T1),
    ],
    "messages": [
        ("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 0, "user", "How do I keep bread?", T0),
        ("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 1, "assistant", "Freeze it.", None),
        ("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 2, "tool", "[tool result]", None),
        ("0a1b2c3d", 0, "system", "You are a helper.", None),
    ],
    "file_conversations": [
        ("Raw/a.jsonl", "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 3, "d1" * 32),
        ("Raw/a.jsonl", "0a1b2c3d", 1, "d2" * 32),
        ("Raw/copy.md", "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 2, "d3" * 32),
    ],
    "chunks": [
        ("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b:0-1", "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b", 0, 1,
         "keeping bread fresh", T1),
    ],
    "watermarks": [("claude-code", "2026-03-01", T0)],
    "runs": [
        ("r1", "ingest", T0, T0, "ok", '{"files": 5, "ingested": 2}'),
        ("r2", "ingest", T0, T0, "ok", '{"files": 5, "ingested": 0}'),
    ],
    "model_calls": [
        (1, "r1", "extract", "chunk-1", "gguf:qwen", 100, 20, 10, 1.5, None, T0),
        (2, "gone", "extract", "chunk-2", "gguf:qwen", 50, 0, 5, 0.5, "timed out", T0),
        (3, None, "probe", None, "gguf:qwen", 1, 0, 1, 0.1, None, T0),
    ],
    "entities": [
        ("Sourdough", "Sourdough", "thing", None, "A bread.", 0, None, "e1" * 32),
        ("Levain", "Levain", None, None, "", 1, "Sourdough", "e2" * 32),
    ],
    "entity_aliases": [("sourdough", "Sourdough"), ("levain", "Levain")],
    "categories": [("Bread",)],
    "article_categories": [("Sourdough", "Bread")],
    "infobox_facts": [("Sourdough", 0, "kind", "thing")],
    "links": [("Levain", "Sourdough", "redirect"), ("Sourdough", "Rye_Flour", "prose")],
}  # fmt: skip


def release_ledger(path: Path) -> None:
    """A ledger as the current release leaves it: migrations 1-3 and the rows it writes."""
    db = sqlite3.connect(path)
    for script in MIGRATIONS[:SHIPPED]:
        db.executescript(script)
    db.execute(f"PRAGMA user_version = {SHIPPED}")
    for table, rows in RELEASE_ROWS.items():
        marks = ",".join("?" * len(rows[0]))
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    db.commit()
    db.close()


def rows(led: Ledger, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in led.db.execute(sql)]


@pytest.fixture
def migrated(tmp_path: Path) -> Iterator[Ledger]:
    path = tmp_path / "ledger.sqlite"
    release_ledger(path)
    with Ledger(path) as led:
        yield led


def test_shipped_migrations_are_never_edited() -> None:
    digests = tuple(hashlib.sha256(m.encode()).hexdigest() for m in MIGRATIONS[:SHIPPED])
    assert digests == SHIPPED_SHA256


def test_a_release_ledger_migrates_to_the_current_schema(migrated: Ledger) -> None:
    assert migrated.version == len(MIGRATIONS)
    assert rows(migrated, "PRAGMA foreign_key_check") == []
    assert rows(migrated, "PRAGMA integrity_check") == [("ok",)]


@pytest.mark.parametrize(
    "table",
    ["messages", "file_conversations", "watermarks", "categories",
     "article_categories", "infobox_facts", "links"],
)  # fmt: skip
def test_every_untouched_table_keeps_its_rows(migrated: Ledger, table: str) -> None:
    assert sorted(rows(migrated, f"SELECT * FROM {table}")) == sorted(RELEASE_ROWS[table])


def test_raw_files_keep_their_rows_with_no_control_character_counted(migrated: Ledger) -> None:
    assert sorted(rows(migrated, "SELECT * FROM raw_files")) == sorted(
        (*r, 0) for r in RELEASE_ROWS["raw_files"]
    )


def test_conversations_keep_their_rows_without_the_chunked_at_column(migrated: Ledger) -> None:
    assert sorted(rows(migrated, "SELECT * FROM conversations")) == sorted(
        r[:-1] for r in RELEASE_ROWS["conversations"]
    )


def test_the_article_cache_is_renamed_with_its_rows(migrated: Ledger) -> None:
    assert sorted(rows(migrated, "SELECT * FROM article_index")) == sorted(RELEASE_ROWS["entities"])
    assert sorted(rows(migrated, "SELECT * FROM article_aliases")) == sorted(
        RELEASE_ROWS["entity_aliases"]
    )
    names = {r[0] for r in rows(migrated, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert not names & {"entities", "entity_aliases"}


def test_runs_keep_their_rows_and_order_and_gain_no_commit(migrated: Ledger) -> None:
    assert rows(
        migrated, "SELECT id, kind, started_at, finished_at, status, summary FROM runs"
    ) == [tuple(r) for r in RELEASE_ROWS["runs"]]
    assert rows(migrated, "SELECT commit_sha FROM runs") == [(None,), (None,)]
    last = runs.last(migrated)
    assert last is not None
    assert last.id == "r2"


def test_a_model_call_of_an_unknown_run_keeps_its_row_without_the_run(migrated: Ledger) -> None:
    assert rows(migrated, "SELECT id, run_id, error FROM model_calls ORDER BY id") == [
        (1, "r1", None),
        (2, None, "timed out"),
        (3, None, None),
    ]
    assert sorted(r[2:] for r in rows(migrated, "SELECT * FROM model_calls")) == sorted(
        r[2:] for r in RELEASE_ROWS["model_calls"]
    )


def test_old_chunks_keep_their_range_and_are_marked_unversioned(migrated: Ledger) -> None:
    assert rows(
        migrated,
        "SELECT id, first_message, last_message, label, input_hash, segmenter_version FROM chunks",
    ) == [("8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b:0-1", 0, 1, "keeping bread fresh", "", "")]


def test_the_migrated_ledger_reads_as_before(migrated: Ledger) -> None:
    doc = status(migrated)
    assert (doc["conversations"], doc["messages"], doc["articles"]) == (2, 4, 2)
    assert doc["files"] == {"total": 5, "ok": 2, "empty": 1, "failed": 1, "pending": 1}
    assert doc["model_usage"]["extract"]["calls"] == 2
    assert conversations.superseded(migrated) == []
    held = conversations.get(migrated, "0a1b2c3d")
    assert held is not None
    assert held.file == "Raw/a.jsonl"
    assert raw_files.get(migrated, "Raw/bad.json") is not None


def test_a_migrated_ledger_opens_again_without_migrating(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    release_ledger(path)
    Ledger(path).close()
    with Ledger(path) as led:
        assert led.version == len(MIGRATIONS)
        assert len(rows(led, "SELECT * FROM model_calls")) == 3


def test_runs_from_before_the_pace_was_kept_have_no_pace(migrated: Ledger) -> None:
    assert rows(migrated, "SELECT taken_conversations, model_seconds FROM runs") == [
        (None, None),
        (None, None),
    ]
    assert runs.measured(migrated) == []
