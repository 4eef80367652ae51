"""Git for the vault: pipeline commits and a person's edits, never mixed.

Pipeline commits carry a `Dreaming-Run: <id>` trailer and contain only the
files the pipeline wrote, with the bytes it wrote (`commit_pipeline_blobs`):
a person's save that lands between our write and our commit stays their own
change. Before the pipeline writes a file that the person has edited but not
committed, that edit is committed on its own first, so history always shows
who wrote what. `.dreaming/` is never committed, but for the notes index.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from dreaming.errors import GitError, UnsafePathError
from dreaming.vault import index_lock

PIPELINE_AUTHOR = git.Actor("dreaming", "dreaming@localhost")
FALLBACK_PERSON = git.Actor("You", "you@localhost")
RUN_TRAILER = "Dreaming-Run"
_LOCK_RETRIES = 10
_LOCK_WAIT = 0.5
_COMMIT_LOCKS: dict[Path, threading.Lock] = {}
"""One lock per git folder, taken around every commit: the watcher commits from more than
one thread, and the index lock's owner flock cannot tell those apart."""
_COMMIT_LOCKS_GUARD = threading.Lock()
# (file in the git folder, what it means, how the person ends it)
_IN_PROGRESS = (
    ("MERGE_HEAD", "merge", "finish it (git commit) or abort it (git merge --abort)"),
    (
        "rebase-merge",
        "rebase",
        "finish it (git rebase --continue) or abort it (git rebase --abort)",
    ),
    ("rebase-apply", "rebase or am", "finish it (--continue) or abort it (--abort)"),
    (
        "CHERRY_PICK_HEAD",
        "cherry-pick",
        "finish it (git cherry-pick --continue) or abort it (git cherry-pick --abort)",
    ),
    ("REVERT_HEAD", "revert", "finish it (git revert --continue) or abort it (git revert --abort)"),
    ("BISECT_LOG", "bisect", "end it (git bisect reset)"),
)


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as `VaultRepo.log` lists it."""

    sha: str
    date: str
    """When it was committed, ISO 8601 with its offset."""
    email: str
    """Its author's email: `PIPELINE_AUTHOR`'s for dreaming's own."""


class _Git(git.Git):
    """GitPython's command runner for a folder taken as named: `git.Git` expands `$VAR`
    in a folder given as str, so a vault named `notes $HOME` would run git elsewhere."""

    def __init__(self, working_dir: str | os.PathLike[str] | None = None) -> None:
        super().__init__(None if working_dir is None else Path(working_dir))


class _Repo(git.Repo):
    GitCommandWrapperType = _Git


class VaultRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            self.repo = _Repo(root, expand_vars=False)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as e:
            raise GitError(f"{root}: not a git repository; run: dreaming init {root}") from e
        self._listed: tuple[str, str, dict[str, tuple[str, str]]] | None = None
        """(commit, folder, its entries) of the last folder listed at a commit."""

    @classmethod
    def init(cls, root: Path) -> VaultRepo:
        """Open the vault's repository, creating it if there is none (never a parent's)."""
        if not (root / ".git").exists():
            # Not git.Repo.init: it reopens what it made with `$VAR` in the path expanded.
            git.Git(Path(root)).init("-q", "--initial-branch=main")
        return cls(root)

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    def person(self) -> git.Actor:
        """The person's identity from git config, else a neutral placeholder."""
        reader = self.repo.config_reader()
        name = reader.get_value("user", "name", default="")
        email = reader.get_value("user", "email", default="")
        if name and email:
            return git.Actor(str(name), str(email))
        return FALLBACK_PERSON

    def dirty_paths(self, paths: Iterable[Path] | None = None) -> list[str]:
        """Vault-relative paths with uncommitted changes (untracked included)."""
        args = ["--porcelain", "-z", "--untracked-files=all"]
        if paths is not None:
            rels = [self._rel(p) for p in paths]
            if not rels:
                return []
            args += ["--", *rels]
        out = self._git("status", *args)
        found: list[str] = []
        entries = out.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            i += 1
            if len(entry) < 4:
                continue
            code, name = entry[:2], entry[3:]
            if code[0] in "RC":
                i += 1  # a rename carries its old name as the next entry
            found.append(name)
        return found

    def commit_person(self, paths: Sequence[Path], message: str) -> str | None:
        """Commit the person's pending changes to `paths` as their own commit."""
        rels = self.dirty_paths(paths)
        if not rels:
            return None
        return self._commit(rels, message, self.person())

    def commit_person_bytes(self, reads: Mapping[Path, bytes | None], message: str) -> str | None:
        """Commit `reads` (path → the bytes read there, None: no file) as the person's own.

        Exactly those bytes, whatever the files hold by now: what dreaming then makes
        of them is its own commit, and a save after the read is the person's next
        change, never part of either. None when HEAD holds them already.
        """
        if all(self.committed(path, data) for path, data in reads.items()):
            return None
        blobs = {self._rel(path): data for path, data in reads.items()}
        return self._commit(list(blobs), message, self.person(), blobs)

    def commit_pipeline(self, paths: Sequence[Path], message: str, run_id: str) -> str | None:
        """Commit exactly `paths` as the pipeline's work of run `run_id`.

        The person's own pending edits to these paths must have been committed
        first (`commit_person`); other staged or unstaged work is left alone.
        """
        rels = self.dirty_paths(paths)
        if not rels:
            return None
        return self._commit(rels, _with_trailer(message, run_id), PIPELINE_AUTHOR)

    def commit_pipeline_blobs(
        self, writes: Mapping[Path, bytes], message: str, run_id: str
    ) -> str | None:
        """Commit `writes` (path → the bytes we wrote there) as the work of run `run_id`.

        The commit holds these bytes whatever the files hold now, so a person's
        save that landed after our write is never in it: it shows as their
        uncommitted change, for `commit_person`. None when nothing changes.
        """
        blobs = {self._rel(path): data for path, data in writes.items()}
        if not blobs:
            return None
        return self._commit(list(blobs), _with_trailer(message, run_id), PIPELINE_AUTHOR, blobs)

    def tracked(self, paths: Sequence[Path]) -> set[str]:
        """The vault-relative paths of those of `paths` that git tracks (the index names)."""
        found: set[str] = set()
        rels = [self._rel(p) for p in paths]
        # In batches: a command line has a length limit, a Raw tree has no file limit.
        for start in range(0, len(rels), 256):
            listed = self._git("ls-files", "-z", "--", *rels[start : start + 256])
            found.update(name for name in listed.split("\0") if name)
        return found

    def at_head(self, path: Path) -> bytes | None:
        """The bytes HEAD holds at `path`; None when it holds no file there."""
        entry = self._head_entry(path)
        if entry is None or entry[0] != "blob":
            return None
        data: bytes = self.repo.git.execute(
            ["git", "cat-file", "blob", entry[1]],
            stdout_as_string=False,
            strip_newline_in_stdout=False,
        )
        return data

    def committed(self, path: Path, data: bytes | None) -> bool:
        """Whether HEAD holds exactly `data` at `path` (None: no file there).

        One `git ls-tree` and a hash, no read of the blob; False whenever unsure (a
        filter between disk and repository, another hash), which only costs a check.
        """
        entry = self._head_entry(path)
        if entry is None:
            return data is None
        if data is None or entry[0] != "blob":
            return False
        header = f"blob {len(data)}\0".encode()
        return entry[1] == hashlib.sha1(header + data, usedforsecurity=False).hexdigest()

    def last_ours(self, path: Path, data: bytes) -> bool:
        """Whether `data` at `path` is what dreaming last committed there: HEAD holds
        exactly it and the last commit touching the path is the pipeline's (the person
        has not edited the file since our last write)."""
        if not self.committed(path, data):
            return False
        author = self._git("log", "-1", "--format=%ae", "--", self._rel(path)).strip()
        return author == PIPELINE_AUTHOR.email

    def log(self, rel: str, limit: int) -> list[Commit]:
        """The last `limit` commits that changed the vault-relative path `rel`, newest
        first; none on an unborn branch. Reads only."""
        if self._head() is None:
            return []
        out = self._git("log", f"--max-count={limit}", "--format=%H%x1f%cI%x1f%ae", "--", rel)
        found: list[Commit] = []
        for line in out.splitlines():
            parts = line.split("\x1f")
            if len(parts) == 3:
                found.append(Commit(*parts))
        return found

    def blob_at(self, commit: str, rel: str, cap: int) -> bytes | None:
        """The bytes `commit` holds at `rel`; None when it holds no file there, or one
        over `cap` bytes (never read: a version may be as big as anything once was)."""
        listed = self._git("ls-tree", "-l", "-z", commit, "--", rel)
        meta, _, name = listed.split("\0", 1)[0].partition("\t")
        parts = meta.split()
        if name != rel or len(parts) != 4 or parts[1] != "blob" or not parts[3].isdigit():
            return None
        if int(parts[3]) > cap:
            return None
        try:
            data: bytes = self.repo.git.execute(
                ["git", "cat-file", "blob", parts[2]],
                stdout_as_string=False,
                strip_newline_in_stdout=False,
            )
        except git.GitCommandError as e:
            raise GitError(f"{self.root}: git cat-file failed: {git_said(e)}") from e
        return data

    def _head_entry(self, path: Path) -> tuple[str, str] | None:
        """(type, object name) of what HEAD holds at `path`; None for nothing (or no HEAD).

        A git process a question, not GitPython's object database: that keeps a
        `git cat-file` helper running for as long as the Repo lives, and a Repo left
        to the garbage collector leaked it (a warning, an error under test). The
        path's folder is listed once a commit: a night asks about every article of
        `articles/`, one git process each was most of a big wiki's LINK, and what a
        commit holds never changes."""
        head = self._head()
        if head is None:
            return None
        rel = self._rel(path)
        folder = rel.rpartition("/")[0]
        if self._listed is None or self._listed[:2] != (head, folder):
            listed = self._git("ls-tree", "-z", head, *(("--", f"{folder}/") if folder else ()))
            entries = {}
            for entry in listed.split("\0"):
                meta, _, name = entry.partition("\t")
                parts = meta.split()
                if len(parts) == 3:
                    entries[name] = (parts[1], parts[2])
            self._listed = (head, folder, entries)
        return self._listed[2].get(rel)

    def _commit(
        self,
        rels: list[str],
        message: str,
        author: git.Actor,
        blobs: Mapping[str, bytes | None] | None = None,
    ) -> str | None:
        """Commit `rels`, as on disk or as `blobs` gives them (None: no file); the index
        changes only on success.

        The commit is built in a scratch index from HEAD, so a failure anywhere
        leaves the index exactly as it was: nothing of ours ends up staged for
        the person's next commit. The real index is locked as git locks it, and
        only the committed paths' entries change. None when the tree is HEAD's.
        """
        with _commit_lock(self.git_dir):
            return self._commit_locked(rels, message, author, blobs)

    def _commit_locked(
        self,
        rels: list[str],
        message: str,
        author: git.Actor,
        blobs: Mapping[str, bytes | None] | None,
    ) -> str | None:
        self.check_ready()
        held = index_lock.held(
            self.git_dir, rels, self._head, self._reset, retries=_LOCK_RETRIES, wait=_LOCK_WAIT
        )
        with held as index:
            parent = self._head()
            with tempfile.TemporaryDirectory(prefix="dreaming-commit-") as tmp:
                scratch = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
                if parent:
                    self._git("read-tree", parent, env=scratch)
                if blobs is None:
                    self._git("update-index", "--add", "--remove", "--", *rels, env=scratch)
                else:
                    self._stage_blobs(blobs, Path(tmp), scratch)
                tree = self._git("write-tree", env=scratch).strip()
                if parent and tree == self._git("rev-parse", f"{parent}^{{tree}}").strip():
                    # HEAD holds these bytes already; its index entries may not, when a
                    # kill fell between moving HEAD and updating the index.
                    self._git(
                        "reset", "-q", parent, "--", *rels, env={"GIT_INDEX_FILE": str(index)}
                    )
                    return None
                text = Path(tmp) / "message"
                text.write_text(message.rstrip("\n") + "\n", encoding="utf-8")
                sha = self._commit_tree(tree, parent, text, author)
            subject = message.split("\n", 1)[0]
            kind = "commit" if parent else "commit (initial)"
            self._git("update-ref", "-m", f"{kind}: {subject}", "HEAD", sha, parent or "")
            self._git("reset", "-q", sha, "--", *rels, env={"GIT_INDEX_FILE": str(index)})
        return sha

    def _stage_blobs(
        self, blobs: Mapping[str, bytes | None], tmp: Path, scratch: dict[str, str]
    ) -> None:
        """Put `blobs` into the scratch index, each file keeping the mode HEAD gave it;
        None takes the path out."""
        listed = self._git("ls-files", "-s", "-z", "--", *blobs, env=scratch)
        modes = {
            entry.split("\t", 1)[1]: entry.split(" ", 1)[0]
            for entry in listed.split("\0")
            if "\t" in entry
        }
        entries: list[str] = []
        gone = [rel for rel, data in blobs.items() if data is None]
        for n, (rel, data) in enumerate(blobs.items()):
            if data is None:
                continue
            held = tmp / f"blob-{n}"
            held.write_bytes(data)
            # --path: the same filters (line endings, attributes) as `git add` of that file.
            sha = self._git("hash-object", "-w", f"--path={rel}", "--", str(held)).strip()
            mode = "100755" if modes.get(rel) == "100755" else "100644"
            entries += ["--cacheinfo", f"{mode},{sha},{rel}"]
        if entries:
            self._git("update-index", "--add", *entries, env=scratch)
        if gone:
            self._git("update-index", "--force-remove", "--", *gone, env=scratch)

    def _commit_tree(self, tree: str, parent: str | None, message: Path, author: git.Actor) -> str:
        env = {
            "GIT_AUTHOR_NAME": author.name or "",
            "GIT_AUTHOR_EMAIL": author.email or "",
            "GIT_COMMITTER_NAME": author.name or "",
            "GIT_COMMITTER_EMAIL": author.email or "",
        }
        parents = ["-p", parent] if parent else []
        return self._git("commit-tree", tree, *parents, "-F", str(message), env=env).strip()

    def _head(self) -> str | None:
        """The commit HEAD names; None on an unborn branch (a repository's first commit)."""
        try:
            # The ref files read, not the commit object: no object database, no helper.
            return str(git.SymbolicReference.dereference_recursive(self.repo, "HEAD"))
        except ValueError:
            return None

    def check_ready(self) -> None:
        """Refuse to commit while the person is in the middle of a git operation.

        A commit then would land inside their merge, rebase or cherry-pick, or
        on no branch at all, where it is easily lost.
        """
        for marker, what, finish in _IN_PROGRESS:
            if (self.git_dir / marker).exists():
                raise GitError(
                    f"{self.root}: a {what} is in progress; {finish}, then run dreaming again"
                )
        if self.repo.head.is_detached:
            raise GitError(
                f"{self.root}: no branch is checked out (detached HEAD); "
                "check one out (git switch main), then run dreaming again"
            )

    def take_back_lock(self) -> bool:
        """Take back git's index lock if a dreaming process that is gone left it (see
        `dreaming.vault.index_lock`); whether it did. Never waits, never touches another's."""
        with _commit_lock(self.git_dir):
            return index_lock.take_back(self.git_dir, self._head, self._reset)

    def _reset(self, index: Path, rels: Sequence[str]) -> None:
        self._git("reset", "-q", "HEAD", "--", *rels, env={"GIT_INDEX_FILE": str(index)})

    def listed(self, *folders: str, untracked: bool = False) -> list[str]:
        """The files git tracks under `folders` (or, `untracked`, those `git add -A`
        would add: neither tracked nor ignored), vault-relative."""
        extra = ["--others", "--exclude-standard"] if untracked else []
        out = self._git("ls-files", "-z", *extra, "--", *folders)
        return [name for name in out.split("\0") if name]

    def ignored(self, rels: Sequence[str]) -> set[str]:
        """Which of `rels` git's ignore rules (any .gitignore, info/exclude) keep out:
        one `git check-ignore` for all of them."""
        if not rels:
            return set()
        try:
            out: str = self.repo.git.execute(
                ["git", "check-ignore", "--no-index", "--", *rels], strip_newline_in_stdout=False
            )
        except git.GitCommandError as e:
            if e.status == 1:
                return set()
            raise GitError(f"{self.root}: git check-ignore failed: {git_said(e)}") from e
        return set(out.splitlines())

    def git_path(self, name: str) -> Path:
        """Where git keeps `name` (`info/exclude`, `index.lock`), worktrees included."""
        return self.root / self._git("rev-parse", "--git-path", name).strip()

    def _rel(self, path: Path) -> str:
        p = path if path.is_absolute() else self.root / path
        resolved, root = p.resolve(), self.root.resolve()
        if resolved != root and root not in resolved.parents:
            raise UnsafePathError(f"{path}: outside the vault {root}; refusing to commit it")
        return resolved.relative_to(root).as_posix()

    def _git(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run git, retrying while another process holds the index lock."""
        # Literal pathspecs: a file named `a[1].md` must never match `a1.md`.
        env = {"GIT_LITERAL_PATHSPECS": "1", **(env or {})}
        attempts = 0
        while True:
            try:
                out: str = self.repo.git.execute(
                    ["git", *args], env=env, strip_newline_in_stdout=False
                )
                return out
            except git.GitCommandError as e:
                attempts += 1
                lock = held_lock(e)
                if lock is not None and attempts < _LOCK_RETRIES:
                    time.sleep(_LOCK_WAIT)
                    continue
                if lock is not None:
                    raise GitError(index_lock.lock_message(self.root / lock)) from e
                raise GitError(f"{self.root}: git {args[0]} failed: {git_said(e)}") from e


def _commit_lock(git_dir: Path) -> threading.Lock:
    with _COMMIT_LOCKS_GUARD:
        return _COMMIT_LOCKS.setdefault(git_dir.resolve(), threading.Lock())


def _with_trailer(message: str, run_id: str) -> str:
    return f"{message}\n\n{RUN_TRAILER}: {run_id}\n"


def _stderr_lines(error: git.GitCommandError) -> list[str]:
    # GitPython wraps git's stderr as `stderr: '…'`.
    text = str(error.stderr or "").strip().removeprefix("stderr:").strip().strip("'")
    return [line.strip() for line in text.splitlines() if line.strip()]


def git_said(error: git.GitCommandError) -> str:
    """Git's own complaint in one line: its fatal/error line, else its last line."""
    lines = _stderr_lines(error)
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line
    return lines[-1] if lines else str(error).splitlines()[0]


def held_lock(error: git.GitCommandError) -> str | None:
    """The lock file (index.lock, a branch's .lock) that made git give up, if that was why."""
    marker = "Unable to create '"
    for line in _stderr_lines(error):
        start = line.find(marker)
        if start < 0:
            continue
        end = line.find("'", start + len(marker))
        if end > 0 and line[:end].endswith(".lock"):
            return line[start + len(marker) : end]
    return None
