"""The history a new vault could start from: each host's session folder at its default
place and ChatGPT exports in the download folder, found and counted, never read.

A folder is listed (names, sizes, times), not opened file by file; a `.zip` in the
download folder is asked for its table of contents only, to tell an export from other
archives. No conversation is read until the person says yes (`dreaming import`).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dreaming.importing.sources import NAMED_KINDS, TAKEN, Source, SourceKind, default_root, walk

COUNT_CAP = 20_000
"""Files counted in one folder before it is called "more than"; a listing past this
would keep a first run waiting for a number."""
ZIPS_LOOKED_AT = 30
"""The newest `.zip` files in the download folder whose table of contents is asked."""
_CONVERSATIONS = "conversations.json"
_SESSIONS: dict[str, tuple[str, ...]] = {
    "claude-code": (".jsonl",),  # not the .meta.json sidecars beside them
    "codex": (".jsonl", ".json"),
    "pi": (".jsonl",),
}


@dataclass(frozen=True)
class Found:
    source: Source
    sessions: int | None
    """Session files in the folder; None for a ChatGPT export (known once read)."""
    size: int
    first: float | None
    last: float | None
    """The range of the files' last changes (epoch seconds)."""
    more: bool = False
    """Counting stopped at COUNT_CAP."""
    problem: str | None = None
    """One line: why (part of) it could not be looked at."""


def discover(env: Mapping[str, str] | None = None) -> list[Found]:
    """Every history found under the person's home, hosts first, then exports."""
    env = os.environ if env is None else env
    found = [f for kind in NAMED_KINDS if (f := _sessions(kind, env)) is not None]
    return found + _exports(env)


def _sessions(kind: SourceKind, env: Mapping[str, str]) -> Found | None:
    root = default_root(kind, env)
    if not root.is_dir():
        return None
    problems: list[str] = []
    count = size = 0
    first: float | None = None
    last: float | None = None
    more = False
    # `walk` does not follow links to folders, so a link loop is never entered.
    for path, _, st in walk(root, problems):
        if not path.name.endswith(TAKEN[kind]):
            continue
        size += st.st_size
        if not path.name.endswith(_SESSIONS[kind]):
            continue
        if count == COUNT_CAP:
            more = True
            break
        count += 1
        first = st.st_mtime if first is None else min(first, st.st_mtime)
        last = st.st_mtime if last is None else max(last, st.st_mtime)
    if not count and not problems:
        return None
    problem = None
    if problems:
        problem = problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    source = Source(kind, root, kind, default=True)
    return Found(source, count, size, first, last, more, problem)


def downloads(env: Mapping[str, str]) -> Path:
    """Where a browser saves an export: $XDG_DOWNLOAD_DIR, else ~/Downloads."""
    given = env.get("XDG_DOWNLOAD_DIR")
    if given:
        return Path(given).expanduser()
    return Path(env.get("HOME") or Path.home()) / "Downloads"


def _exports(env: Mapping[str, str]) -> list[Found]:
    folder = downloads(env)
    try:
        zips = [e for e in os.scandir(folder) if e.name.lower().endswith(".zip") and e.is_file()]
    except OSError:
        return []
    zips.sort(key=lambda e: e.stat().st_mtime, reverse=True)
    out: list[Found] = []
    for entry in zips[:ZIPS_LOOKED_AT]:
        path = Path(entry.path)
        if not _holds_conversations(path):
            continue
        st = entry.stat()
        source = Source("chatgpt", path.absolute(), str(path))
        out.append(Found(source, None, st.st_size, st.st_mtime, st.st_mtime))
    return out


def _holds_conversations(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.rsplit("/", 1)[-1] == _CONVERSATIONS for n in z.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
