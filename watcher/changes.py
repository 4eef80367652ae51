"""Which vault changes the watcher reacts to, and by which route: pure functions of paths.

The filter runs on every raw event watchfiles sees, so it only looks at names: git's
and our own state, Obsidian's settings and trash, editors' temp and swap files,
partial downloads and our own atomic-write temps are routed nowhere, and so is
anything outside the places a route watches. `sort_changes` turns one debounced batch into
the work of each route, each path once, its last change winning.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

from watchfiles import Change

from dreaming.station.settle import Changed
from dreaming.vault.writes import is_write_temp

Route = Literal["raw", "meta", "station", "notes", "article"]

IGNORED_FOLDERS = frozenset({".git", ".dreaming", ".obsidian", ".trash"})
WAKE_FOLDERS = frozenset({".git", ".dreaming"})
ARTICLE_FOLDERS = frozenset({"articles", "Talk", "Log"})
TOP_FILES: dict[str, Route] = {"STATION.md": "station", "NOTES.md": "notes"}
_TEMP_SUFFIXES = (
    ".swp",
    ".swx",
    ".swo",
    "~",
    ".tmp",
    ".crdownload",
    ".part",
    ".download",
)
_TEMP_NAMES = frozenset({"4913", ".DS_Store", "Thumbs.db", "desktop.ini"})


def is_temp_name(name: str) -> bool:
    """An editor's swap, backup or temp file, a partial download, or our write temp."""
    return (
        name in _TEMP_NAMES
        or name.endswith(_TEMP_SUFFIXES)
        or name.startswith((".#", "~$"))
        or (name.startswith("#") and name.endswith("#"))
        or "___jb_tmp___" in name
        or "___jb_old___" in name
        or is_write_temp(name)
    )


def route_of(rel: str) -> Route | None:
    """The route of a vault-relative POSIX path, or None when no route watches it.

    Folders count too: `Raw` and folders under it (a folder moved into Raw/ brings
    files no event named), never the folders of the other routes."""
    parts = PurePosixPath(rel).parts
    if not parts or parts[0] in IGNORED_FOLDERS or rel.startswith("../"):
        return None
    if any(part.startswith(".") or is_temp_name(part) for part in parts):
        return None
    top = parts[0]
    if len(parts) == 1:
        return "raw" if top == "Raw" else TOP_FILES.get(top)
    if top == "Raw":
        return "raw"
    if not parts[-1].endswith(".md"):
        return None
    if top == "Meta":
        return "meta" if len(parts) == 2 else None
    return "article" if top in ARTICLE_FOLDERS else None


def relative(root: str, path: str) -> str | None:
    """`path` relative to the vault `root` (both absolute, as watchfiles gives them)."""
    prefix = root.rstrip("/") + "/"
    if not path.startswith(prefix):
        return None
    return path[len(prefix) :]


class VaultFilter:
    """The `watch_filter` for watchfiles: True for a change some route handles, and for
    changes in the state folders, which no route handles but which must still wake the
    loop: watchfiles yields nothing while every change is filtered out, and a night
    writes the ledger for hours, so waiting work (a file still being copied) would wait
    with it. `sort_changes` drops them."""

    def __init__(self, root: str) -> None:
        self._root = root

    def __call__(self, change: Change, path: str) -> bool:
        rel = relative(self._root, path)
        if rel is None:
            return False
        return route_of(rel) is not None or rel.partition("/")[0] in WAKE_FOLDERS


@dataclass
class Work:
    """One batch, sorted by route. Only paths: the kind of change is not kept, because a
    set of events has no order (a save by delete-and-create gives both), so each route
    looks at the file when it handles it."""

    raw: set[str] = field(default_factory=set)
    """Raw files and folders (Raw itself included)."""
    meta: set[str] = field(default_factory=set)
    """Meta page names (no `.md`)."""
    station: set[Changed] = field(default_factory=set)
    articles: set[str] = field(default_factory=set)
    """Files under articles/, Talk/, Log/."""

    def __bool__(self) -> bool:
        return bool(self.raw or self.meta or self.station or self.articles)


def sort_changes(root: str, changes: Iterable[tuple[Change, str]]) -> Work:
    """The work of each route in one debounced batch of (change, absolute path)."""
    return work_of(rel for _, path in changes if (rel := relative(root, path)) is not None)


def work_of(rels: Iterable[str]) -> Work:
    """The work of each route for these vault-relative paths (none for a path no route
    watches)."""
    work = Work()
    for rel in rels:
        route = route_of(rel)
        if route == "raw":
            work.raw.add(rel)
        elif route == "meta":
            work.meta.add(PurePosixPath(rel).stem)
        elif route == "article":
            work.articles.add(rel)
        elif route == "station" or route == "notes":
            work.station.add(route)
    return work
