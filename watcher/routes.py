"""The routes that commit a person's edit: Meta pages, STATION.md / NOTES.md, articles.

Work waits here until git can take it. A rebase or merge in progress, or an index
lock someone else holds for longer than a moment, is said once and the work is
retried later: never a forced commit, never a deleted lock (but one a killed dreaming
process left, taken back at once). On start, the edits no commit holds yet are taken
as if just saved: what a watcher killed mid-commit left. A file whose bytes are
HEAD's, or the bytes we just wrote ourselves, is not a person's edit; nor is one
holding bytes a killed dreaming journaled and never committed: before any person's
edit is committed, those are committed as dreaming's. Article edits wait while a
night runs, so the person's commit lands before or after the pipeline's, never
inside it; after the night, HEAD tells the two apart. Each unit of work catches what
a file can do to it, so nothing stops the watcher.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from dreaming.errors import DreamingError, GitError, RefusedFileError
from dreaming.ledger import write_journal
from dreaming.policy.pages import accept_edit
from dreaming.query.reindex import reindex
from dreaming.station.settle import Changed, settle
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from dreaming.vault.lock import RunLocked, run_lock
from dreaming.vault.repo import VaultRepo
from dreaming.vault.unfinished import finish_interrupted
from watcher.app import App
from watcher.changes import Work, work_of
from watcher.console import shown
from watcher.raw_route import RawRoute
from watcher.reactions import Reaction, Say, trouble

GIT_RETRY = 1.0
"""Seconds between looks at a busy git."""
STATION_FILES: dict[Changed, str] = {"station": "STATION.md", "notes": "NOTES.md"}
PENDING = ("STATION.md", "NOTES.md", "Meta", "articles", "Talk", "Log")
"""Where the person's uncommitted edits are looked for on start (Raw/ has its own look)."""


class Routes:
    """Every route's waiting work; `take` a batch, `tick` to do what can be done now."""

    def __init__(
        self,
        app: App,
        say: Say,
        night_running: Callable[[], bool],
        *,
        settle: float,
        lock_grace: float,
    ) -> None:
        self._app = app
        self._say = say
        self._night_running = night_running
        self._lock_grace = lock_grace
        self.raw = RawRoute(app, say, settle=settle)
        self._meta: set[str] = set()
        self._station: set[Changed] = set()
        self._articles: set[str] = set()
        self._repo: VaultRepo | None = None
        self._git_at = 0.0
        """Monotonic time before which git is not looked at again (it was busy)."""
        self._lock_seen: float | None = None
        self._busy_said: str | None = None

    def take_pending(self, now: float) -> None:
        """The person's edits that no commit holds yet, taken as if just saved: a watcher
        killed mid-commit, or not running while they were made, commits them on start
        (after taking back the index lock a killed dreaming process left)."""
        vault = self._app.vault
        try:
            repo = self._repo or VaultRepo(vault.root)
            self._repo = repo
            if (repo.git_dir / "index.lock").exists():
                repo.take_back_lock()
            dirty = repo.dirty_paths([vault.root / name for name in PENDING])
        except DreamingError as e:
            self._say(
                Reaction(
                    "article",
                    ".",
                    f"not looked at on start: {trouble(e, self._app.vault)}",
                    problem=True,
                )
            )
            return
        self.take(work_of(dirty), now)

    def take(self, work: Work, now: float) -> None:
        self.raw.take(work.raw, now)
        self._meta |= work.meta
        self._station |= work.station
        self._articles |= work.articles

    def tick(self, now: float) -> None:
        self.raw.tick(now)
        if not (self._meta or self._station or self._articles) or now < self._git_at:
            return
        if not (self._meta or self._station) and self._night_running():
            return
        try:
            repo = self._ready_repo(now)
            if repo is None:
                return
            self._finish_interrupted()
            self._meta_pages(repo)
            self._station_files(repo)
            if self._articles and not self._night_running():
                self._edited_articles(repo)
        except GitError as e:
            self._busy(shown(e), now)
            return
        self._busy_said = None

    def _finish_interrupted(self) -> None:
        """Commit as dreaming's what a killed dreaming wrote and never committed (the
        journal says which bytes are its), before a person's edit is committed: else that
        text would go in as theirs. Looked at before every commit of the person's: on
        start, and after a night that died while the watcher ran. GitError when git cannot
        commit now: retried, and nothing else is committed meanwhile."""
        vault = self._app.vault
        try:
            if not write_journal.pending(self._app.ledger):
                return
            with run_lock(vault):
                finished = finish_interrupted(vault, self._app.ledger)
        except RunLocked:
            # A night runs: it finished what killed runs left when it started, and what
            # the journal holds now is its own, to be committed by it (its articles wait).
            return
        except GitError:
            raise
        except Exception as e:
            # The ledger cannot be read: said, and the person's edits still committed.
            self._say(
                Reaction(
                    "article", ".", f"not finished: {trouble(e, self._app.vault)}", problem=True
                )
            )
            return
        for run, rels in finished.items():
            more = f" and {len(rels) - 1} more" if len(rels) > 1 else ""
            said = f"committed as dreaming's{more}: run {run} was stopped before its commit"
            self._say(Reaction("article", shown(rels[0]), shown(said)))
        if any(rel.startswith("articles/") for rels in finished.values() for rel in rels):
            try:
                reindex(vault, self._app.ledger)
            except Exception as e:
                said = f"not reindexed: {trouble(e, self._app.vault)}"
                self._say(Reaction("article", "articles", said, problem=True))

    def _ready_repo(self, now: float) -> VaultRepo | None:
        """The vault's repository when a commit can go in now; else None, said once."""
        if self._repo is None:
            self._repo = VaultRepo(self._app.vault.root)
        self._repo.check_ready()
        lock = self._repo.git_dir / "index.lock"
        # A lock a dreaming process left when it was killed is taken back at once.
        if not lock.exists() or self._repo.take_back_lock():
            self._lock_seen = None
            return self._repo
        # A git command holds it for a moment; only one that stays is worth saying.
        self._lock_seen = self._lock_seen or now
        if now - self._lock_seen >= self._lock_grace:
            self._busy(
                f"{shown(lock)} is held by another git process or left by a crash; "
                "if no git command is running in the vault, delete that file",
                now,
            )
        else:
            self._git_at = now + GIT_RETRY / 4
        return None

    def _busy(self, why: str, now: float) -> None:
        self._git_at = now + GIT_RETRY
        if why == self._busy_said:
            return
        self._busy_said = why
        route, path = self._first_waiting()
        self._say(Reaction(route, path, f"waiting to commit: {why}", problem=True))

    def _first_waiting(self) -> tuple[str, str]:
        if self._meta:
            return "meta", shown(f"Meta/{min(self._meta)}.md")
        if self._station:
            first = min(self._station)
            return first, STATION_FILES[first]
        return "article", shown(min(self._articles))

    def _person_edited(self, repo: VaultRepo, path: Path) -> bool:
        """Whether the file differs from HEAD and from what we wrote there ourselves.
        RefusedFileError for what is no file to commit (a named pipe, a link, too big)."""
        data = read_optional(self._app.vault, path, cap=MAX_PAGE_BYTES, what="a page")
        if repo.committed(path, data):
            return False
        return data is None or not self._app.own_writes.is_own(path)

    def _meta_pages(self, repo: VaultRepo) -> None:
        vault = self._app.vault
        for name in sorted(self._meta):
            rel = f"Meta/{name}.md"
            path = vault.meta / f"{name}.md"
            try:
                # A page put back as committed (git checkout, an undo) is checked too: it may
                # end a problem said before. A person's change is committed, valid or not
                # (their text is never thrown away); only a valid one is put in force.
                problems = accept_edit(vault, name)
                try:
                    edited = self._person_edited(repo, path)
                except RefusedFileError as e:
                    problems, edited = problems or [str(e)], False
                if edited:
                    repo.commit_person([path], f"Edit {rel}")
                if problems:
                    said = shown(problems[0].removeprefix(f"{rel}: "))
                    if edited:
                        said += "; your edit is committed as yours"
                    self._say(Reaction("meta", shown(rel), said, problem=True))
                elif edited:
                    said = "policy reloaded; your edit is committed"
                    self._say(Reaction("meta", shown(rel), said))
                else:
                    self._say(Reaction("meta", shown(rel), "policy reloaded"))
            except GitError:
                raise
            except Exception as e:
                self._say(Reaction("meta", shown(rel), trouble(e, self._app.vault), problem=True))
            self._meta.discard(name)

    def _station_files(self, repo: VaultRepo) -> None:
        if not self._station:
            return
        vault = self._app.vault
        first: Changed = "station" if "station" in self._station else "notes"
        path = STATION_FILES[first]
        now = datetime.now().astimezone().isoformat(timespec="seconds")
        try:
            changed = {
                c for c in self._station if self._person_edited(repo, vault.root / STATION_FILES[c])
            }
            settled = (
                settle(vault, self._app.own_writes, changed=changed, now=now) if changed else None
            )
        except GitError:
            raise
        except Exception as e:
            self._say(Reaction(first, path, trouble(e, self._app.vault), problem=True))
            settled = None
        self._station.clear()
        if settled is not None:
            if settled.said:
                self._say(Reaction(first, path, shown("; ".join(settled.said))))
            for line in settled.problems:
                self._say(Reaction(first, path, shown(line), problem=True))

    def _edited_articles(self, repo: VaultRepo) -> None:
        vault = self._app.vault
        rels = sorted(self._articles)
        try:
            edited = []
            for rel in rels:
                try:
                    if self._person_edited(repo, vault.root / rel):
                        edited.append(rel)
                except RefusedFileError as e:
                    # Said and left out; the other edits are committed.
                    self._say(Reaction("article", shown(rel), shown(e.reason), problem=True))
            if edited:
                more = f" and {len(edited) - 1} more" if len(edited) > 1 else ""
                body = "\n\n" + "\n".join(edited) if more else ""
                repo.commit_person(
                    [vault.root / r for r in edited], f"Edit {edited[0]}{more}{body}"
                )
        except GitError:
            raise
        except Exception as e:
            self._say(
                Reaction("article", shown(rels[0]), trouble(e, self._app.vault), problem=True)
            )
            self._articles.clear()
            return
        self._articles.clear()
        if not edited:
            return
        said = "committed as your edit"
        if any(rel.startswith("articles/") for rel in edited):
            try:
                reindex(vault, self._app.ledger)
                said += "; reindexed"
            except Exception as e:
                said += f"; not reindexed: {trouble(e, self._app.vault)}"
        for rel in edited:
            self._say(Reaction("article", shown(rel), said))
