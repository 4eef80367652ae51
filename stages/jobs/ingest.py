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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from dreaming.clock import utc_now
from dreaming.config import DEFAULT_RAW_READ_TIMEOUT_S
from dreaming.errors import IncompleteTranscript, LedgerUnavailable, ReaderFault, TranscriptError
from dreaming.ledger import Ledger, conversations, raw_files, runs
from dreaming.ledger.raw_files import RawFile
from dreaming.raw import read_transcript, too_large
from dreaming.raw.common import MAX_BYTES
from dreaming.raw.deadline import time_limit
from dreaming.raw.folder import import_into_raw, leaves_vault, not_a_candidate, sha256
from dreaming.raw.folder import raw_files as raw_paths
from dreaming.vault import Vault
from dreaming.vault.logs import internal_error

Progress = Callable[[int, int, str], None]
"""progress(done, total, current vault-relative path)."""

BATCH_BYTES = 8 * 1024 * 1024
PENDING_GRACE_SECONDS = 600


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
    controls: int = 0
    removed: int = 0

    def absorb(self, other: IngestReport) -> None:
        """Add the counts and lists of `other` (one file's report) to this one."""
        for f in fields(self):
            if f.name != "files":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def summary(self) -> dict[str, int]:
        """The counts a `runs` row keeps."""
        return {
            "files": self.files,
            "ingested": self.ingested,
            "unchanged": self.unchanged,
            "failed": len(self.failed),
            "pending": len(self.pending),
            "conversations_new": self.conversations_new,
            "conversations_updated": self.conversations_updated,
            "messages_added": self.messages_added,
            "redactions": self.redactions,
            "controls": self.controls,
        }

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
    read_seconds: float = DEFAULT_RAW_READ_TIMEOUT_S,
    record_run: bool = True,
) -> IngestReport:
    """Ingest `files`, or all of Raw/ (which also forgets files deleted from Raw/).

    read_seconds: how long reading one file may take (`dreaming.raw.deadline`); a file
    that takes longer is marked failed, with its watermark, so it waits for a change.
    record_run: False when a night runs it, whose own `runs` row holds its summary."""
    if files is None:
        paths = raw_paths(vault)
    else:
        paths = [import_into_raw(vault, f, max_file_bytes) for f in files]
    report = IngestReport(files=len(paths))
    # Files are committed in batches: one commit per small file costs more than
    # parsing it. A crash loses at most the open batch, which the next pass redoes.
    named = None if files is None else paths
    with ledger.transaction():
        # Read under the lock: another ingest may have stored these files meanwhile.
        known = _known_rows(vault, ledger, named)
        gone = set(known) - {vault.rel(path) for path in paths}
        batch = 0
        for done, path in enumerate(paths, start=1):
            rel = vault.rel(path)
            if progress is not None:
                progress(done, len(paths), rel)
            batch += _ingest_alone(
                _File(vault, ledger, path, rel, known.get(rel), max_file_bytes, read_seconds),
                report,
            )
            if batch >= BATCH_BYTES:
                ledger.commit_and_continue()
                # The lock was free for a moment: another ingest may have stored (or
                # forgotten) files since; this run counts only what it does itself.
                known = _known_rows(vault, ledger, named)
                batch = 0
        if files is None:
            report.removed = _forget_files(ledger, gone & set(known))
        if record_run and report.changed:
            record_ingest(ledger, report)
    return report


def _ingest_alone(f: _File, report: IngestReport) -> int:
    """One file in a savepoint of its own: whatever goes wrong with it, the others stay."""
    one = IngestReport()
    try:
        with f.ledger.savepoint("one_file"):
            size = _ingest_file(f, one)
    except LedgerUnavailable:
        raise  # the database itself (locked, disk full): the run stops and is redone
    except Exception as e:
        one = IngestReport()
        size = _skip_unread(f, 0, internal_error(f.vault, e, "storing it"), one)
    report.absorb(one)
    return size


def _known_rows(vault: Vault, ledger: Ledger, paths: list[Path] | None) -> dict[str, RawFile]:
    if paths is None:
        rows = raw_files.every(ledger)
    else:
        # A few named files (the watcher's case): look up only their rows.
        rows = [row for path in paths if (row := raw_files.get(ledger, vault.rel(path)))]
    return {row.path: row for row in rows}


def forget(ledger: Ledger, gone: set[str]) -> int:
    """Forget these vault-relative Raw files, deleted from Raw/, as a full ingest would
    (the watcher's case: it sees each deletion); how many the ledger knew."""
    with ledger.transaction():
        return _forget_files(ledger, {rel for rel in gone if raw_files.get(ledger, rel)})


def _forget_files(ledger: Ledger, gone: set[str]) -> int:
    """Drop the rows of files deleted from Raw/; their conversations stay in the ledger.

    Articles cite those conversations, so the messages are kept. A conversation
    whose fullest copy was in a deleted file now points at the next fullest copy.
    """
    for rel in sorted(gone):
        raw_files.delete(ledger, rel)
        for conv_id in conversations.in_file(ledger, rel):
            holder = conversations.fullest_holder(ledger, conv_id)
            if holder is not None:
                conversations.move_to(ledger, conv_id, holder)
    return len(gone)


@dataclass(frozen=True)
class _File:
    vault: Vault
    ledger: Ledger
    path: Path
    rel: str
    row: RawFile | None
    max_bytes: int
    read_seconds: float


def _skip_unread(f: _File, size: int, reason: str, report: IngestReport) -> int:
    # No watermark (mtime 0): the file is looked at again next pass, as it may be fixed
    # (or the limit raised) without the file itself changing.
    _record_file(f.ledger, RawFile(f.rel, size, 0, "", None, "failed", reason))
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
        if not raw_files.unread_since(row, st.st_size, st.st_mtime_ns):
            report.unchanged += 1
            return 0
        if st.st_size > f.max_bytes:
            return _skip_unread(
                f, st.st_size, too_large(path, st.st_size, f.max_bytes).reason, report
            )
        if row is not None and row.status != "pending" and row.sha256 == sha256(path):
            # Touched but not changed: move the watermark, parse nothing.
            raw_files.move_watermark(ledger, rel, st.st_size, st.st_mtime_ns)
            report.unchanged += 1
            return st.st_size
    except FileNotFoundError:
        return 0
    except OSError as e:
        return _skip_unread(
            f, 0, f"cannot read the file ({e.strerror or e}); check its permissions", report
        )
    file_row = RawFile(rel, st.st_size, st.st_mtime_ns, "", None, "failed", None)
    try:
        with time_limit(path, f.read_seconds):
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
    except ReaderFault as e:
        reason = internal_error(f.vault, e.__cause__ or e, f"reading it as {e.source}")
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
            ledger, RawFile(rel, after.st_size, after.st_mtime_ns, "", None, "pending", reason)
        )
        report.pending.append((rel, reason))
        return result.size
    now = utc_now()
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
            controls=result.controls,
        ),
    )
    stored = conversations.store(ledger, rel, result.conversations, now)
    report.conversations_new += stored.new
    report.conversations_updated += stored.updated
    report.messages_added += stored.messages_added
    report.redactions += result.redactions
    report.controls += result.controls
    if result.conversations:
        report.ingested += 1
    else:
        report.empty += 1
    return result.size


def _record_file(ledger: Ledger, f: RawFile) -> None:
    raw_files.put(ledger, f, utc_now())


def record_ingest(ledger: Ledger, report: IngestReport) -> None:
    """An `ingest` run's row holding `report` (for ingests done in parts, e.g. an import's)."""
    now = utc_now()
    runs.put(ledger, runs.Run(runs.new_id(), "ingest", now, now, "ok", report.summary()))
