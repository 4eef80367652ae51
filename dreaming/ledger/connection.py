"""The ledger: pipeline progress plus a cache derived from the vault (SQLite).

Two kinds of tables live here. The synthesis ledger (raw files,
conversations, messages, chunks, work, subjects, buckets, watermarks, runs,
model calls, gate rejections) is authoritative pipeline progress and cannot
be rebuilt from the vault. The derived tables (the article index, aliases,
categories, infobox facts, links) are a cache of the articles; `dreaming
reindex` drops and rebuilds exactly those.

This module opens the database and runs the migrations; the queries live in
one module per concern beside it.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dreaming.errors import LedgerError, LedgerUnavailable
from dreaming.ledger.migrations import MIGRATIONS
from dreaming.ledger.writer import PATIENCE_S, Notice, WriterLock

_WAL_PATIENCE_S = 30.0
SYNCHRONOUS = "NORMAL"
"""How hard SQLite syncs a commit: in WAL mode a power cut may lose the last ones, never
the database; a commit that must survive one asks for FULL (`write_journal.record`)."""
_BATCH = 500
"""Values bound in one `IN (...)`: well under SQLite's smallest variable limit (999)."""


class _Guarded(sqlite3.Connection):
    """A connection whose statements fail as `LedgerError`: the ledger's edge, so no
    `sqlite3.Error` reaches a stage or the watcher. Off while the ledger is opened,
    where the raw errors are told apart (a locked file is waited out).

    Every write takes the ledger's writer lock (`writer.py`) first and lets it go when
    SQLite's own write lock goes: a transaction from its `BEGIN IMMEDIATE` to its end, a
    write outside one for that statement."""

    ledger_path: Path = Path()
    guarded = False
    writer: WriterLock | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        try:
            self._lock_for(sql)
            return super().execute(sql, *args)
        except sqlite3.Error as e:
            if not self.guarded:
                raise
            raise ledger_error(self.ledger_path, e) from e
        finally:
            self._unlock_after()

    def executemany(self, sql: str, rows: Iterable[Any], /) -> sqlite3.Cursor:
        try:
            self._lock_for(sql)
            return super().executemany(sql, rows)
        except sqlite3.Error as e:
            if not self.guarded:
                raise
            raise ledger_error(self.ledger_path, e) from e
        finally:
            self._unlock_after()

    def _lock_for(self, sql: str) -> None:
        if self.writer is None or self.writer.held:
            return
        if sql.lstrip()[:7].upper().startswith(_WRITES) and not self.in_transaction:
            self.writer.acquire()

    def _unlock_after(self) -> None:
        if self.writer is not None and self.writer.held and not self.in_transaction:
            self.writer.release()


_WRITES = ("BEGIN", "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")
"""What a statement that needs SQLite's write lock starts with (ours: no CTE writes)."""


def ledger_error(path: Path, e: sqlite3.Error) -> LedgerError:
    """One line for what SQLite said, with what to do."""
    if isinstance(e, sqlite3.OperationalError):
        said = str(e)
        if "full" in said:
            return LedgerUnavailable(
                f"{path}: the disk is full; nothing was lost: free some space, then retry"
            )
        if any(word in said for word in _THE_FILE_ITSELF):
            return _operational(path, e)
    if any(word in str(e) for word in ("not a database", "malformed", "corrupt")):
        return LedgerError(
            f"{path}: the ledger is damaged ({e}); move the file aside and run "
            "`dreaming ingest` and `dreaming reindex` to start a new one"
        )
    return LedgerError(f"{path}: {e}; this is a fault in dreaming: please report it")


def _enter_wal(db: sqlite3.Connection) -> None:
    """Switch to WAL, waiting out other processes doing the same.

    Changing the journal mode needs an exclusive lock, and SQLite answers
    "database is locked" at once, without its busy handler, when another
    connection is opening or converting the same new file. So retry here,
    for as long as an ordinary busy wait would last.
    """
    deadline = time.monotonic() + _WAL_PATIENCE_S
    pause = 0.005
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


class Ledger:
    """One SQLite connection to a vault's ledger. Not shared across threads."""

    def __init__(
        self,
        path: Path,
        *,
        read_only: bool = False,
        command: str = "dreaming",
        notice: Notice | None = None,
        patience: float = PATIENCE_S,
    ) -> None:
        """Open (and create, and migrate) the ledger at `path`.

        `read_only` opens an existing ledger for reading only: a missing file
        is an error instead of a new ledger, and nothing is migrated, so a
        reader (the audit) can never change or create the ledger it checks.
        A writer names itself `command` in the write lock, waits `patience`
        seconds for another holder and says so through `notice` (`writer.py`).
        """
        self.path = path
        _refuse_links(path)
        self.writer: WriterLock | None = None
        try:
            self._open(read_only, command, notice, patience)
        except BaseException:
            if self.writer is not None:
                self.writer.close()
            raise

    def _open(self, read_only: bool, command: str, notice: Notice | None, patience: float) -> None:
        path = self.path
        try:
            if read_only:
                uri = f"{path.absolute().as_uri()}?mode=ro"
                self.db = self._guard(
                    sqlite3.connect(
                        uri, uri=True, timeout=30, isolation_level=None, factory=_Guarded
                    )
                )
                self.db.row_factory = sqlite3.Row
                self._check_current()
                self.db.guarded = True
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._guard(
                sqlite3.connect(path, timeout=30, isolation_level=None, factory=_Guarded)
            )
            self.db.row_factory = sqlite3.Row
            self.writer = self.db.writer = WriterLock(
                path, command=command, patience=patience, notice=notice
            )
            _enter_wal(self.db)
            self.db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            self.db.guarded = True
        except sqlite3.OperationalError as e:
            raise _operational(path, e) from e
        except sqlite3.DatabaseError as e:
            raise LedgerError(
                f"{path}: the ledger is damaged ({e}); move the file aside and run "
                "`dreaming ingest` and `dreaming reindex` to start a new one"
            ) from e

    def _guard(self, db: sqlite3.Connection) -> _Guarded:
        assert isinstance(db, _Guarded)
        db.ledger_path = self.path
        return db

    def close(self) -> None:
        self.db.close()
        if self.writer is not None:
            self.writer.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        row = self.db.execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _check_current(self) -> None:
        have = self.version
        if have == len(MIGRATIONS):
            return
        self.db.close()
        if have > len(MIGRATIONS):
            raise LedgerError(
                f"{self.path}: made by a newer dreaming (schema {have}); upgrade dreaming"
            )
        raise LedgerError(
            f"{self.path}: an older schema ({have}); run `dreaming status` once to migrate it"
        )

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

    def each_in(self, sql: str, values: Sequence[object], *before: object) -> Iterator[sqlite3.Row]:
        """The rows of `sql` for every value of `values`: `sql` holds one `IN ({marks})`
        and `before` are the parameters ahead of it. Runs in batches SQLite's limit on
        variables allows, so a list of any length is one call."""
        for start in range(0, len(values), _BATCH):
            batch = list(values[start : start + _BATCH])
            marks = ",".join("?" * len(batch))
            yield from self.db.execute(sql.format(marks=marks), (*before, *batch))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; rolled back on any exception."""
        in_tx = self.db.in_transaction
        if not in_tx:
            self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if not in_tx and self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        else:
            if not in_tx and self.db.in_transaction:
                self.db.execute("COMMIT")

    @contextmanager
    def savepoint(self, name: str) -> Iterator[None]:
        """Inside a transaction: undo only this block's writes if it raises.

        A failure of the database itself (locked, disk full) is left to the
        enclosing transaction, which rolls everything back.
        """
        self.db.execute(f"SAVEPOINT {name}")
        try:
            yield
        except LedgerUnavailable:
            raise
        except BaseException:
            self.db.execute(f"ROLLBACK TO {name}")
            self.db.execute(f"RELEASE {name}")
            raise
        self.db.execute(f"RELEASE {name}")

    def commit_and_continue(self) -> None:
        """Inside a long transaction: make what is done durable and carry on."""
        if self.db.in_transaction:
            self.db.execute("COMMIT")
            self.db.execute("BEGIN IMMEDIATE")


_THE_FILE_ITSELF = ("locked", "busy", "I/O", "readonly", "unable to open", "permission")
"""What SQLite says when the file, not the statement, is the trouble."""


def _operational(path: Path, e: sqlite3.OperationalError) -> LedgerError:
    if "locked" in str(e) or "busy" in str(e):
        return LedgerUnavailable(
            f"{path}: another dreaming process is writing the ledger; "
            "wait for it to finish or stop it, then retry"
        )
    return LedgerUnavailable(
        f"{path}: cannot open the ledger ({e}); check the folder's permissions"
    )


def _statements(script: str) -> list[str]:
    """Split a migration into statements (ours hold no `;` inside literals or triggers)."""
    return [s.strip() for s in script.split(";") if s.strip() and not _only_comments(s)]


def _only_comments(sql: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in sql.splitlines())


def _refuse_links(path: Path) -> None:
    """SQLite opens (and creates) a link's target without a word: the ledger and the
    files SQLite keeps beside it must be real files, never a way out of the vault."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        each = path.with_name(path.name + suffix)
        if os.path.islink(each):
            raise LedgerError(
                f"{each}: a link; dreaming keeps its ledger only in real files, "
                "so delete the link, then run again"
            )
