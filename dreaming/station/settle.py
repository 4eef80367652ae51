"""STATION.md heat and the NOTES.md notes index on disk and in git: `settle` and `look`.

The text work is pure (`dreaming.station.card`, `dreaming.station.notes`); this module
reads the vault, commits the person's edit as theirs, writes what changed through the
checksum door (recorded in the app's own-write registry, so the watcher ignores the
echo) and commits exactly those bytes as dreaming's. Git busy (a rebase, a held index
lock) means nothing is written; a person's save during the heat wins.
"""

from __future__ import annotations

import contextlib
from collections.abc import Set
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from dreaming.errors import ConflictError, GitError, RefusedFileError, VaultError
from dreaming.station import card, notes
from dreaming.vault import OwnWrites, Vault, checksum, write_atomic
from dreaming.vault.checksums import current_checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional, refusal

if TYPE_CHECKING:
    from dreaming.ledger import Ledger
    from dreaming.vault.repo import VaultRepo

Changed = Literal["station", "notes"]
STATION_FILES = (card.CARD, notes.NOTES)
MAX_INDEX_BYTES = 16 * 1024 * 1024
"""The notes index: NOTES.md's notes (at most `notes.MAX_NOTES_BYTES`) and those it
dropped in the last 90 days, as JSON."""


@dataclass(slots=True)
class Settled:
    said: list[str] = field(default_factory=list)
    """One line for each thing done (heated, notes indexed, committed)."""
    problems: list[str] = field(default_factory=list)
    """One line for each thing refused, naming the file and the fix."""


@dataclass(frozen=True, slots=True)
class Look:
    """The memory-recall look: the plane, the matched article names, the current notes."""

    plane: str
    articles: list[str]
    notes: list[str]


@dataclass(slots=True)
class _Read:
    path: Path
    data: bytes | None
    """None: no file."""

    @property
    def digest(self) -> str | None:
        return None if self.data is None else checksum(self.data)


def index_path(vault: Vault) -> Path:
    return vault.state / notes.INDEX


def settle(vault: Vault, registry: OwnWrites, *, changed: Set[Changed], now: str) -> Settled:
    """React to the person's edit of STATION.md and/or NOTES.md: commit it as theirs, heat
    the card, refresh the notes index, commit what we wrote.

    Each file is read once: those bytes are what is committed as the person's, what the
    heat and the index are made from, and what our write must still find on disk. A save
    after the read is the person's next edit: never in our commit, never written over.

    `now` is an ISO 8601 time (`datetime.now(UTC).isoformat()`); the card shows it in local
    time. Never raises for the person's input: whatever is refused is in `problems`."""
    from dreaming.vault.repo import VaultRepo

    result = Settled()
    moment = datetime.fromisoformat(now)
    refused = [f"{n}: {why}" for n in STATION_FILES if (why := refusal(vault, vault.root / n))]
    if refused:
        result.problems += refused
        return result
    try:
        station = _read(vault, vault.root / card.CARD)
        page = _read(vault, vault.root / notes.NOTES)
    except (VaultError, RefusedFileError) as e:
        result.problems.append(f"{e}; nothing written")
        return result
    try:
        repo = VaultRepo(vault.root)
        repo.check_ready()
        stopped = _stopped_heat(vault, repo, station)
        if stopped:
            message = "station: heat " + ", ".join(p.name for p in stopped)
            sha = repo.commit_pipeline_blobs(stopped, message, _run_id(moment))
            if sha:
                result.said.append(f"committed the heat a stopped dreaming wrote ({sha[:7]})")
        # Both, whatever changed: the card is rewritten on either edit, and the person's
        # pending text must be in a commit of theirs before ours.
        for read in (page,) if stopped else (station, page):
            sha = repo.commit_person_bytes({read.path: read.data}, f"Edit {read.path.name}")
            if sha:
                result.said.append(f"committed your edit of {read.path.name} ({sha[:7]})")
    except GitError as e:
        result.problems.append(f"{e}; nothing heated until then")
        return result
    writes: dict[Path, tuple[_Read, bytes]] = {}
    try:
        current = _indexed(vault, page, "notes" in changed, moment, writes, result)
    except (VaultError, RefusedFileError) as e:
        result.problems.append(f"{e}; nothing written")
        return result
    if station.data is None:
        result.problems.append(
            f"{card.CARD}: missing; run `dreaming init {vault.root}` to lay a fresh card"
        )
    else:
        facts = card.Facts(
            git=git_head(repo),
            articles=article_stems(vault),
            notes=current,
            heated=moment.astimezone().strftime("%Y-%m-%d %H:%M"),
        )
        try:
            hot = card.heat(station.data, facts)
        except card.CardProblem as e:
            result.problems.append(f"{e}; left it untouched")
        else:
            if hot != station.data:
                writes[station.path] = (station, hot)
            else:
                result.said.append(f"{card.CARD} is already hot")
    _write_and_commit(vault, repo, registry, writes, moment, result)
    return result


def _stopped_heat(vault: Vault, repo: VaultRepo, station: _Read) -> dict[Path, bytes]:
    """The heat a dreaming process wrote but was stopped before committing (kill -9), to
    commit as dreaming's, not the person's: a card that is HEAD's card heated, and the
    notes index beside it when no commit holds it either. Empty for anything else."""
    before = repo.at_head(station.path)
    if before is None or station.data is None or before == station.data:
        return {}
    if not card.is_heat_of(before, station.data, git_head(repo), article_stems(vault)):
        return {}
    found = {station.path: station.data}
    with contextlib.suppress(VaultError, RefusedFileError):
        index = _read(vault, index_path(vault))
        if index.data is not None and not repo.committed(index.path, index.data):
            found[index.path] = index.data
    return found


def _run_id(moment: datetime) -> str:
    return "station-" + moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _indexed(
    vault: Vault,
    page: _Read,
    notes_changed: bool,
    moment: datetime,
    writes: dict[Path, tuple[_Read, bytes]],
    result: Settled,
) -> int:
    """The current notes count, planning the index's write when NOTES.md changed or no
    index exists yet."""
    stored = _read(vault, index_path(vault))
    try:
        lines = notes.note_lines(page.data or b"")
    except notes.NotesProblem as e:
        result.problems.append(f"{e}; the notes index is unchanged")
        lines = None
    index: notes.NotesIndex | None = None
    if stored.data is not None:
        try:
            index = notes.loads(stored.data, vault.rel(stored.path))
        except notes.NotesProblem as e:
            result.problems.append(str(e))
            return len(set(lines or ()))
    if lines is None or not (notes_changed or index is None):
        return len(index.current()) if index is not None else 0
    fresh = notes.refresh(index or notes.NotesIndex(), lines, moment.date())
    text = notes.dumps(fresh).encode("utf-8")
    count = len(fresh.current())
    if text != stored.data:
        writes[stored.path] = (stored, text)
        result.said.append(f"indexed {notes.NOTES}: {count} current notes")
    return count


def _write_and_commit(
    vault: Vault,
    repo: VaultRepo,
    registry: OwnWrites,
    writes: dict[Path, tuple[_Read, bytes]],
    moment: datetime,
    result: Settled,
) -> None:
    written: dict[Path, tuple[_Read, bytes]] = {}
    for path, (before, data) in writes.items():
        try:
            write_atomic(path, data, expected=before.digest, registry=registry, vault=vault)
        except ConflictError:
            result.problems.append(
                f"{path.name}: you saved it while dreaming was updating it; kept yours, "
                "the next save brings it up to date"
            )
            continue
        written[path] = (before, data)
    if not written:
        return
    names = [p.name for p in written]
    message = "station: " + ", ".join(
        f"heat {n}" if n == card.CARD else f"index {notes.NOTES} ({n})" for n in names
    )
    try:
        ours = {p: d for p, (_, d) in written.items()}
        sha = repo.commit_pipeline_blobs(ours, message, _run_id(moment))
    except GitError as e:
        _undo(vault, written, registry)
        result.problems.append(f"{e}; put back what dreaming wrote, nothing committed")
        return
    for name in names:
        result.said.append("heated " + name if name == card.CARD else "wrote " + name)
    if sha:
        result.said.append(f"committed {sha[:7]} ({', '.join(names)})")


def _undo(vault: Vault, written: dict[Path, tuple[_Read, bytes]], registry: OwnWrites) -> None:
    """Put back the files we wrote but could not commit; a person's save since stays."""
    for path, (before, data) in written.items():
        try:
            if before.data is None:
                if current_checksum(path) == checksum(data):
                    path.unlink()
            else:
                write_atomic(
                    path, before.data, expected=checksum(data), registry=registry, vault=vault
                )
        except (ConflictError, OSError):
            continue


def _read(vault: Vault, path: Path) -> _Read:
    """The file as it is: never through a link (writing would replace the link by a file,
    and reading would follow it anywhere), never a wait on a named pipe. The card and
    the notes check their own, smaller, sizes (`card.MAX_CARD_BYTES`, `notes.MAX_NOTES_BYTES`)."""
    name = f"{path.parent.name}/{path.name}" if path.parent.name == ".dreaming" else path.name
    cap = MAX_INDEX_BYTES if path.name == notes.INDEX else MAX_PAGE_BYTES
    try:
        return _Read(path, read_optional(vault, path, cap=cap, what="this file"))
    except OSError as e:
        raise VaultError(
            f"{name}: cannot be read ({e.strerror}); make it a readable file, then save again"
        ) from e


def git_head(repo: VaultRepo) -> str:
    """`branch@short-head`, where the head is the last commit that changed more than the
    station files: heating the card and committing it must not make the card stale."""
    git = repo.repo
    if git.head.is_detached:
        return f"detached@{git.head.commit.hexsha[:7]}"
    branch = git.head.ref.name
    if not git.head.is_valid():
        return "(no commits)"
    excluded = [f":(exclude,top,literal){p}" for p in (*STATION_FILES, f".dreaming/{notes.INDEX}")]
    # Pathspec magic, whatever the person's environment says about literal pathspecs.
    found = git.git.log(
        "-1", "--format=%H", "HEAD", "--", ":(top)", *excluded, env={"GIT_LITERAL_PATHSPECS": "0"}
    ).strip()
    return f"{branch}@{(found or git.head.commit.hexsha)[:7]}"


def article_stems(vault: Vault) -> list[str]:
    try:
        # A link is no article (every reader of articles/ refuses one), so it is no name
        # the card may point at either.
        return sorted(
            p.stem for p in vault.articles.glob("*.md") if p.is_file() and not p.is_symlink()
        )
    except OSError:
        return []


def look(vault: Vault, query: str, ledger: Ledger | None = None) -> Look:
    """The plane, the articles the query names, and the current notes matching it.

    Read-only: without an index yet, NOTES.md is read as a first refresh would."""
    query = query[: notes.MAX_NOTE_CHARS]
    stored = _read(vault, index_path(vault))
    if stored.data is not None:
        index = notes.loads(stored.data, vault.rel(stored.path))
    else:
        page = _read(vault, vault.root / notes.NOTES)
        index = notes.from_lines(notes.note_lines(page.data or b""), datetime.now(UTC).date())
    return Look(card.PLANE, _named(vault, query, ledger), notes.matching(index, query))


def _named(vault: Vault, query: str, ledger: Ledger | None) -> list[str]:
    """Article stems whose name or alias shares words with `query`, best first."""
    from dreaming.article.titles import stem_for_title

    stems = article_stems(vault)
    names = [(s.replace("_", " "), s) for s in stems]
    if ledger is not None:
        from dreaming.errors import UnsafePathError
        from dreaming.ledger.article_index import alias_titles

        known = set(stems)
        for alias, title in alias_titles(ledger):
            try:
                stem = stem_for_title(title)
            except UnsafePathError:
                continue
            if stem in known:
                names.append((alias, stem))
    wanted = notes.query_words(query)
    best: dict[str, tuple[int, float]] = {}
    for name, stem in names:
        words = notes.query_words(name)
        hits = len(words & wanted)
        if hits:
            score = (hits, hits / len(words))
            best[stem] = max(best.get(stem, score), score)
    ranked = sorted(best, key=lambda s: (-best[s][0], -best[s][1], s))
    return ranked[: notes.MAX_LOOK]
