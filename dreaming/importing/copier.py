"""The history import's copy loop: each item not yet imported is copied into Raw/,
atomically, a batch at a time, and only then recorded in the ledger's cursor.

A batch's copies are written into `.dreaming/import/` (never seen in Raw/), flushed to
disk with one `sync`, renamed into place, flushed again, handed to `on_batch` (INGEST),
and recorded. So a killed import leaves whole files in Raw/ or none, and the next one
skips what the cursor holds and copies the rest again to the same names: every file
once. Only what landed is recorded: an export is remembered as read to its end only
when every conversation of it landed or was there already. A source file whose size or
mtime changed since it was copied (a session that went on), or a conversation whose
bytes changed, is copied again over its older copy when that copy is its start, byte
for byte, else beside it. One import per vault at a time (`.dreaming/import.lock`).
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Protocol

from dreaming.clock import utc_now
from dreaming.errors import DreamingError, SourceError
from dreaming.importing.chatgpt_export import Export, ReadCount, conversations
from dreaming.importing.item import Item
from dreaming.importing.sources import Plan
from dreaming.ledger import Ledger, imports
from dreaming.ledger.imports import Imported
from dreaming.raw.common import MAX_BYTES
from dreaming.raw.folder import earlier_state, leaves_vault, not_a_candidate
from dreaming.vault import Vault
from dreaming.vault.lock import import_lock

_Seen = tuple[int, int, int]
"""What was at a path (size, mtime, inode)."""

STAGING = "import"
"""The folder in `.dreaming/` where copies are written before they are renamed into Raw/."""
BATCH_FILES = 256
BATCH_BYTES = 64 * 1024 * 1024

OnBatch = Callable[[list[Path]], None]
"""Called with the Raw/ files of each batch once they are in place (to ingest them)."""


class Watch(Protocol):
    """Progress of one source at a time (a bar on a terminal, lines otherwise)."""

    def start(self, label: str, files: int | None, size: int) -> None:
        """A source begins: how many files (None while unknown) and bytes it holds."""

    def step(self, files: int, size: int, name: str) -> None:
        """So far in this source: files looked at, bytes, the last one's name."""


@dataclass
class SourceReport:
    label: str
    where: str = ""
    """The folder or file read."""
    planned: int | None = None
    """Files the source holds (None for an export: known once read)."""
    looked: int = 0
    """Files or conversations looked at so far (fewer than planned: stopped)."""
    found: int = 0
    """Files (or conversations) at or after --since."""
    size: int = 0
    first: float | None = None
    last: float | None = None
    """The date range of those found (epoch seconds)."""
    copied: int = 0
    """Copied (in a dry run: would be)."""
    copied_bytes: int = 0
    unchanged: int = 0
    """Already imported as they are now."""
    older: int = 0
    """Left out: last changed before --since."""
    skipped: int = 0
    """In a folder: files no reader takes."""
    missing: bool = False
    missed: int = 0
    """Files (or conversations) that did not land, each with its line in `failed`."""
    failed: list[str] = field(default_factory=list)
    """One line each: what was not imported, why, and what to do."""
    notes: list[str] = field(default_factory=list)

    def saw(self, when: float | None, size: int) -> None:
        self.found += 1
        self.size += size
        if when is not None:
            self.first = when if self.first is None else min(self.first, when)
            self.last = when if self.last is None else max(self.last, when)


@dataclass
class ImportReport:
    sources: list[SourceReport] = field(default_factory=list)
    interrupted: bool = False

    @property
    def copied(self) -> int:
        return sum(s.copied for s in self.sources)

    @property
    def problems(self) -> int:
        """Lines saying what did not come in (a file, a conversation, a damaged export)."""
        return sum(len(s.failed) for s in self.sources)


def run_import(
    vault: Vault,
    ledger: Ledger,
    plans: Sequence[Plan],
    *,
    since: float | None = None,
    max_bytes: int = MAX_BYTES,
    on_batch: OnBatch | None = None,
    watch: Watch | None = None,
    stop: Callable[[], bool] | None = None,
) -> ImportReport:
    """Copy what `plans` hold into Raw/ (what the cursor does not hold as it is now).
    Once `stop()` is true, the batch in hand is finished and the import ends there."""
    with import_lock(vault):
        staging = vault.state / STAGING
        # Under the lock no other import writes here: what is here a killed one left.
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            copier = _Copier(vault, ledger, since, max_bytes, staging, on_batch, watch, stop)
            return copier.run(plans)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def survey(
    ledger: Ledger | None,
    plans: Sequence[Plan],
    *,
    since: float | None = None,
    max_bytes: int = MAX_BYTES,
    watch: Watch | None = None,
) -> ImportReport:
    """What `run_import` would copy; reads the sources and the cursor, writes nothing.
    `ledger` None: nothing imported yet."""
    return _Copier(None, ledger, since, max_bytes, None, None, watch, None).run(plans)


@dataclass
class _Staged:
    temp: Path
    final: Path
    seen: _Seen | None
    """What was at `final` when it was chosen."""
    row: Imported
    report: SourceReport


class _Copier:
    def __init__(
        self,
        vault: Vault | None,
        ledger: Ledger | None,
        since: float | None,
        max_bytes: int,
        staging: Path | None,
        on_batch: OnBatch | None,
        watch: Watch | None,
        stop: Callable[[], bool] | None,
    ) -> None:
        self.vault = vault
        """None in a survey: nothing is written."""
        self.ledger = ledger
        self.since = since
        self.max_bytes = max_bytes
        self.staging = staging
        self.on_batch = on_batch
        self.watch = watch
        self.stop = stop or (lambda: False)
        self.report = ImportReport()
        self.batch: list[_Staged] = []
        self.batch_bytes = 0
        self.folders: set[Path] = set()
        self.taken: dict[str, tuple[int, int, str | None]] = {}
        """The state of each key copied in this run (never a conversation's bytes, so
        memory stays flat): a file two sources name goes in once."""

    def run(self, plans: Sequence[Plan]) -> ImportReport:
        for plan in plans:
            rep = SourceReport(
                plan.source.label,
                str(plan.source.path),
                missing=plan.missing,
                skipped=plan.skipped,
            )
            self.report.sources.append(rep)
            rep.failed += plan.problems
            self._source(plan, rep)
            if self.report.interrupted:
                break
        self._flush()
        return self.report

    def _source(self, plan: Plan, rep: SourceReport) -> None:
        if plan.missing:
            return
        rep.planned = None if plan.exports else len(plan.files)
        total = sum(i.size for i in plan.files) + sum(e.size for e in plan.exports)
        if self.watch is not None:
            self.watch.start(rep.label, None if plan.exports else len(plan.files), total)
        done = size = 0
        for item in plan.files:
            self._take(item, rep)
            done, size = done + 1, size + item.size
            if self.watch is not None:
                self.watch.step(done, size, item.rel)
            if self._stopping():
                return
        for export in plan.exports:
            self._export(export, rep, size)
            size += export.size
            if self.report.interrupted:
                return

    def _stopping(self) -> bool:
        if self.stop():
            self.report.interrupted = True
        return self.report.interrupted

    def _export(self, export: Export, rep: SourceReport, base: int) -> None:
        """Every conversation of `export`; `base`: the source's bytes before it."""
        row = None if self.ledger is None else imports.get(self.ledger, export.key)
        if (
            self.since is None
            and row is not None
            and (row.size, row.mtime_ns) == (export.file_size, export.mtime_ns)
        ):
            rep.notes.append("already imported and unchanged since: not read again")
            return
        # The batch in hand is another's: what did not land of this export is its own.
        self._flush()
        missed = rep.missed
        if not self._read_export(export, rep, base) or self.since is not None:
            return
        if self.vault is not None and self.ledger is not None:
            self._flush()
            if rep.missed == missed:
                # Read to its end with every conversation in place: the next import skips
                # it unread while the file stays as it is.
                mark = Imported(
                    export.key, "export", "chatgpt", export.file_size, export.mtime_ns, None, ""
                )
                with self.ledger.transaction():
                    imports.put(self.ledger, [mark], utc_now())

    def _read_export(self, export: Export, rep: SourceReport, base: int) -> bool:
        """Take each conversation of `export`; whether it was read to its end."""
        read, counter = 0, ReadCount()
        with closing(conversations(export, counter, self.max_bytes)) as items:
            while True:
                try:
                    item = next(items, None)
                except (SourceError, OSError) as e:
                    # Only reading the export: a failure of the copies is not the export's.
                    line = str(e) if isinstance(e, SourceError) else _unreadable(export.path, e)
                    if read:
                        line += f" ({_conversations(read)} before that point came in, "
                        line += "the rest did not)"
                    rep.failed.append(line)
                    return False
                if item is None:
                    return True
                read += 1
                self._take(item, rep)
                if self.watch is not None:
                    self.watch.step(rep.found + rep.older, base + counter.read, item.rel)
                if self._stopping():
                    return False

    def _take(self, item: Item, rep: SourceReport) -> None:
        rep.looked += 1
        if self.since is not None and item.when is not None and item.when < self.since:
            rep.older += 1
            return
        rep.saw(item.when, item.size)
        if item.size > self.max_bytes:
            limit = self.max_bytes // (1024 * 1024)
            rep.missed += 1
            rep.failed.append(
                f"{_where(item)}: {-(-item.size // (1024 * 1024))} MB, over the {limit} MB limit "
                "for a transcript; not imported (raise max_raw_file_mb in .dreaming/config.toml)"
            )
            return
        repeat = self.taken.get(item.key) == _state(item)
        if repeat and any(s.row.origin == item.key for s in self.batch):
            # Its first copy is still in hand: a repeat only if that one lands.
            self._flush()
            repeat = self.taken.get(item.key) == _state(item)
        row = None if self.ledger is None else imports.get(self.ledger, item.key)
        if repeat or (row is not None and _same(row, item)):
            rep.unchanged += 1
            return
        self.taken[item.key] = _state(item)
        if self.vault is not None:
            try:
                self._stage(item, row, rep)
            except OSError as e:
                self.taken.pop(item.key, None)
                if e.errno == errno.ENAMETOOLONG:
                    # This file's name only: the next file's may fit.
                    rep.missed += 1
                    rep.failed.append(
                        f"{_where(item)}: its name is too long for Raw/ here "
                        f"({_named(e)}); rename it shorter to import it; skipped"
                    )
                    return
                if item.path is None or e.filename is None or _named(e) != str(item.path):
                    # Writing failed, not reading: every next file would fail the same way.
                    raise DreamingError(
                        f"cannot write into the vault ({e.strerror or e}"
                        + (f": {_named(e)}" if e.filename else "")
                        + "); free some space or fix its permissions, then run the same "
                        "command again: it goes on where it stopped"
                    ) from None
                rep.missed += 1
                rep.failed.append(_unreadable(_where(item), e))
                return
        rep.copied += 1
        rep.copied_bytes += item.size

    def _stage(self, item: Item, row: Imported | None, rep: SourceReport) -> None:
        assert self.vault is not None
        assert self.staging is not None
        target = self._target(item, row)
        seen = _seen(self.vault.root / target)
        fd, name = tempfile.mkstemp(prefix="copy-", dir=self.staging)
        temp = Path(name)
        try:
            if item.data is not None:
                with os.fdopen(fd, "wb") as out:
                    out.write(item.data)
                if item.when is not None:
                    os.utime(temp, (item.when, item.when))
            else:
                os.close(fd)
                assert item.path is not None
                shutil.copyfile(item.path, temp)  # sendfile where the system has it
                # Its own mtime: the session's date, kept in Raw/ as it was.
                os.utime(temp, ns=(item.mtime_ns, item.mtime_ns))
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        imported = Imported(
            item.key, item.kind, item.source, item.size, item.mtime_ns, item.digest, target
        )
        self.batch.append(_Staged(temp, self.vault.root / target, seen, imported, rep))
        self.batch_bytes += item.size
        if len(self.batch) >= BATCH_FILES or self.batch_bytes >= BATCH_BYTES:
            self._flush()

    def _target(self, item: Item, row: Imported | None) -> str:
        """Where the copy goes: its older copy's place when that copy is an earlier state
        of it (byte for byte: a conversation's older copy never is, unless identical, so a
        changed one lands beside it), else the wanted path or the first free `name-N`."""
        if row is not None and row.target:
            if self._earlier(row.target, item):
                return row.target
            return self._free(row.target, item)
        return self._free(f"Raw/{item.source}/{item.rel}", item)

    def _free(self, wanted: str, item: Item) -> str:
        assert self.vault is not None
        assert self.ledger is not None
        taken = {s.row.target for s in self.batch}
        path = PurePosixPath(wanted)
        stem, suffix = _split(path.name)
        n = 0
        while True:
            candidate = str(path if n == 0 else path.with_name(f"{stem}-{n}{suffix}"))
            n += 1
            if candidate in taken:
                continue
            holder = imports.owner(self.ledger, candidate)
            if holder is not None and holder != item.key:
                continue
            # Ours, or a copy no row names (one a killed import made before recording it,
            # the capture hook's, the person's): taken over only when it is this item's start.
            if self._earlier(candidate, item):
                return candidate

    def _earlier(self, rel: str, item: Item) -> bool:
        """Whether Raw/'s `rel` is missing or holds a start of `item` (all of it included)."""
        assert self.vault is not None
        path = self.vault.root / rel
        try:
            st = path.lstat()
        except FileNotFoundError:
            return True
        if not path.is_file() or path.is_symlink():
            return False
        if item.data is not None:
            return st.st_size == len(item.data) and path.read_bytes() == item.data
        if (st.st_size, st.st_mtime_ns) == (item.size, item.mtime_ns):
            return True
        if st.st_size > item.size or item.path is None:
            return False
        return earlier_state(path, item.path) is not None

    def _flush(self) -> None:
        if not self.batch:
            return
        assert self.ledger is not None
        assert self.vault is not None
        batch, self.batch, self.batch_bytes = self.batch, [], 0
        os.sync()  # the copies' bytes are on disk before any name points at them
        placed: list[_Staged] = []
        for s in batch:
            try:
                if leaves_vault(self.vault, s.final.parent):
                    # A link in Raw/ (Raw/claude-code → ~/.claude/projects, say) would land
                    # the copy outside the vault, over the host's own file.
                    raise OSError(
                        errno.EXDEV,
                        "a link in Raw/ leads out of the vault; make it a folder of the vault",
                        s.final,
                    )
                arrived = _arrived(s)
                if arrived == "longer":
                    # A longer copy (the capture hook's) landed since this one was planned.
                    s.temp.unlink(missing_ok=True)
                    s.report.copied -= 1
                    s.report.copied_bytes -= s.row.size
                    s.report.unchanged += 1
                    continue
                if arrived == "other":
                    self._missed(
                        s,
                        f"{s.row.origin}: a file not made by this import arrived at "
                        f"{s.row.target} meanwhile; left as it is, run the same command again "
                        "to copy it beside that file",
                    )
                    continue
                self._make_folder(s.final.parent)
                os.replace(s.temp, s.final)
            except OSError as e:
                self._missed(s, _unreadable(s.row.origin, e, "cannot be placed in Raw/"))
                continue
            placed.append(s)
        os.sync()  # and the names are, before the cursor says they are done
        if self.on_batch is not None:
            self.on_batch([s.final for s in placed if _ingestible(s.row.target)])
        with self.ledger.transaction():
            imports.put(self.ledger, [s.row for s in placed], utc_now())

    def _missed(self, s: _Staged, line: str) -> None:
        """`s` did not land: not recorded, and not a copy a repeat of it can count on."""
        s.temp.unlink(missing_ok=True)
        s.report.copied -= 1
        s.report.copied_bytes -= s.row.size
        s.report.missed += 1
        s.report.failed.append(line)
        self.taken.pop(s.row.origin, None)

    def _make_folder(self, folder: Path) -> None:
        if folder not in self.folders:
            folder.mkdir(parents=True, exist_ok=True)
            self.folders.add(folder)


def _same(row: Imported, item: Item) -> bool:
    if item.kind == "conversation":
        return row.digest == item.digest
    return (row.size, row.mtime_ns) == (item.size, item.mtime_ns)


def _state(item: Item) -> tuple[int, int, str | None]:
    return item.size, item.mtime_ns, item.digest


def _split(name: str) -> tuple[str, str]:
    """(stem, suffix) of a file name; a subagent's sidecar keeps its two-part suffix."""
    for suffix in (".meta.json",):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], suffix
    stem, suffix = os.path.splitext(name)
    return stem, suffix


def _ingestible(rel: str) -> bool:
    return not_a_candidate(Path(rel).relative_to("Raw")) is None


def _named(e: OSError) -> str:
    return os.fsdecode(e.filename)


def _where(item: Item) -> str:
    return str(item.path) if item.path is not None else item.key


def _unreadable(where: object, e: OSError, what: str = "cannot be read") -> str:
    return f"{where}: {what} ({e.strerror or e}); skipped, the rest goes on"


def _seen(path: Path) -> _Seen | None:
    """What is at `path` (a link not followed), or None when nothing is."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def _arrived(s: _Staged) -> str | None:
    """What arrived at the copy's place since it was chosen: None when nothing did or it
    is a start of the copy (the capture hook's copy of the same session, written before
    this one), "longer" when the copy is a start of it, else "other"."""
    if _seen(s.final) in (None, s.seen):
        return None
    if s.final.is_symlink() or not s.final.is_file():
        return "other"
    if earlier_state(s.final, s.temp) is not None:
        return None
    return "longer" if earlier_state(s.temp, s.final) == "earlier" else "other"


def _conversations(n: int) -> str:
    return f"{n:,} conversation" if n == 1 else f"{n:,} conversations"
