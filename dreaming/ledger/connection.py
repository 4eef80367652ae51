"""The ledger: pipeline progress plus a cache derived from the vault (SQLite).

Two kinds of tables live here. The synthesis ledger (raw files,
conversations, messages, chunks, watermarks, runs, model calls) is
authoritative pipeline progress and cannot be rebuilt from the vault. The
derived tables (entities, aliases, categories, infobox facts, links) are a
cache of the articles; `dreaming reindex` drops and rebuilds exactly those.

Schema changes are an ordered list of migrations; `PRAGMA user_version`
records how many have run. Never edit a shipped migration: append one.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dreaming.errors import LedgerError

MIGRATIONS: tuple[str, ...] = (
    # 1: ingest ledger
    """
    CREATE TABLE raw_files (
        path TEXT PRIMARY KEY,            -- vault-relative POSIX path
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        source TEXT,
        status TEXT NOT NULL CHECK (status IN ('ok', 'empty', 'failed', 'pending')),
        reason TEXT,
        conversations INTEGER NOT NULL DEFAULT 0,
        redactions INTEGER NOT NULL DEFAULT 0,
        ingested_at TEXT NOT NULL
    );
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,              -- the source's own id, else a content hash
        hash8 TEXT NOT NULL,              -- the conv:HASH citation key
        source TEXT NOT NULL,
        file TEXT NOT NULL,               -- the Raw file holding the fullest copy
        parent_id TEXT,                   -- a subagent's parent session
        title TEXT,
        created_at TEXT,
        updated_at TEXT,
        message_count INTEGER NOT NULL,
        content_sha TEXT NOT NULL,
        ingested_at TEXT NOT NULL,
        chunked_at TEXT                   -- NULL or older than ingested content: re-segment
    );
    CREATE INDEX conversations_hash8 ON conversations(hash8);
    CREATE INDEX conversations_updated ON conversations(updated_at);
    CREATE TABLE messages (
        conv_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        ts TEXT,
        PRIMARY KEY (conv_id, position)
    ) WITHOUT ROWID;
    CREATE TABLE file_conversations (
        path TEXT NOT NULL REFERENCES raw_files(path) ON DELETE CASCADE,
        conv_id TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        content_sha TEXT NOT NULL,
        PRIMARY KEY (path, conv_id)
    ) WITHOUT ROWID;
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,              -- "<conv>:<start>-<end>", deterministic
        conv_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        label TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX chunks_conv ON chunks(conv_id, start);
    CREATE TABLE watermarks (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL DEFAULT 'running',
        summary TEXT                      -- JSON
    );
    """,
    # 2: derived cache of the articles (rebuilt by reindex)
    """
    CREATE TABLE entities (
        stem TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        kind TEXT,
        type TEXT,
        lead TEXT,
        is_redirect INTEGER NOT NULL DEFAULT 0,
        redirect_to TEXT,
        checksum TEXT NOT NULL
    );
    CREATE TABLE entity_aliases (
        alias TEXT NOT NULL,              -- casefolded
        stem TEXT NOT NULL,
        PRIMARY KEY (alias, stem)
    ) WITHOUT ROWID;
    CREATE TABLE categories (name TEXT PRIMARY KEY);
    CREATE TABLE article_categories (
        stem TEXT NOT NULL,
        category TEXT NOT NULL,
        PRIMARY KEY (stem, category)
    ) WITHOUT ROWID;
    CREATE TABLE infobox_facts (
        stem TEXT NOT NULL,
        position INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (stem, position)
    ) WITHOUT ROWID;
    CREATE TABLE links (
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        via TEXT NOT NULL,                -- prose | infobox | seealso | series | main | redirect
        PRIMARY KEY (src, dst, via)
    ) WITHOUT ROWID;
    """,
    # 3: model accounting
    """
    CREATE TABLE model_calls (
        id INTEGER PRIMARY KEY,
        run_id TEXT,
        stage TEXT NOT NULL,
        unit TEXT,
        model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        generated_tokens INTEGER NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        error TEXT,
        at TEXT NOT NULL
    );
    CREATE INDEX model_calls_run ON model_calls(run_id, stage);
    """,
)

DERIVED_TABLES = (
    "entities",
    "entity_aliases",
    "categories",
    "article_categories",
    "infobox_facts",
    "links",
)


class Ledger:
    """One SQLite connection to a vault's ledger. Not shared across threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.OperationalError as e:
            raise _operational(path, e) from e
        except sqlite3.DatabaseError as e:
            raise LedgerError(
                f"{path}: the ledger is damaged ({e}); move the file aside and run "
                "`dreaming ingest` and `dreaming reindex` to start a new one"
            ) from e

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        row = self.db.execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        if self.version == len(MIGRATIONS):
            return
        # Under the write lock, read the version again: another process opening
        # the same ledger may have migrated it meanwhile.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            have = self.version
            if have > len(MIGRATIONS):
                raise LedgerError(
                    f"{self.path}: made by a newer dreaming (schema {have}); upgrade dreaming"
                )
            for number, script in enumerate(MIGRATIONS[have:], start=have + 1):
                for statement in _statements(script):
                    self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {number}")
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; rolled back on any exception."""
        in_tx = self.db.in_transaction
        if not in_tx:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:
                raise _operational(self.path, e) from e
        try:
            yield self.db
        except BaseException:
            if not in_tx and self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        else:
            if not in_tx and self.db.in_transaction:
                self.db.execute("COMMIT")

    def commit_and_continue(self) -> None:
        """Inside a long transaction: make what is done durable and carry on."""
        if self.db.in_transaction:
            self.db.execute("COMMIT")
            self.db.execute("BEGIN IMMEDIATE")

    def get_watermark(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM watermarks WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_watermark(self, name: str, value: str, now: str) -> None:
        self.db.execute(
            "INSERT INTO watermarks(name, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at",
            (name, value, now),
        )


def _operational(path: Path, e: sqlite3.OperationalError) -> LedgerError:
    if "locked" in str(e) or "busy" in str(e):
        return LedgerError(
            f"{path}: another dreaming process is writing the ledger; "
            "wait for it to finish or stop it, then retry"
        )
    return LedgerError(f"{path}: cannot open the ledger ({e}); check the folder's permissions")


def _statements(script: str) -> list[str]:
    """Split a migration into statements (ours hold no `;` inside literals or triggers)."""
    return [s.strip() for s in script.split(";") if s.strip() and not _only_comments(s)]


def _only_comments(sql: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in sql.splitlines())


def messages_sha(messages: Iterable[tuple[str, str, str | None]]) -> str:
    """A digest of (role, text, timestamp) triples: equal digests, equal conversations."""
    h = hashlib.sha256()
    for role, text, ts in messages:
        h.update(role.encode())
        h.update(b"\0")
        h.update(text.encode())
        h.update(b"\0")
        h.update((ts or "").encode())
        h.update(b"\x1e")
    return h.hexdigest()
