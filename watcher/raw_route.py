"""The Raw route: a file dropped or grown in Raw/ is ingested as soon as it is still.

Every changed path waits in a queue until its mtime is `settle` seconds old (a copy
in progress keeps touching it); then the ready files go to INGEST in one call. A
file INGEST leaves `pending` (cut off mid-record) is looked at again with a growing
back-off, so a stuck file costs a stat now and then, never a busy loop. What was
handled is remembered by size and mtime, so the echo of a save is not read twice.
A deleted file is forgotten by the ledger as a full ingest would; a Raw/ folder that
is gone, a file, a link out of the vault or unreadable is said once, and when it is
back every file in it is queued again.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from dreaming.errors import DreamingError, VaultError
from dreaming.ledger import raw_files
from dreaming.raw.folder import not_a_candidate
from stages.jobs.ingest import IngestReport, forget, ingest
from watcher.app import App
from watcher.changes import route_of
from watcher.console import counted, shown
from watcher.reactions import UNIT_FAULTS, Reaction, Say, trouble

RAW = "Raw"
MAX_BACKOFF = 30.0
SUMMARY_OVER = 3
"""A batch of more files than this is said in one line, not one line a file."""


class RawRoute:
    def __init__(self, app: App, say: Say, *, settle: float) -> None:
        self._app = app
        self._say = say
        self._settle = settle
        self._due: dict[str, float] = {}
        """Raw path → when (monotonic) to look at it next."""
        self._tries: dict[str, int] = {}
        self._done: dict[str, tuple[int, int]] = {}
        """Raw path → (size, mtime_ns) when it was last handed to INGEST and settled."""
        self._folder: str | None = None
        """The Raw/ folder's problem said last; None while it is fine."""
        self._started = False

    @property
    def waiting(self) -> int:
        """Files queued for a look (for the heartbeat's pending count)."""
        return len(self._due)

    def take(self, rels: set[str], now: float) -> None:
        for rel in rels:
            if rel != RAW:
                self._due[rel] = now
                self._tries.pop(rel, None)

    def tick(self, now: float) -> None:
        problem = self._folder_problem()
        if problem is not None:
            if problem != self._folder:
                self._say(Reaction("raw", RAW, problem, problem=True))
                self._folder = problem
            return
        if self._folder is not None:
            self._say(Reaction("raw", RAW, "Raw/ is back; ingesting what it holds"))
        if self._folder is not None or not self._started:
            # Files may have come while nothing watched (before the start, or while
            # Raw/ was away); INGEST skips the unchanged ones by their watermark.
            self._folder = None
            self._started = True
            self._queue_folder(self._app.vault.raw, now)
        ready, gone = self._ready(now)
        if gone:
            self._forget(gone)
        if ready:
            self._ingest(ready, now)

    def _folder_problem(self) -> str | None:
        raw = self._app.vault.raw
        try:
            self._app.vault.check_layout((RAW,))
        except VaultError as e:
            return shown(e)
        if not raw.is_dir():
            return f"{shown(raw)}: missing; create the folder again to go on ingesting"
        if not os.access(raw, os.R_OK | os.X_OK):
            return f"{shown(raw)}: cannot be read; make it readable (chmod u+rwx) to go on"
        return None

    def _queue_folder(self, folder: Path, now: float) -> list[str]:
        root = self._app.vault.root
        found = []
        for path in folder.rglob("*"):
            rel = path.relative_to(root).as_posix()
            if route_of(rel) == "raw" and rel not in self._due and not path.is_dir():
                self._due[rel] = now
                found.append(rel)
        return found

    def _ready(self, now: float) -> tuple[list[str], set[str]]:
        """(files still for long enough to ingest, paths gone from Raw/); the rest wait."""
        root = self._app.vault.root
        ready: list[str] = []
        gone: set[str] = set()
        look = [rel for rel, due in self._due.items() if due <= now]
        wall = time.time()
        while look:
            rel = look.pop()
            path = root / rel
            try:
                st = path.lstat()
            except (FileNotFoundError, NotADirectoryError):
                del self._due[rel]
                gone.add(rel)
                continue
            except OSError as e:
                del self._due[rel]
                self._say(Reaction("raw", shown(rel), trouble(e, self._app.vault), problem=True))
                continue
            if stat.S_ISDIR(st.st_mode):
                del self._due[rel]
                look += self._queue_folder(path, now)
                continue
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)) or _not_a_transcript(rel):
                del self._due[rel]
                continue
            age = wall - st.st_mtime
            if age < self._settle:
                self._due[rel] = now + min(self._settle, self._settle - age)
                continue
            if self._done.get(rel) == (st.st_size, st.st_mtime_ns):
                del self._due[rel]
                continue
            self._done[rel] = (st.st_size, st.st_mtime_ns)
            ready.append(rel)
        ready.sort()
        return ready, gone

    def _ingest(self, ready: list[str], now: float) -> None:
        vault, ledger = self._app.vault, self._app.ledger
        settings = self._app.settings

        def read(paths: list[Path]) -> IngestReport:
            return ingest(
                vault,
                ledger,
                paths,
                max_file_bytes=settings.max_raw_file_mb * 1024 * 1024,
                read_seconds=settings.raw_read_timeout_s,
                record_run=False,
            )

        try:
            try:
                report = read([vault.root / r for r in ready])
            except DreamingError:
                # A file went between the look and the read; the others must still go in.
                report = IngestReport(files=len(ready))
                for rel in ready:
                    try:
                        report.absorb(read([vault.root / rel]))
                    except DreamingError as e:
                        report.failed.append((rel, str(e)))
        except UNIT_FAULTS as e:
            for rel in ready:
                self._retry(rel, now)
            self._say(Reaction("raw", RAW, trouble(e, self._app.vault), problem=True))
            return
        pending = {rel for rel, _ in report.pending}
        failed = dict(report.failed)
        for rel in ready:
            if rel in pending:
                self._retry(rel, now)
                continue
            self._due.pop(rel, None)
            self._tries.pop(rel, None)
            if rel in failed:
                self._say(Reaction("raw", shown(rel), shown(failed[rel]), problem=True))
        self._tell(ready, pending, failed, report)

    def _tell(
        self, ready: list[str], pending: set[str], failed: dict[str, str], report: IngestReport
    ) -> None:
        read = report.ingested + report.empty
        if not read:
            return
        ok = [rel for rel in ready if rel not in pending and rel not in failed]
        if len(ok) <= SUMMARY_OVER:
            for rel in ok:
                row = raw_files.get(self._app.ledger, rel)
                if row is not None and row.status in ("ok", "empty"):
                    said = "ingested" if row.status == "ok" else "ingested: no conversation in it"
                    self._say(Reaction("raw", shown(rel), said))
            return
        self._say(
            Reaction(
                "raw",
                RAW,
                f"ingested {counted(read, 'file')} ({report.conversations_new} new conversations, "
                f"{report.conversations_updated} grown)",
            )
        )

    def _retry(self, rel: str, now: float) -> None:
        tries = self._tries.get(rel, 0) + 1
        self._tries[rel] = tries
        self._done.pop(rel, None)
        self._due[rel] = now + min(MAX_BACKOFF, self._settle * 2**tries)

    def _forget(self, gone: set[str]) -> None:
        """The ledger forgets files deleted from Raw/, a folder's files included."""
        ledger, root = self._app.ledger, self._app.vault.root
        try:
            known: list[str] | None = None
            names: set[str] = set()
            for rel in gone:
                self._done.pop(rel, None)
                if raw_files.get(ledger, rel) is not None:
                    names.add(rel)
                    continue
                if known is None:
                    known = [row.path for row in raw_files.every(ledger)]
                inside = rel + "/"
                names.update(k for k in known if k.startswith(inside) and not (root / k).exists())
            forgotten = forget(ledger, names)
        except UNIT_FAULTS as e:
            self._say(Reaction("raw", RAW, trouble(e, self._app.vault), problem=True))
            return
        if forgotten == 1:
            self._say(Reaction("raw", shown(next(iter(names))), "deleted; the ledger forgot it"))
        elif forgotten:
            self._say(Reaction("raw", RAW, f"{forgotten} files deleted; the ledger forgot them"))


def _not_a_transcript(rel: str) -> bool:
    return not_a_candidate(Path(rel).relative_to(RAW)) is not None
