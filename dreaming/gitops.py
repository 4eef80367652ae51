"""Git for the vault: pipeline commits and a person's edits, never mixed.

Pipeline commits carry a `Dreaming-Run: <id>` trailer and contain only the
files the pipeline wrote. Before the pipeline writes a file that the person
has edited but not committed, that edit is committed on its own first, so
history always shows who wrote what. `.dreaming/` is never committed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import git

from dreaming.errors import GitError

PIPELINE_AUTHOR = git.Actor("dreaming", "dreaming@localhost")
FALLBACK_PERSON = git.Actor("You", "you@localhost")
RUN_TRAILER = "Dreaming-Run"
_LOCK_RETRIES = 10
_LOCK_WAIT = 0.5


class VaultRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            self.repo = git.Repo(root)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as e:
            raise GitError(f"{root}: not a git repository; run: dreaming init {root}") from e

    @classmethod
    def init(cls, root: Path) -> VaultRepo:
        """Open the vault's repository, creating it if there is none (never a parent's)."""
        if not (root / ".git").exists():
            git.Repo.init(root, initial_branch="main")
        return cls(root)

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    def has_commits(self) -> bool:
        try:
            self.repo.head.commit  # noqa: B018 - raises on an unborn branch
        except ValueError:
            return False
        return True

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

    def commit_pipeline(self, paths: Sequence[Path], message: str, run_id: str) -> str | None:
        """Commit exactly `paths` as the pipeline's work of run `run_id`.

        The person's own pending edits to these paths must have been committed
        first (`commit_person`); other staged or unstaged work is left alone.
        """
        rels = self.dirty_paths(paths)
        if not rels:
            return None
        body = f"{message}\n\n{RUN_TRAILER}: {run_id}\n"
        return self._commit(rels, body, PIPELINE_AUTHOR)

    def _commit(self, rels: list[str], message: str, author: git.Actor) -> str:
        env = {
            "GIT_AUTHOR_NAME": author.name or "",
            "GIT_AUTHOR_EMAIL": author.email or "",
            "GIT_COMMITTER_NAME": author.name or "",
            "GIT_COMMITTER_EMAIL": author.email or "",
        }
        self._git("add", "--all", "--", *rels)
        # Paths on the command line mean --only: these paths, nothing else staged.
        self._git("commit", "--no-verify", "-q", "-m", message, "--", *rels, env=env)
        return str(self.repo.head.commit.hexsha)

    def git_path(self, name: str) -> Path:
        """Where git keeps `name` (`info/exclude`, `index.lock`), worktrees included."""
        return self.root / self._git("rev-parse", "--git-path", name).strip()

    def _rel(self, path: Path) -> str:
        p = path if path.is_absolute() else self.root / path
        return p.resolve().relative_to(self.root.resolve()).as_posix()

    def _git(self, *args: str, env: dict[str, str] | None = None) -> str:
        """Run git, retrying while another process holds the index lock."""
        # Literal pathspecs: a file named `a[1].md` must never match `a1.md`.
        env = {"GIT_LITERAL_PATHSPECS": "1", **(env or {})}
        for attempt in range(_LOCK_RETRIES):
            try:
                out: str = self.repo.git.execute(
                    ["git", *args], env=env, strip_newline_in_stdout=False
                )
                return out
            except git.GitCommandError as e:
                if "index.lock" in str(e) and attempt < _LOCK_RETRIES - 1:
                    time.sleep(_LOCK_WAIT)
                    continue
                if "index.lock" in str(e):
                    raise GitError(
                        f"{self.git_dir / 'index.lock'} is held by another git process or left "
                        "by a crash; "
                        "if no git command is running in the vault, delete that file"
                    ) from e
                detail = (e.stderr or str(e)).strip().splitlines()
                raise GitError(
                    f"{self.root}: git {args[0]} failed: {detail[-1] if detail else e}"
                ) from e
        raise AssertionError("unreachable")
