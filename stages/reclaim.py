"""RECLAIM: remove the Raw files that hold nothing another Raw file does not hold in full.

A resumed or re-exported session leaves its older copy behind: a file whose every
conversation is the start (or the whole) of a conversation a newer file holds. The
ledger says which files those are (`conversations.superseded`); before one is removed,
it and each newer copy are checked on disk against what the ledger recorded when they
were ingested (size, mtime, checksum), read again, and each of its conversations found
in a newer copy. Any doubt skips the file, saying why: it is never guessed.

Removal moves the file aside (a hidden name in its folder, which nothing reads) and
removes it only when the moved file is still the one checked, inside the ledger's write
transaction, which then forgets the file as a full ingest would: its conversations and
their messages stay, held by the newer copy, so every `conv:HASH` citation still resolves
and a later ingest (or the watcher seeing the deletion) has nothing left to do. A removed
file that the vault's git tracks is committed as removed. The run lock is held
throughout, so no night runs meanwhile; a dry run takes no lock and removes nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dreaming.errors import GitError, TranscriptError
from dreaming.ledger import Ledger, conversations, raw_files
from dreaming.ledger.conversations import Superseded
from dreaming.ledger.raw_files import RawFile
from dreaming.raw import read_transcript
from dreaming.raw.common import MAX_BYTES
from dreaming.raw.types import Conversation
from dreaming.vault import Vault
from dreaming.vault.lock import run_lock
from dreaming.vault.repo import VaultRepo
from stages.ingest import forget

QUIET_SECONDS = 10.0
"""A file changed more recently than this may still be being written: it is left alone."""
RUN_ID = "reclaim"
"""The `Dreaming-Run:` trailer of the commit that records removed tracked files."""

Progress = Callable[[int, int, str], None]
"""progress(done, total, current vault-relative path)."""


@dataclass(frozen=True, slots=True)
class Reclaimed:
    file: str
    """Vault-relative path of the removed file."""
    kept: tuple[str, ...]
    """The files holding its conversations in full."""
    exact: bool
    """It was a copy of them (else a prefix of at least one)."""
    bytes: int
    """What removing it frees (0 for one of several hard links to the same data)."""

    @property
    def relation(self) -> str:
        return f"{'a copy' if self.exact else 'a prefix'} of {', '.join(self.kept)}"


@dataclass(frozen=True, slots=True)
class Skipped:
    file: str
    reason: str
    """Why it was kept, and what to do."""


@dataclass
class ReclaimReport:
    dry_run: bool
    removed: list[Reclaimed] = field(default_factory=list)
    """In a dry run: what would be removed."""
    skipped: list[Skipped] = field(default_factory=list)
    commit: str | None = None
    """The commit recording the removal of tracked files, if any were removed."""
    commit_error: str | None = None
    """Why the removal of tracked files is not committed (it is left for the person)."""

    @property
    def freed(self) -> int:
        return sum(r.bytes for r in self.removed)


@dataclass(frozen=True, slots=True)
class _Seen:
    """A file as checked on disk: its ledger row and the identity of what was read."""

    rel: str
    row: RawFile
    ino: int
    dev: int
    nlink: int

    def same_as(self, st: os.stat_result) -> bool:
        return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns) == (
            self.ino,
            self.dev,
            self.row.size,
            self.row.mtime_ns,
        )


@dataclass(frozen=True, slots=True)
class _Checked:
    item: Superseded
    file: _Seen
    kept: tuple[_Seen, ...]


def reclaim(
    vault: Vault,
    ledger: Ledger,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    max_file_bytes: int = MAX_BYTES,
    quiet_seconds: float = QUIET_SECONDS,
) -> ReclaimReport:
    """Remove the superseded Raw files that pass every check (a dry run only lists them)."""
    report = ReclaimReport(dry_run)
    if dry_run:
        _check_all(vault, ledger, report, progress, max_file_bytes, quiet_seconds)
        return report
    with run_lock(vault):
        checked = _check_all(vault, ledger, report, progress, max_file_bytes, quiet_seconds)
        repo = VaultRepo(vault.root) if (vault.root / ".git").exists() and checked else None
        tracked = repo.tracked([vault.root / c.file.rel for c in checked]) if repo else set()
        if repo is not None and tracked:
            # Before anything is removed: a removal git cannot record now would be left
            # for the person's next commit, mixed with their own work.
            repo.check_ready()
        for c in checked:
            _remove(vault, ledger, c, report)
        gone = [r for r in report.removed if r.file in tracked]
        if repo is not None and gone:
            try:
                report.commit = repo.commit_pipeline(
                    [vault.root / r.file for r in gone], _message(gone), RUN_ID
                )
            except GitError as e:
                report.commit_error = str(e)
    return report


def _message(gone: list[Reclaimed]) -> str:
    files = "file" if len(gone) == 1 else "files"
    lines = [f"dreaming reclaim: remove {len(gone)} superseded Raw {files}", ""]
    lines += [f"- {r.file}: {r.relation}" for r in gone]
    held = "it" if len(gone) == 1 else "they"
    lines += ["", f"Every conversation {held} held is kept, in the files named."]
    return "\n".join(lines)


def _check_all(
    vault: Vault,
    ledger: Ledger,
    report: ReclaimReport,
    progress: Progress | None,
    max_bytes: int,
    quiet: float,
) -> list[_Checked]:
    plan = conversations.superseded(ledger)
    checked: list[_Checked] = []
    for done, item in enumerate(plan, start=1):
        if progress is not None:
            progress(done, len(plan), item.path)
        found = _check(vault, ledger, item, max_bytes, quiet)
        if isinstance(found, str):
            report.skipped.append(Skipped(item.path, found))
            continue
        checked.append(found)
        if report.dry_run:
            report.removed.append(_reclaimed(found))
    return checked


def _reclaimed(c: _Checked) -> Reclaimed:
    freed = c.file.row.size if c.file.nlink == 1 else 0
    return Reclaimed(c.item.path, c.item.holders, c.item.exact, freed)


def _check(
    vault: Vault, ledger: Ledger, item: Superseded, max_bytes: int, quiet: float
) -> _Checked | str:
    """The file and its newer copies as checked on disk, or why the file is kept."""
    seen = _seen(vault, ledger, item.path)
    if isinstance(seen, str):
        return seen
    if time.time() - seen.row.mtime_ns / 1e9 < quiet:
        return f"changed in the last {quiet:g} seconds; it may still be being written"
    kept: list[_Seen] = []
    for holder in item.holders:
        other = _seen(vault, ledger, holder)
        if isinstance(other, str):
            return f"its newer copy {holder} is not as ingested ({other})"
        kept.append(other)
    mine = _read(vault, seen, max_bytes)
    if isinstance(mine, str):
        return mine
    theirs: list[Conversation] = []
    for other in kept:
        read = _read(vault, other, max_bytes)
        if isinstance(read, str):
            return f"its newer copy {other.rel} {read}"
        theirs += read
    missing = sum(not _held(c, theirs) for c in mine)
    if missing:
        return (
            f"{missing} of its {len(mine)} conversations are not in {', '.join(item.holders)} "
            "as read now; kept (run dreaming ingest, then reclaim again)"
        )
    return _Checked(item, seen, tuple(kept))


def _seen(vault: Vault, ledger: Ledger, rel: str) -> _Seen | str:
    """`rel` on disk as the ledger recorded it at its last ingest, or what differs."""
    row = raw_files.get(ledger, rel)
    if row is None or row.status != "ok":
        return "not ingested cleanly; run dreaming ingest, then reclaim again"
    path = vault.root / rel
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "gone from Raw/; dreaming ingest forgets it"
    except OSError as e:
        return f"cannot be looked at ({e.strerror or e})"
    if path.is_symlink():
        return "a link, not a copy: removing it frees nothing; remove it yourself if you wish"
    if not path.is_file():
        return "not a regular file"
    if (st.st_size, st.st_mtime_ns) != (row.size, row.mtime_ns):
        return "changed since it was ingested; run dreaming ingest, then reclaim again"
    return _Seen(rel, row, st.st_ino, st.st_dev, st.st_nlink)


def _read(vault: Vault, seen: _Seen, max_bytes: int) -> list[Conversation] | str:
    """The conversations of the file as it is now, or why they cannot be trusted: it must
    hold exactly the bytes ingested."""
    try:
        result = read_transcript(vault.root / seen.rel, max_bytes=max_bytes)
    except TranscriptError as e:
        return f"cannot be read now ({e.reason}); kept"
    except MemoryError:
        return "is too large to read in the memory available; kept"
    if (result.size, result.sha256) != (seen.row.size, seen.row.sha256):
        return "changed since it was ingested; run dreaming ingest, then reclaim again"
    return result.conversations


def _held(conv: Conversation, kept: list[Conversation]) -> bool:
    """Whether a conversation in `kept` has every message of `conv`, in order, from its start."""
    n = len(conv.messages)
    # Messages compare by role, text and time: the first difference ends the comparison.
    return any(tuple(k.messages[:n]) == tuple(conv.messages) for k in kept)


def _remove(vault: Vault, ledger: Ledger, c: _Checked, report: ReclaimReport) -> None:
    """Remove one checked file and forget it, or say why it stays."""
    rel = c.item.path
    # The write transaction holds off every ingest (the watcher's too) from the last look
    # to the forgetting, so the ledger cannot move between them.
    with ledger.transaction():
        why = _still(vault, ledger, c)
        if why is None:
            why = _unlink(vault.root / rel, c.file)
        if why is not None:
            report.skipped.append(Skipped(rel, why))
            return
        forget(ledger, {rel})
    report.removed.append(_reclaimed(c))


def _still(vault: Vault, ledger: Ledger, c: _Checked) -> str | None:
    """None when the ledger and the disk are as they were checked, else what moved."""
    if conversations.superseded(ledger, c.item.path) != [c.item]:
        return "the ledger changed while it was checked; run reclaim again"
    for seen in (c.file, *c.kept):
        if raw_files.get(ledger, seen.rel) != seen.row:
            return f"{seen.rel} was ingested again while it was checked; run reclaim again"
        try:
            st = (vault.root / seen.rel).lstat()
        except OSError:
            return f"{seen.rel} went away while it was checked; run reclaim again"
        if not seen.same_as(st):
            return f"{seen.rel} changed while it was checked; run reclaim again"
    return None


def _unlink(path: Path, seen: _Seen) -> str | None:
    """Remove `path` if it is still the file checked; None when removed, else why not.

    Renaming is atomic, so what is moved aside is one file: the one checked, or one that
    replaced it a moment ago (the hook writes a whole new copy), which goes back."""
    aside = path.with_name(f".{path.name}.reclaim-{os.getpid()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return "went away while it was removed"
    except OSError as e:
        return f"cannot be removed ({e.strerror or e}); check the folder's permissions"
    if seen.same_as(aside.lstat()):
        aside.unlink()
        return None
    return _put_back(aside, path)


def _put_back(aside: Path, path: Path) -> str:
    try:
        os.link(aside, path)
    except FileExistsError:
        return (
            f"replaced twice while it was removed; the middle version is kept as {aside.name} "
            "in the same folder (a hidden file nothing reads): look at it, then delete it"
        )
    except OSError:
        # No hard links on this filesystem: a free name is checked, then taken.
        if path.exists():
            return f"replaced while it was removed; the earlier version is kept as {aside.name}"
        os.rename(aside, path)
        return "changed while it was removed; left in place"
    aside.unlink()
    return "changed while it was removed; left in place"
