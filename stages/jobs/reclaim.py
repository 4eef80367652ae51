"""RECLAIM: remove the Raw files whose every byte another Raw file holds.

A resumed or re-exported session leaves its older copy behind. The ledger names the
candidates (`conversations.superseded`), and `dreaming.raw.reclaimable.examine` decides, on
disk: the file and each newer copy must be as ingested (size, mtime; the file's
checksum), and the file's bytes must be the start of a newer copy's (all of it, for a
duplicate). A copy that reads the same but differs where the reader does not look (a
tool result, a thinking block, a `uuid`) holds bytes found nowhere else: it is kept,
saying on which line. Any doubt keeps the file, saying why: it is never guessed.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dreaming.errors import GitError
from dreaming.ledger import Ledger, conversations, raw_files
from dreaming.raw.reclaimable import QUIET_SECONDS, Held, Seen, examine
from dreaming.vault import Vault
from dreaming.vault.lock import run_lock
from dreaming.vault.repo import VaultRepo
from stages.jobs.ingest import forget

RUN_ID = "reclaim"
"""The `Dreaming-Run:` trailer of the commit that records removed tracked files."""

Progress = Callable[[int, int, str], None]
"""progress(done, total, current vault-relative path)."""


@dataclass(frozen=True, slots=True)
class Reclaimed:
    file: str
    """Vault-relative path of the removed file."""
    kept: tuple[str, ...]
    """The file holding every byte of it."""
    exact: bool
    """It was a copy of that file, byte for byte (else the start of it)."""
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


def reclaim(
    vault: Vault,
    ledger: Ledger,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    quiet_seconds: float = QUIET_SECONDS,
) -> ReclaimReport:
    """Remove the superseded Raw files that pass every check (a dry run only lists them)."""
    report = ReclaimReport(dry_run)
    if dry_run:
        _check_all(vault, ledger, report, progress, quiet_seconds)
        return report
    with run_lock(vault):
        checked = _check_all(vault, ledger, report, progress, quiet_seconds)
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
    lines += ["", f"Every byte {held} held is in the files named, and every conversation stays."]
    return "\n".join(lines)


def _check_all(
    vault: Vault,
    ledger: Ledger,
    report: ReclaimReport,
    progress: Progress | None,
    quiet: float,
) -> list[Held]:
    plan = conversations.superseded(ledger)
    checked: list[Held] = []
    for done, item in enumerate(plan, start=1):
        if progress is not None:
            progress(done, len(plan), item.path)
        found = examine(vault, ledger, item, quiet)
        if isinstance(found, str):
            report.skipped.append(Skipped(item.path, found))
            continue
        checked.append(found)
        if report.dry_run:
            report.removed.append(_reclaimed(found))
    return checked


def _reclaimed(c: Held) -> Reclaimed:
    return Reclaimed(c.item.path, (c.holder,), c.exact, c.freed)


def _remove(vault: Vault, ledger: Ledger, c: Held, report: ReclaimReport) -> None:
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


def _still(vault: Vault, ledger: Ledger, c: Held) -> str | None:
    """None when the ledger and the disk are as they were checked, else what moved."""
    if conversations.superseded(ledger, c.item.path) != [c.item]:
        return "the ledger changed while it was checked; run reclaim again"
    for seen in (c.file, *c.newer):
        if raw_files.get(ledger, seen.rel) != seen.row:
            return f"{seen.rel} was ingested again while it was checked; run reclaim again"
        try:
            st = (vault.root / seen.rel).lstat()
        except OSError:
            return f"{seen.rel} went away while it was checked; run reclaim again"
        if not seen.same_as(st):
            return f"{seen.rel} changed while it was checked; run reclaim again"
    return None


def _unlink(path: Path, seen: Seen) -> str | None:
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
