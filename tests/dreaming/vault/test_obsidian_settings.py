"""`.obsidian/` as `dreaming init` lays it down: what a new vault needs and nothing more.

Obsidian makes the folder itself when it first opens a vault (`app.json`,
`appearance.json`, `core-plugins.json`, `workspace.json`) and fills in every setting a
file leaves out with its default. Init writes two files: the link settings the pipeline's
links assume, and the core plugins a reader browses a wiki with. No community plugin, no
theme, no per-device workspace, nothing naming the person or their machine.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from dreaming.vault.scaffold import init_vault


def settings(tmp_path: Path) -> Path:
    return init_vault(tmp_path / "v").vault.root / ".obsidian"


def test_init_writes_the_link_settings_and_the_core_plugins_only(tmp_path: Path) -> None:
    folder = settings(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["app.json", "core-plugins.json"]


def test_links_are_wikilinks_by_the_shortest_name_and_follow_a_rename(tmp_path: Path) -> None:
    # What the pipeline writes: `[[Stem|words]]`, bare names inside articles/ (Obsidian's
    # "shortest" form); a person renaming a note in Obsidian gets its links renamed too.
    app = json.loads((settings(tmp_path) / "app.json").read_text(encoding="utf-8"))
    assert app == {
        "alwaysUpdateLinks": True,
        "newLinkFormat": "shortest",
        "useMarkdownLinks": False,
    }


def test_the_core_plugins_are_switches_and_no_paid_service_is_on(tmp_path: Path) -> None:
    plugins = json.loads((settings(tmp_path) / "core-plugins.json").read_text(encoding="utf-8"))
    assert all(isinstance(k, str) and isinstance(v, bool) for k, v in plugins.items())
    for browsing in ("file-explorer", "global-search", "graph", "backlink", "outline"):
        assert plugins[browsing] is True, browsing
    # Sync and Publish are paid services; daily notes and templates would add notes of
    # their own at the top of the vault, where no article lives.
    for off in ("sync", "publish", "daily-notes", "templates"):
        assert plugins[off] is False, off


def test_no_community_plugin_theme_or_workspace_comes_with_a_new_vault(tmp_path: Path) -> None:
    folder = settings(tmp_path)
    for absent in ("community-plugins.json", "plugins", "themes", "snippets", "workspace.json"):
        assert not (folder / absent).exists(), absent


def test_nothing_in_the_settings_names_a_person_or_a_place_on_their_machine(
    tmp_path: Path,
) -> None:
    folder = settings(tmp_path)
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        for personal in (str(Path.home()), str(tmp_path), "/", "\\", "~"):
            assert personal not in text, (path.name, personal)


def test_the_per_device_workspace_obsidian_writes_later_stays_out_of_git(tmp_path: Path) -> None:
    root = settings(tmp_path).parent
    for name in ("workspace.json", "workspace-mobile.json"):
        (root / ".obsidian" / name).write_text("{}", encoding="utf-8")
    ignored = subprocess.run(
        ["git", "-C", str(root), "check-ignore", ".obsidian/workspace.json",
         ".obsidian/workspace-mobile.json", ".obsidian/app.json"],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    assert ignored == [".obsidian/workspace.json", ".obsidian/workspace-mobile.json"]
