"""The one door to disk: every pipeline write passes here, and only here.

An edit names its file and the checksum of the text it was made from. It goes
NORMALIZE → the gate (articles only; Log/ and Talk/ pages are plain Markdown)
→ an atomic write guarded by that checksum → a commit of exactly the bytes
written. Nothing outside `articles/`, `Log/` and `Talk/` is ever written. A
rejected edit, or one whose file a person changed since it was read, is a
NO-OP with its reason, retried on the next run; a failed edit never stops the
next one.

Who wrote what stays apart in history: a person's uncommitted edit that an
edit starts from is committed as theirs before we write over it, and a save
that lands after our write stays out of our commit and is committed as theirs
after it. Every write is journaled in the ledger before it reaches disk and
cleared by its commit, so bytes a killed run wrote are still known as ours
(`dreaming.vault.unfinished`).
"""

from __future__ import annotations

import errno
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from dreaming.article import Code, Part, check, normalize, stem_for_title, title_for_stem
from dreaming.article.known import KnownArticles
from dreaming.article.stuck import what_to_fix
from dreaming.clock import utc_now
from dreaming.errors import ConflictError, DreamingError, RefusedFileError, UnsafePathError
from dreaming.ledger import Ledger, gate_rejections, stuck_articles, write_journal
from dreaming.ledger.gate_rejections import GateRejection
from dreaming.ledger.stuck_articles import Stuck
from dreaming.ledger.write_journal import Entry
from dreaming.vault import OwnWrites, Vault, checksum, write_atomic
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from dreaming.vault.repo import VaultRepo

WRITABLE = ("articles", "Log", "Talk")
"""The only folders the pipeline writes into."""

Status = Literal[
    "written", "unchanged", "noop_rejected", "noop_stuck", "noop_conflict", "refused", "failed"
]
"""written; unchanged: the edit changes nothing; noop_rejected: the gate said no;
noop_stuck: the gate says no to every edit of the article (`stuck`: the detail says
what the person must fix);
noop_conflict: a person changed the file since the edit read it (their text wins);
refused: the target is no file the pipeline may write (an unsafe name, a link, a named
pipe, too big); failed: the disk or git failed."""


@dataclass(frozen=True)
class Edit:
    """One change to one file, as a stage proposes it."""

    target: str
    """An article's stem (`Foo_Bar`), or a vault-relative path under articles/, Log/ or Talk/."""
    text: str
    base: str | None
    """The checksum of the text the edit was made from; None for a new file."""
    touched: tuple[str | Part, ...] = ()
    """What the edit may change: section headings (LEAD for the lead) and Parts."""
    stage: str = ""
    unit: str = ""
    allow_dropped: tuple[str, ...] = ()
    """Conversation hashes the edit may stop citing on purpose."""
    word_floor: float = 0.7
    """The share of its words each section the edit names must keep: lower only for a
    section whose words moved to an article written before it (EDITORIAL's split)."""


@dataclass(frozen=True)
class Outcome:
    status: Status
    path: str | None
    """The file, vault-relative; None when the target's name was refused."""
    detail: str = ""
    """Why, in one line, for every status but written and unchanged."""
    codes: tuple[Code, ...] = ()
    """The gate's reasons, for noop_rejected."""


@dataclass(frozen=True)
class Target:
    path: Path
    rel: str
    stem: str | None
    """The article's stem; None for a Log/ or Talk/ page."""


@dataclass(frozen=True)
class _Pending:
    path: Path
    data: bytes
    stage: str


class Writer:
    """Writes edits of one run and commits them.

    known_stems: the articles that exist; when given, NORMALIZE spells links
    to them canonically and the gate refuses a new link to none of them. The
    articles this writer creates join it.
    """

    def __init__(
        self,
        vault: Vault,
        ledger: Ledger,
        own_writes: OwnWrites,
        run_id: str,
        *,
        known_stems: Iterable[str] | None = None,
    ) -> None:
        self._vault = vault
        self._ledger = ledger
        self._own_writes = own_writes
        self._run_id = run_id
        self._repo = VaultRepo(vault.root)
        self._known = None if known_stems is None else KnownArticles(known_stems)
        self._pending: dict[str, _Pending] = {}

    def write(self, edit: Edit) -> Outcome:
        """Apply `edit`, or say in one line why not; a fault of this edit alone never raises."""
        try:
            target = resolve(self._vault, edit.target)
        except UnsafePathError as e:
            return Outcome("refused", None, str(e))
        try:
            return self._write(edit, target)
        except RefusedFileError as e:
            return Outcome("refused", target.rel, str(e))
        except ConflictError as e:
            return Outcome("noop_conflict", target.rel, str(e))
        except DreamingError as e:
            return Outcome("failed", target.rel, str(e))
        except UnicodeDecodeError:
            why = f"{target.path}: not UTF-8 text; save it as UTF-8, then run dreaming again"
            return Outcome("failed", target.rel, why)
        except OSError as e:
            return Outcome("failed", target.rel, _os_error(target.path, e))

    def commit(self, message: str) -> str | None:
        """Commit the bytes written since the last commit as this run's work; the sha or None.

        A person's save that landed after one of our writes stays out of our
        commit and is committed as theirs right after it.
        """
        if not self._pending:
            return None
        paths = [p.path for p in self._pending.values()]
        writes = {p.path: p.data for p in self._pending.values()}
        sha = self._repo.commit_pipeline_blobs(writes, message, self._run_id)
        write_journal.clear(self._ledger, self._pending, run_id=self._run_id)
        self._pending.clear()
        self._repo.commit_person(paths, _person_message(paths, self._vault))
        return sha

    def stuck(self, stem: str, data: bytes, text: str) -> str | None:
        """Why no edit of the article `stem` (its bytes `data`, read as `text`) can pass the
        gate, in one line for the person, or None when one can. The ledger remembers the
        bytes, so the run report says it once, not every night until the person fixes it."""
        why = what_to_fix(text, stem)
        if why is None:
            # Every unit of every article asks: a write only for the rare one remembered.
            if stuck_articles.noted(self._ledger, stem):
                with self._ledger.transaction():
                    stuck_articles.clear(self._ledger, stem)
            return None
        with self._ledger.transaction():
            found = Stuck(stem, checksum(data), why, self._run_id, utc_now())
            stuck_articles.note(self._ledger, found)
        return why

    def _write(self, edit: Edit, target: Target) -> Outcome:
        before = _read(self._vault, target.path)
        if (None if before is None else checksum(before)) != edit.base:
            raise ConflictError(target.path, "changed since the edit read it")
        if target.stem is None:
            data = edit.text.encode("utf-8")
        else:
            text = self._gated(edit, target, target.stem, before)
            if isinstance(text, Outcome):
                return text
            data = text.encode("utf-8")
        if data == before:
            if self._repo.committed(target.path, data):
                return Outcome("unchanged", target.rel)
            # Our bytes, on disk but never committed: a run was stopped between its
            # write and its commit. Committing them now loses and repeats nothing.
            self._journal(target, data)
            self._pending[target.rel] = _Pending(target.path, data, edit.stage)
            return Outcome("written", target.rel, "committed a stopped run's write")
        self._settle(target, before)
        self._journal(target, data)
        write_atomic(
            target.path, data, expected=edit.base, registry=self._own_writes, vault=self._vault
        )
        self._pending[target.rel] = _Pending(target.path, data, edit.stage)
        if self._known is not None and target.stem is not None:
            self._known.add(target.stem)
        return Outcome("written", target.rel)

    def _journal(self, target: Target, data: bytes) -> None:
        """Say in the ledger, before `data` reaches disk, that those bytes are this run's:
        killed before its commit, the next start commits them as dreaming's, never as the
        person's edit (`dreaming.vault.unfinished`)."""
        at = utc_now()
        entry = Entry(target.rel, checksum(data), self._run_id, at)
        write_journal.record(self._ledger, [entry])

    def _gated(self, edit: Edit, target: Target, stem: str, before: bytes | None) -> str | Outcome:
        """The edit's text in normal form, or the gate's NO-OP (recorded in the ledger)."""
        text = normalize(
            edit.text, stem=stem, known_stems=self._known if self._known is not None else ()
        )
        old = None if before is None else before.decode("utf-8")
        verdict = check(
            old,
            text,
            touched=edit.touched,
            allow_dropped=edit.allow_dropped,
            floor=edit.word_floor,
            known_stems=self._known,
            stem=stem,
        )
        if verdict.ok:
            return text
        if old is not None and before is not None:
            # Asked only now, not of every edit: most edits pass, and asking costs a
            # normalize and a gate check (LINK, which writes every article, paid double).
            why = self.stuck(stem, before, old)
            if why is not None:
                return Outcome("noop_stuck", target.rel, why, verdict.codes)
        at = utc_now()
        with self._ledger.transaction():
            for r in verdict.rejections:
                row = GateRejection(self._run_id, edit.stage, edit.unit, stem, r.code, r.detail, at)
                gate_rejections.record(self._ledger, row)
        return Outcome("noop_rejected", target.rel, str(verdict), verdict.codes)

    def _settle(self, target: Target, before: bytes | None) -> None:
        """Commit what the person changed in the file before we write over it, as theirs."""
        pending = self._pending.get(target.rel)
        if pending is not None:
            if pending.data == before:
                return
            # The person saved over our uncommitted write: ours goes in first, theirs after.
            message = f"{pending.stage or 'dreaming'}: {target.rel}"
            self._repo.commit_pipeline_blobs({target.path: pending.data}, message, self._run_id)
            write_journal.clear(self._ledger, [target.rel], run_id=self._run_id)
            del self._pending[target.rel]
        elif self._repo.committed(target.path, before):
            return
        self._repo.commit_person([target.path], _person_message([target.path], self._vault))


def resolve(vault: Vault, target: str) -> Target:
    """The file `target` names, if the pipeline may write it; else UnsafePathError.

    A target without `/` is an article stem; a path must lie in articles/ (one
    `<stem>.md`), Log/ or Talk/ (`.md` files), every name in it one a title
    could give, and no link anywhere on the way.
    """
    if "/" not in target and "\\" not in target:
        return _article(vault, _safe_name(target, target), target)
    pure = PurePosixPath(target)
    if pure.is_absolute() or pure.parts[0] not in WRITABLE or len(pure.parts) < 2:
        raise UnsafePathError(
            f"{target!r}: not under articles/, Log/ or Talk/; dreaming writes nowhere else"
        )
    if pure.suffix != ".md":
        raise UnsafePathError(f"{target!r}: not a .md file; dreaming writes only Markdown pages")
    if pure.parts[0] == "articles":
        if len(pure.parts) != 2:
            raise UnsafePathError(f"{target!r}: articles/ holds no folders; name the article")
        return _article(vault, _safe_name(pure.stem, target), target)
    for name in (*pure.parts[1:-1], pure.stem):
        _safe_name(name, target)
    path = vault.root.joinpath(*pure.parts)
    return _unlinked(vault, path, vault.inside(path), target, None)


def _safe_name(name: str, target: str) -> str:
    """`name` if a title could have given it (stem_for_title's rules), else UnsafePathError."""
    if any(c in name for c in "\t\n\r"):
        raise UnsafePathError(f"{target!r}: a line break or tab in a file name; refusing it")
    try:
        stem_for_title(title_for_stem(name))
    except UnsafePathError as e:
        raise UnsafePathError(f"{target!r}: not a safe file name: {e}") from None
    return name


def _article(vault: Vault, stem: str, target: str) -> Target:
    path = vault.articles / f"{stem}.md"
    return _unlinked(vault, path, vault.article_path(stem), target, stem)


def _unlinked(vault: Vault, path: Path, real: Path, target: str, stem: str | None) -> Target:
    """`path` unless a link on the way makes it lead somewhere else (`real`)."""
    if real != path:
        raise UnsafePathError(
            f"{target!r}: {vault.rel(path)} is or lies behind a link; "
            "dreaming writes only real files in the vault"
        )
    return Target(path, vault.rel(path), stem)


def _read(vault: Vault, path: Path) -> bytes | None:
    return read_optional(vault, path, cap=MAX_PAGE_BYTES, what="a page")


def _person_message(paths: list[Path], vault: Vault) -> str:
    rels = [vault.rel(p) for p in paths]
    more = f" and {len(rels) - 1} more" if len(rels) > 1 else ""
    return f"Edit by you: {rels[0]}{more}"


_WHAT_TO_DO = {
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some disk space",
    errno.EACCES: "make the file and its folder writable",
    errno.EPERM: "make the file and its folder writable",
    errno.EROFS: "mount the vault read-write",
}


def _os_error(path: Path, e: OSError) -> str:
    what = _WHAT_TO_DO.get(e.errno or 0, "check the disk")
    reason = e.strerror or type(e).__name__
    return f"{path}: could not write ({reason}); kept the file as it was; {what}, then run again"
