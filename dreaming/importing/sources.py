"""What `dreaming import` reads: a SOURCE argument → a `Source`, and a source → its `Plan`
(the files found, the ChatGPT exports to split, what could not be read).

A named source (`claude-code`, `codex`, `pi`) is a host's session folder, at its default
place under $HOME or at `NAME=PATH`; anything else is a path: a ChatGPT export (`.zip`
or `conversations.json`), a folder, or one transcript file. Finding files reads names
and sizes only (a folder's files also their first 64 KB, to tell their format), so
10,000 sessions cost a list of 10,000 paths, never their contents.
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from dreaming.capture.hook import sessions_home
from dreaming.errors import SourceError
from dreaming.importing.chatgpt_export import Export, json_export, zip_export
from dreaming.importing.item import Item
from dreaming.raw.detect import HEAD_BYTES, detect

SourceKind = Literal["claude-code", "codex", "pi", "chatgpt", "folder", "file"]
NAMED_KINDS: tuple[SourceKind, ...] = ("claude-code", "codex", "pi")
# What each host keeps in its session folder beside its sessions is not read.
TAKEN: dict[str, tuple[str, ...]] = {
    "claude-code": (".jsonl", ".meta.json"),  # sessions, subagents and their sidecars
    "codex": (".jsonl", ".json"),  # rollouts; the oldest CLI wrote one JSON document
    "pi": (".jsonl",),
}
NOT_UTF8 = "its name is not UTF-8; rename it to import it"
USAGE = (
    "give claude-code, codex or pi (or NAME=PATH for another folder), "
    "a ChatGPT export .zip or conversations.json, a folder, or a transcript file"
)


@dataclass(frozen=True)
class Source:
    kind: SourceKind
    path: Path
    """The session folder, the export, the folder or the file, absolute."""
    spec: str
    """The argument as given, for messages."""
    default: bool = False
    """A named source at its default place (absent there: nothing to import, no error)."""

    @property
    def label(self) -> str:
        return self.kind if self.kind in NAMED_KINDS else self.path.name or str(self.path)


@dataclass
class Plan:
    source: Source
    files: list[Item] = field(default_factory=list)
    exports: list[Export] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One line each: a folder or file that could not be read (the rest goes on)."""
    skipped: int = 0
    """Files in a folder no reader takes."""
    missing: bool = False
    """A named source's default folder does not exist."""
    vault: Path | None = None
    """Left out of every walk."""


def parse_source(spec: str, env: Mapping[str, str] | None = None) -> Source:
    """The source a SOURCE argument names; a path that is not there is refused."""
    env = os.environ if env is None else env
    named = _named(spec)
    if named is not None:
        return Source(named, default_root(named, env), spec, default=True)
    name, eq, given = spec.partition("=")
    named = _named(name) if eq else None
    if named is not None:
        root = _absolute(given)
        if not root.is_dir():
            raise SourceError(f"{spec}: {root} is not a folder; give {name}=FOLDER")
        return Source(named, root, spec)
    path = _absolute(spec)
    if not _utf8(path):
        raise SourceError(f"{_shown(path)}: {NOT_UTF8}")
    if not path.exists():
        raise SourceError(f"{spec}: no such file or folder; {USAGE}")
    if path.is_dir():
        return Source("folder", path, spec)
    if not path.is_file():
        # A FIFO or a device: reading it would wait on a writer, or never end.
        raise SourceError(f"{spec}: not a regular file; {USAGE}")
    if zipfile.is_zipfile(path) or path.suffix.lower() == ".zip":
        return Source("chatgpt", path, spec)
    try:
        kind = _detected(path)
    except OSError as e:
        raise SourceError(f"{spec}: cannot be read ({e.strerror or e}); check it") from None
    if kind == "chatgpt":
        return Source("chatgpt", path, spec)
    if kind is None:
        raise SourceError(f"{spec}: not a transcript dreaming reads; {USAGE}")
    return Source("file", path, spec)


def _named(name: str) -> SourceKind | None:
    return next((kind for kind in NAMED_KINDS if kind == name), None)


def default_root(name: str, env: Mapping[str, str]) -> Path:
    return sessions_home(name, env).absolute()


def plan(source: Source, vault: Path | None = None) -> Plan:
    """What `source` holds; never what is in `vault` (the vault imported into: a source
    inside it is refused, a folder holding it is read around it). An export that is not
    one (no conversations.json, a zip-slip member) raises SourceError: nothing of it is
    imported."""
    if vault is not None:
        real = Path(os.path.realpath(source.path))
        if real == vault or vault in real.parents:
            raise SourceError(
                f"{source.spec}: inside the vault {vault}; what is there is not imported "
                "again (dreaming ingest reads Raw/)"
            )
    p = Plan(source, vault=vault)
    if source.kind == "chatgpt":
        p.exports.append(_export(source.path))
    elif source.kind == "file":
        kind = _detected(source.path) or "raw"
        # A hidden name in Raw/ would never be ingested.
        name = source.path.name.lstrip(".") or "transcript"
        p.files.append(_file_item(source.path, name, kind, source.path.stat()))
    elif source.kind == "folder":
        _plan_folder(p)
    elif not source.path.is_dir():
        p.missing = True
    else:
        endings = TAKEN[source.kind]
        for path, rel, st in walk(source.path, p.problems, vault):
            if path.name.endswith(endings):
                p.files.append(_file_item(path, rel, source.kind, st))
    return p


def _plan_folder(p: Plan) -> None:
    for path, rel, st in walk(p.source.path, p.problems, p.vault):
        try:
            kind = _detected(path)
        except OSError as e:
            p.problems.append(f"{path}: cannot be read ({e.strerror or e}); skipped")
            continue
        if kind == "chatgpt":
            p.exports.append(json_export(path, st))
        elif kind is None:
            p.skipped += 1
        else:
            p.files.append(_file_item(path, rel, kind, st))


def walk(
    root: Path, problems: list[str], skip: Path | None = None
) -> Iterator[tuple[Path, str, os.stat_result]]:
    """Every regular file under `root` (links to files followed, hidden names and the
    folder `skip` left out), in a stable order, with its path relative to `root` and its
    stat."""

    def unreadable(e: OSError) -> None:
        problems.append(f"{e.filename}: cannot be read ({e.strerror or e}); skipped")

    for folder, dirs, names in os.walk(root, onerror=unreadable):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not _is(base / d, skip))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = base / name
            if not _utf8(path):
                # The ledger and Raw/ hold UTF-8 names only.
                problems.append(f"{_shown(path)}: {NOT_UTF8}; skipped")
                continue
            try:
                st = path.stat()
            except OSError as e:
                problems.append(f"{path}: cannot be read ({e.strerror or e}); skipped")
                continue
            if skip is not None and path.is_symlink() and skip in _real(path).parents:
                continue  # a link back into the vault: what is there is not imported again
            if stat.S_ISREG(st.st_mode):
                yield path, path.relative_to(root).as_posix(), st


def _utf8(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(path: Path) -> str:
    """A name that is not UTF-8, printable: its odd bytes as `\\xNN`."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _is(folder: Path, skip: Path | None) -> bool:
    # Links to folders are not walked into, so only a folder of the same name can be it.
    return skip is not None and folder.name == skip.name and Path(os.path.realpath(folder)) == skip


def _file_item(path: Path, rel: str, source: str, st: os.stat_result) -> Item:
    return Item(
        key=str(path),
        kind="file",
        source=source,
        rel=rel,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        when=st.st_mtime,
        path=path,
    )


def _export(path: Path) -> Export:
    try:
        if zipfile.is_zipfile(path):
            return zip_export(path)
        if path.suffix.lower() == ".zip":
            raise SourceError(
                f"{path}: not a readable zip (a download cut short?); download the export again"
            )
        return json_export(path, path.stat())
    except OSError as e:
        raise SourceError(f"{path}: cannot be read ({e.strerror or e}); check it") from None


def _detected(path: Path) -> str | None:
    with path.open("rb") as f:
        return detect(path, f.read(HEAD_BYTES))


def _absolute(given: str) -> Path:
    return Path(os.path.abspath(Path(given).expanduser()))
