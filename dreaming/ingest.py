"""INGEST: Raw files → conversations and messages in the ledger.

Each Raw file is size-checked and sniffed before it is read, parsed by its format's
reader (a JSONL session is streamed), redacted, and stored; a file too large, a link
leaving the vault or a hidden file is reported and skipped unread. A file is skipped
without being read when its size and mtime match the ledger (the per-file watermark),
so re-ingesting an unchanged Raw/ writes nothing. A grown session updates its conversation in
place. A file still being written is left for the next pass, never
half-ingested. A bad file is recorded with a one-line reason and the rest goes on.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path

from dreaming.errors import IncompleteTranscript, TranscriptError
from dreaming.ledger import Ledger, messages_sha
from dreaming.raw import read_transcript, too_large
from dreaming.raw.common import MAX_BYTES
from dreaming.raw.types import Conversation, content_id
from dreaming.rawfiles import import_into_raw, leaves_vault, not_a_candidate, raw_files, sha256
from dreaming.vault import Vault

Progress = Callable[[int, int, str], None]
"""progress(done, total, current vault-relative path)."""

BATCH_BYTES = 8 * 1024 * 1024
PENDING_GRACE_SECONDS = 600


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class IngestReport:
    files: int = 0
    unchanged: int = 0
    ingested: int = 0
    empty: int = 0
    pending: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    conversations_new: int = 0
    conversations_updated: int = 0
    messages_added: int = 0
    redactions: int = 0
    removed: int = 0

    def absorb(self, other: IngestReport) -> None:
        """Add the counts and lists of `other` (one file's report) to this one."""
        for f in fields(self):
            if f.name != "files":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def changed(self) -> bool:
        return bool(
            self.ingested
            or self.empty
            or self.failed
            or self.pending
            or self.conversations_new
            or self.removed
        )


def ingest(
    vault: Vault,
    ledger: Ledger,
    files: Sequence[Path] | None = None,
    *,
    progress: Progress | None = None,
    max_file_bytes: int = MAX_BYTES,
) -> IngestReport:
    """Ingest `files`, or all of Raw/ (which also forgets files deleted from Raw/)."""
    if files is None:
        paths = raw_files(vault)
    else:
        paths = [import_into_raw(vault, f, max_file_bytes) for f in files]
    report = IngestReport(files=len(paths))
    # Files are committed in batches: one commit per small file costs more than
    # parsing it. A crash loses at most the open batch, which the next pass redoes.
    with ledger.transaction():
        # Read under the lock: another ingest may have stored these files meanwhile.
        known = _known_rows(vault, ledger, None if files is None else paths)
        batch = 0
        rels = []
        for done, path in enumerate(paths, start=1):
            rel = vault.rel(path)
            rels.append(rel)
            if progress is not None:
                progress(done, len(paths), rel)
            batch += _ingest_alone(
                _File(vault, ledger, path, rel, known.get(rel), max_file_bytes), report
            )
            if batch >= BATCH_BYTES:
                ledger.commit_and_continue()
                batch = 0
        if files is None:
            report.removed = _forget_files(ledger, set(known) - set(rels))
        if report.changed:
            _record_run(ledger, report)
    return report


def _ingest_alone(f: _File, report: IngestReport) -> int:
    """One file in a savepoint of its own: whatever goes wrong with it, the others stay."""
    db = f.ledger.db
    one = IngestReport()
    db.execute("SAVEPOINT one_file")
    try:
        size = _ingest_file(f, one)
    except sqlite3.OperationalError:
        raise  # the database itself (locked, disk full): the run stops and is redone
    except Exception as e:
        db.execute("ROLLBACK TO one_file")
        one = IngestReport()
        size = _skip_unread(
            f, 0, f"internal error storing it ({type(e).__name__}); please report", one
        )
    db.execute("RELEASE one_file")
    report.absorb(one)
    return size


def _known_rows(vault: Vault, ledger: Ledger, paths: list[Path] | None) -> dict[str, sqlite3.Row]:
    query = "SELECT path, size, mtime_ns, sha256, status FROM raw_files"
    if paths is None:
        rows = ledger.db.execute(query).fetchall()
    else:
        # A few named files (the watcher's case): look up only their rows.
        rows = [
            row
            for path in paths
            if (row := ledger.db.execute(f"{query} WHERE path = ?", (vault.rel(path),)).fetchone())
        ]
    return {row["path"]: row for row in rows}


def _forget_files(ledger: Ledger, gone: set[str]) -> int:
    """Drop the rows of files deleted from Raw/; their conversations stay in the ledger.

    Articles cite those conversations, so the messages are kept. A conversation
    whose fullest copy was in a deleted file now points at the next fullest copy.
    """
    db = ledger.db
    for rel in sorted(gone):
        db.execute("DELETE FROM raw_files WHERE path = ?", (rel,))
        for row in db.execute("SELECT id FROM conversations WHERE file = ?", (rel,)).fetchall():
            holder = db.execute(
                "SELECT path FROM file_conversations WHERE conv_id = ? "
                "ORDER BY message_count DESC, path LIMIT 1",
                (row["id"],),
            ).fetchone()
            if holder is not None:
                db.execute(
                    "UPDATE conversations SET file = ? WHERE id = ?", (holder["path"], row["id"])
                )
    return len(gone)


@dataclass(frozen=True)
class _File:
    vault: Vault
    ledger: Ledger
    path: Path
    rel: str
    row: sqlite3.Row | None
    max_bytes: int


def _skip_unread(f: _File, size: int, reason: str, report: IngestReport) -> int:
    # No watermark (mtime 0): the file is looked at again next pass, as it may be fixed
    # (or the limit raised) without the file itself changing.
    _record_file(f.ledger, _FileRow(f.rel, size, 0, "", None, "failed", reason))
    report.failed.append((f.rel, reason))
    return 0


def _ingest_file(f: _File, report: IngestReport) -> int:
    """Ingest one file; returns the bytes read (0 when skipped unread)."""
    ledger, path, rel, row = f.ledger, f.path, f.rel, f.row
    why_not = not_a_candidate(Path(rel).relative_to("Raw"))
    if why_not is not None:
        # Said to whoever named it, not recorded: a full ingest skips the file too.
        report.failed.append((rel, why_not))
        return 0
    if leaves_vault(f.vault, path):
        reason = "a link to a file outside the vault; not read (copy the file into Raw/)"
        return _skip_unread(f, 0, reason, report)
    try:
        st = path.stat()
        if (
            row is not None
            and (row["size"], row["mtime_ns"]) == (st.st_size, st.st_mtime_ns)
            and row["status"] != "pending"
        ):
            report.unchanged += 1
            return 0
        if st.st_size > f.max_bytes:
            return _skip_unread(
                f, st.st_size, too_large(path, st.st_size, f.max_bytes).reason, report
            )
        if row is not None and row["status"] != "pending" and row["sha256"] == sha256(path):
            # Touched but not changed: move the watermark, parse nothing.
            ledger.db.execute(
                "UPDATE raw_files SET mtime_ns = ?, size = ? WHERE path = ?",
                (st.st_mtime_ns, st.st_size, rel),
            )
            report.unchanged += 1
            return st.st_size
    except FileNotFoundError:
        return 0
    except OSError as e:
        return _skip_unread(
            f, 0, f"cannot read the file ({e.strerror or e}); check its permissions", report
        )
    file_row = _FileRow(rel, st.st_size, st.st_mtime_ns, "", None, "failed", None)
    try:
        result = read_transcript(path, max_bytes=f.max_bytes)
        after = path.stat()
    except FileNotFoundError:
        return 0
    except IncompleteTranscript as e:
        if time.time() - st.st_mtime < PENDING_GRACE_SECONDS:
            _record_file(ledger, replace(file_row, status="pending", reason=e.reason))
            report.pending.append((rel, e.reason))
            return st.st_size
        # Unchanged for long: no copy is still running, the file is truncated.
        reason = (
            f"{e.reason.split(';')[0]}; unchanged for over "
            f"{PENDING_GRACE_SECONDS // 60} minutes, so it is truncated: "
            "re-export it or delete the partial last line"
        )
        _record_file(ledger, replace(file_row, reason=reason))
        report.failed.append((rel, reason))
        return st.st_size
    except TranscriptError as e:
        _record_file(ledger, replace(file_row, reason=e.reason))
        report.failed.append((rel, e.reason))
        return st.st_size
    except MemoryError:
        mb = max(1, f.max_bytes // (1024 * 1024))
        reason = (
            "too large to read in the memory available; split it, or lower "
            f"max_raw_file_mb ({mb} now) in .dreaming/config.toml to skip such files"
        )
        return _skip_unread(f, st.st_size, reason, report)
    except OSError as e:
        return _skip_unread(
            f, 0, f"cannot read the file ({e.strerror or e}); check its permissions", report
        )
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns) or (
        result.size != after.st_size
    ):
        reason = "still being written; it will be read once it stops changing"
        _record_file(
            ledger, _FileRow(rel, after.st_size, after.st_mtime_ns, "", None, "pending", reason)
        )
        report.pending.append((rel, reason))
        return result.size
    now = utcnow()
    _record_file(
        ledger,
        replace(
            file_row,
            sha256=result.sha256,
            source=result.source,
            status="ok" if result.conversations else "empty",
            reason=None if result.conversations else "no conversation in this file",
            conversations=len(result.conversations),
            redactions=result.redactions,
        ),
    )
    held = {
        r["conv_id"]
        for r in ledger.db.execute("SELECT conv_id FROM file_conversations WHERE path = ?", (rel,))
    }
    ledger.db.execute("DELETE FROM file_conversations WHERE path = ?", (rel,))
    # The file names its conversation only when it holds one (an aider history holds many).
    single = held if len(result.conversations) == 1 else set()
    for conv in result.conversations:
        conv = replace(conv, source_id=_identity(ledger, rel, conv, single))
        _store_conversation(ledger, rel, conv, now, report)
    report.redactions += result.redactions
    if result.conversations:
        report.ingested += 1
    else:
        report.empty += 1
    return result.size


def _identity(ledger: Ledger, rel: str, conv: Conversation, held: set[str]) -> str:
    """The ledger id of `conv` as read from the file `rel`.

    A source's own id names the conversation; a source without one is named by its
    file (a single-conversation file keeps the id it had, however it is edited). Either
    way another file's copy joins a conversation only as an earlier or later state of
    it (one is a prefix of the other); a different chat under the same id (chats that
    open alike, a copy with a line duplicated) is kept as a conversation of its own.
    """
    candidate = conv.source_id
    if not conv.own_id and len(held) == 1:
        candidate = next(iter(held))
    row = ledger.db.execute(
        "SELECT file, message_count, content_sha FROM conversations WHERE id = ?", (candidate,)
    ).fetchone()
    if row is None or row["file"] == rel or _same_lineage(ledger, candidate, row, conv):
        return candidate
    return content_id(conv.source, candidate, rel)


def _same_lineage(ledger: Ledger, conv_id: str, row: sqlite3.Row, conv: Conversation) -> bool:
    """Whether the stored conversation and `conv` are one a prefix of the other."""
    new = [(m.role, m.text, m.timestamp) for m in conv.messages]
    if row["message_count"] <= len(new):
        return messages_sha(new[: row["message_count"]]) == str(row["content_sha"])
    stored = ledger.db.execute(
        "SELECT role, text, ts FROM messages WHERE conv_id = ? AND position < ? ORDER BY position",
        (conv_id, len(new)),
    )
    return messages_sha((r["role"], r["text"], r["ts"]) for r in stored) == messages_sha(new)


@dataclass(frozen=True)
class _FileRow:
    path: str
    size: int
    mtime_ns: int
    sha256: str
    source: str | None
    status: str
    reason: str | None
    conversations: int = 0
    redactions: int = 0


def _record_file(ledger: Ledger, f: _FileRow) -> None:
    ledger.db.execute(
        "INSERT INTO raw_files(path, size, mtime_ns, sha256, source, status, reason, "
        "conversations, redactions, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime_ns=excluded.mtime_ns, "
        "sha256=excluded.sha256, source=excluded.source, status=excluded.status, "
        "reason=excluded.reason, conversations=excluded.conversations, "
        "redactions=excluded.redactions, ingested_at=excluded.ingested_at",
        (
            f.path,
            f.size,
            f.mtime_ns,
            f.sha256,
            f.source,
            f.status,
            f.reason,
            f.conversations,
            f.redactions,
            utcnow(),
        ),
    )


def _store_conversation(
    ledger: Ledger, rel: str, conv: Conversation, now: str, report: IngestReport
) -> None:
    db = ledger.db
    sha = messages_sha((m.role, m.text, m.timestamp) for m in conv.messages)
    count = len(conv.messages)
    db.execute(
        "INSERT OR REPLACE INTO file_conversations(path, conv_id, message_count, content_sha) "
        "VALUES (?, ?, ?, ?)",
        (rel, conv.source_id, count, sha),
    )
    existing = db.execute(
        "SELECT file, message_count, content_sha FROM conversations WHERE id = ?",
        (conv.source_id,),
    ).fetchone()
    if existing is not None and (
        existing["content_sha"] == sha
        # An older or shorter copy of a conversation another file holds in full.
        or (existing["file"] != rel and count <= existing["message_count"])
    ):
        return
    db.execute(
        "INSERT INTO conversations(id, hash8, source, file, parent_id, title, created_at, "
        "updated_at, message_count, content_sha, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET file=excluded.file, source=excluded.source, "
        "parent_id=excluded.parent_id, title=excluded.title, created_at=excluded.created_at, "
        "updated_at=excluded.updated_at, message_count=excluded.message_count, "
        "content_sha=excluded.content_sha, ingested_at=excluded.ingested_at",
        (
            conv.source_id,
            conv.hash8,
            conv.source,
            rel,
            conv.parent_id,
            conv.title,
            conv.created_at,
            conv.updated_at,
            count,
            sha,
            now,
        ),
    )
    report.messages_added += _sync_messages(ledger, conv)
    if existing is None:
        report.conversations_new += 1
    else:
        report.conversations_updated += 1


def _sync_messages(ledger: Ledger, conv: Conversation) -> int:
    """Bring stored messages in line with `conv`, touching only positions that differ."""
    db = ledger.db
    stored = db.execute(
        "SELECT role, text, ts FROM messages WHERE conv_id = ? ORDER BY position",
        (conv.source_id,),
    ).fetchall()
    changed = []
    for i, m in enumerate(conv.messages[: len(stored)]):
        s = stored[i]
        if (s["role"], s["text"], s["ts"]) != (m.role, m.text, m.timestamp):
            changed.append((m.role, m.text, m.timestamp, conv.source_id, i))
    db.executemany(
        "UPDATE messages SET role=?, text=?, ts=? WHERE conv_id=? AND position=?", changed
    )
    new = [
        (conv.source_id, i, m.role, m.text, m.timestamp)
        for i, m in enumerate(conv.messages)
        if i >= len(stored)
    ]
    db.executemany(
        "INSERT INTO messages(conv_id, position, role, text, ts) VALUES (?,?,?,?,?)", new
    )
    db.execute(
        "DELETE FROM messages WHERE conv_id = ? AND position >= ?",
        (conv.source_id, len(conv.messages)),
    )
    return len(new)


def _record_run(ledger: Ledger, report: IngestReport) -> None:
    now = utcnow()
    summary = {
        "files": report.files,
        "ingested": report.ingested,
        "unchanged": report.unchanged,
        "failed": len(report.failed),
        "pending": len(report.pending),
        "conversations_new": report.conversations_new,
        "conversations_updated": report.conversations_updated,
        "messages_added": report.messages_added,
        "redactions": report.redactions,
    }
    ledger.db.execute(
        "INSERT INTO runs(id, kind, started_at, finished_at, status, summary) "
        "VALUES (?, 'ingest', ?, ?, 'ok', ?)",
        (uuid.uuid4().hex[:12], now, now, json.dumps(summary)),
    )
