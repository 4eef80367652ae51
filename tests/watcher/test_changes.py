"""Which changes the watcher routes where: names only, no disk."""

from __future__ import annotations

import pytest
from watchfiles import Change

from watcher.changes import VaultFilter, is_temp_name, route_of, sort_changes

ROOT = "/home/person/vault"


@pytest.mark.parametrize(
    ("rel", "route"),
    [
        ("Raw/session.jsonl", "raw"),
        ("Raw/2026/01/chat.md", "raw"),
        ("Raw", "raw"),
        ("Raw/sub", "raw"),
        ("Meta/Chunking.md", "meta"),
        ("STATION.md", "station"),
        ("NOTES.md", "notes"),
        ("articles/Sourdough.md", "article"),
        ("Talk/Sourdough.md", "article"),
        ("Log/2026-01-02.md", "article"),
    ],
)
def test_each_watched_place_has_its_route(rel: str, route: str) -> None:
    assert route_of(rel) == route


@pytest.mark.parametrize(
    "rel",
    [
        ".git/index",
        ".git/objects/ab/cdef",
        ".dreaming/ledger.sqlite-wal",
        ".obsidian/workspace.json",
        ".trash/Old.md",
        "Meta/sub/Page.md",
        "Meta/notes.txt",
        "articles/picture.png",
        "README.md",
        "elsewhere/file.md",
        "Raw/.hidden.jsonl",
        "articles/.Sourdough.md.x1y2z3a4.tmp",
    ],
)
def test_state_folders_and_unrouted_places_have_no_route(rel: str) -> None:
    assert route_of(rel) is None


@pytest.mark.parametrize(
    "name",
    [
        ".Sourdough.md.swp",
        ".Sourdough.md.swx",
        "4913",
        "Sourdough.md~",
        ".#Sourdough.md",
        "#Sourdough.md#",
        "Sourdough.md___jb_tmp___",
        "Sourdough.md___jb_old___",
        "~$report.md",
        ".DS_Store",
        "session.jsonl.crdownload",
        "session.jsonl.part",
        "session.jsonl.download",
        ".Sourdough.md.k3j_9x0a.tmp",
    ],
)
def test_editor_and_download_temps_are_never_routed(name: str) -> None:
    assert is_temp_name(name)
    assert route_of(f"Raw/{name}") is None
    assert route_of(f"articles/{name}") is None


def test_a_transcript_name_is_not_mistaken_for_a_temp() -> None:
    assert not is_temp_name("session-4913.jsonl")
    assert not is_temp_name("Sourdough.md")


def test_the_filter_wakes_the_loop_for_state_folders_but_nothing_routes_them() -> None:
    keep = VaultFilter(ROOT)
    assert keep(Change.modified, f"{ROOT}/.dreaming/ledger.sqlite-wal")
    assert keep(Change.added, f"{ROOT}/Raw/a.jsonl")
    assert not keep(Change.modified, f"{ROOT}/.obsidian/workspace.json")
    assert not keep(Change.added, f"{ROOT}/Raw/.a.jsonl.swp")
    assert not keep(Change.added, "/elsewhere/Raw/a.jsonl")
    assert not sort_changes(ROOT, {(Change.modified, f"{ROOT}/.dreaming/ledger.sqlite-wal")})


def test_a_batch_is_sorted_by_route_each_path_once() -> None:
    work = sort_changes(
        ROOT,
        {
            (Change.added, f"{ROOT}/Raw/a.jsonl"),
            (Change.modified, f"{ROOT}/Raw/a.jsonl"),
            (Change.deleted, f"{ROOT}/Raw/b.jsonl"),
            (Change.modified, f"{ROOT}/Meta/Chunking.md"),
            (Change.modified, f"{ROOT}/STATION.md"),
            (Change.modified, f"{ROOT}/NOTES.md"),
            (Change.deleted, f"{ROOT}/articles/Sourdough.md"),
            (Change.modified, f"{ROOT}/.git/index"),
        },
    )
    assert work.raw == {"Raw/a.jsonl", "Raw/b.jsonl"}
    assert work.meta == {"Chunking"}
    assert work.station == {"station", "notes"}
    assert work.articles == {"articles/Sourdough.md"}
