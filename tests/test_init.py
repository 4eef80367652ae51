from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from dreaming.errors import VaultError
from dreaming.scaffold import init_vault

META_PAGES = {
    "Editorial_Guidelines",
    "Bucketing",
    "Article_Conventions",
    "Infobox_Schemas",
    "Category_Definitions",
    "Entities",
    "Summary_Style",
    "Buckets",
    "Chunking",
    "Topics_to_Ignore",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def test_init_lays_out_the_whole_vault(tmp_path: Path) -> None:
    root = init_vault(tmp_path / "v").vault.root
    for name in ("STATION.md", "NOTES.md", ".gitignore", ".obsidian/app.json"):
        assert (root / name).is_file(), name
    for folder in ("Raw", "articles", "Talk", "Log", "Meta"):
        assert (root / folder).is_dir(), folder
    assert {p.stem for p in (root / "Meta").glob("*.md")} == META_PAGES
    assert (root / ".dreaming" / "ledger.sqlite").is_file()


def test_init_commits_what_it_added_and_nothing_is_left_over(tmp_path: Path) -> None:
    root = init_vault(tmp_path / "v").vault.root
    assert git(root, "status", "--porcelain") == ""
    committed = git(root, "ls-files").split()
    assert "Meta/Entities.md" in committed
    assert not any(p.startswith(".dreaming") for p in committed)


def test_a_second_init_adds_nothing(tmp_path: Path) -> None:
    init_vault(tmp_path / "v")
    again = init_vault(tmp_path / "v")
    assert again.added == []
    assert again.commit is None


def test_init_never_overwrites_a_persons_file(tmp_path: Path) -> None:
    root = tmp_path / "v"
    (root / "Meta").mkdir(parents=True)
    (root / "STATION.md").write_text("my ticket\n")
    (root / "Meta" / "Entities.md").write_text("my policy\n")
    report = init_vault(root)
    assert (root / "STATION.md").read_text() == "my ticket\n"
    assert (root / "Meta" / "Entities.md").read_text() == "my policy\n"
    assert "STATION.md" in report.kept
    assert "STATION.md" not in report.added


def test_an_existing_repository_keeps_its_history_and_pending_work(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "diary.md").write_text("day one\n")
    git(root, "add", "diary.md")
    git(root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "mine")
    (root / "diary.md").write_text("day one\nday two, not committed\n")
    (root / "draft.md").write_text("staged draft\n")
    git(root, "add", "draft.md")
    init_vault(root)
    log = git(root, "log", "--format=%s").splitlines()
    assert log[-1] == "mine"
    assert len(log) == 2
    assert "draft.md" not in git(root, "show", "--name-only", "--format=", "HEAD")
    pending = git(root, "status", "--porcelain")
    assert " M diary.md" in pending
    assert "A  draft.md" in pending


def test_init_on_a_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(VaultError, match="is a file, not a folder"):
        init_vault(f)


def test_init_works_in_a_git_worktree(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    git(
        main,
        "-c",
        "user.name=P",
        "-c",
        "user.email=p@x",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "0",
    )
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    report = init_vault(tmp_path / "wt")
    assert report.commit is not None
    assert git(tmp_path / "wt", "status", "--porcelain") == ""
