from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dreaming.errors import GitError, VaultError
from dreaming.ledger import Ledger, write_journal
from dreaming.vault import Vault, scaffold
from dreaming.vault import repo as gitops
from dreaming.vault.scaffold import init_vault

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
    assert [p for p in committed if p.startswith(".dreaming")] == [".dreaming/.gitignore"]


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


def test_a_save_between_inits_copy_and_its_commit_stays_the_persons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    real = scaffold._upgrade_gitignore

    def save_meanwhile(repo: gitops.VaultRepo, journal: scaffold.Journal) -> object:
        card = root / "STATION.md"
        card.write_bytes(card.read_bytes() + b"the person's first words\n")
        return real(repo, journal)

    monkeypatch.setattr(scaffold, "_upgrade_gitignore", save_meanwhile)
    init_vault(root)
    assert b"the person's first words" not in git(root, "show", "HEAD:STATION.md").encode()
    assert git(root, "status", "--porcelain") == " M STATION.md\n"


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


def existing_repo(root: Path, gitignore: str | None = None) -> Path:
    """A folder already under git, with the person's own first commit."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "diary.md").write_text("day one\n")
    if gitignore is not None:
        (root / ".gitignore").write_text(gitignore)
    git(root, "add", "-A")
    git(root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "mine")
    return root


def test_transcripts_stay_out_of_git_in_a_folder_with_its_own_gitignore(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v", gitignore="*.tmp\n")
    init_vault(root)
    (root / "Raw" / "chat.jsonl").write_text('{"api_key": "sk-secret"}\n')
    git(root, "add", "-A")
    assert "Raw/chat.jsonl" not in git(root, "diff", "--cached", "--name-only")
    assert "Raw/README.md" in git(root, "ls-files")
    assert (root / ".gitignore").read_text() == "*.tmp\n"


def test_rules_already_in_the_gitignore_are_not_repeated(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v", gitignore="Raw/\n.dreaming/\n")
    init_vault(root)
    init_vault(root)
    exclude = (root / ".git" / "info" / "exclude").read_text().splitlines()
    assert "Raw/*" not in exclude
    assert exclude.count(".dreaming/*") == 1


def old_vault(root: Path) -> Path:
    """A vault laid out before the notes index: `.dreaming/` ignored as a whole."""
    init_vault(root)
    ignore = root / ".gitignore"
    text = ignore.read_text().replace(
        ".dreaming/*\n!.dreaming/session-notes.json\n", ".dreaming/\n"
    )
    ignore.write_text(text)
    git(root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qam", "old rule")
    exclude = root / ".git" / "info" / "exclude"
    exclude.write_text(
        exclude.read_text().replace(".dreaming/*\n!.dreaming/session-notes.json\n", ".dreaming/\n")
    )
    return root


def notes_index_ignored(root: Path) -> bool:
    (root / ".dreaming" / "session-notes.json").write_text("{}\n")
    found = subprocess.run(
        ["git", "check-ignore", "-q", ".dreaming/session-notes.json"], cwd=root, check=False
    )
    return found.returncode == 0


def test_init_upgrades_the_old_dreaming_rule_of_a_vaults_gitignore(tmp_path: Path) -> None:
    root = old_vault(tmp_path / "v")
    before = (root / ".gitignore").read_text()
    assert notes_index_ignored(root)
    report = init_vault(root)
    after = (root / ".gitignore").read_text()
    assert after == before.replace(".dreaming/\n", ".dreaming/*\n!.dreaming/session-notes.json\n")
    assert report.upgraded == [".gitignore"]
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [".gitignore"]
    assert not notes_index_ignored(root)
    assert git(root, "check-ignore", ".dreaming/ledger.sqlite").strip() == ".dreaming/ledger.sqlite"


def test_init_leaves_a_gitignore_with_pending_changes_alone(tmp_path: Path) -> None:
    root = old_vault(tmp_path / "v")
    ignore = root / ".gitignore"
    ignore.write_text(ignore.read_text() + "*.bak\n")
    before = ignore.read_text()
    head = git(root, "rev-parse", "HEAD")
    report = init_vault(root)
    assert ignore.read_text() == before
    assert report.upgraded == []
    assert git(root, "rev-parse", "HEAD") == head


def test_a_folder_with_its_own_gitignore_can_track_the_notes_index(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v", gitignore="*.tmp\n")
    init_vault(root)
    assert not notes_index_ignored(root)
    assert git(root, "check-ignore", ".dreaming/ledger.sqlite").strip() == ".dreaming/ledger.sqlite"


def test_a_fresh_vault_keeps_its_transcript_rules_in_its_gitignore_only(tmp_path: Path) -> None:
    root = init_vault(tmp_path / "v").vault.root
    assert "Raw/*" in (root / ".gitignore").read_text().splitlines()
    assert "Raw/*" not in (root / ".git" / "info" / "exclude").read_text().splitlines()


def test_transcripts_stay_out_when_the_exclude_rules_are_removed(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v", gitignore="*.tmp\n")
    init_vault(root)
    exclude = root / ".git" / "info" / "exclude"
    kept = [line for line in exclude.read_text().splitlines() if not line.startswith("Raw/")]
    exclude.write_text("\n".join(kept) + "\n")
    init_vault(root)
    (root / "Raw" / "chat.jsonl").write_text("{}\n")
    git(root, "add", "-A")
    assert "Raw/chat.jsonl" not in git(root, "diff", "--cached", "--name-only")


def test_init_writes_no_file_outside_through_an_exclude_that_is_a_link(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v", gitignore="*.tmp\n")
    outside = tmp_path / "shared-exclude"
    outside.write_text("*.swp\n")
    exclude = root / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.unlink(missing_ok=True)
    exclude.symlink_to(outside)
    init_vault(root)
    assert outside.read_text() == "*.swp\n"
    assert "*.swp" in exclude.read_text().splitlines(), "the rules it held are kept"
    assert ".dreaming/*" in exclude.read_text().splitlines()


def conflicted_merge(root: Path) -> None:
    existing_repo(root)
    me = ("-c", "user.name=P", "-c", "user.email=p@x")
    git(root, "checkout", "-qb", "other")
    (root / "diary.md").write_text("theirs\n")
    git(root, *me, "commit", "-qam", "theirs")
    git(root, "checkout", "-q", "main")
    (root / "diary.md").write_text("ours\n")
    git(root, *me, "commit", "-qam", "ours")
    subprocess.run(["git", *me, "merge", "-q", "other"], cwd=root, capture_output=True)


def test_init_during_a_merge_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = tmp_path / "v"
    conflicted_merge(root)
    before = git(root, "status", "--porcelain")
    with pytest.raises(GitError, match=r"merge is in progress.*git merge --abort"):
        init_vault(root)
    assert git(root, "status", "--porcelain") == before
    assert not (root / "STATION.md").exists()


@pytest.mark.parametrize(
    ("start", "named"),
    [
        (("rebase", "other"), "rebase"),
        (("cherry-pick", "other"), "cherry-pick"),
    ],
)
def test_init_during_a_rebase_or_cherry_pick_is_refused(
    tmp_path: Path, start: tuple[str, ...], named: str
) -> None:
    root = tmp_path / "v"
    conflicted_merge(root)
    git(root, "merge", "--abort")
    me = ("-c", "user.name=P", "-c", "user.email=p@x")
    subprocess.run(["git", *me, *start], cwd=root, capture_output=True)
    with pytest.raises(GitError, match=rf"{named} is in progress"):
        init_vault(root)
    assert not (root / "STATION.md").exists()


def test_init_on_a_detached_head_is_refused(tmp_path: Path) -> None:
    root = existing_repo(tmp_path / "v")
    git(root, "checkout", "-q", "--detach")
    with pytest.raises(GitError, match="no branch is checked out"):
        init_vault(root)


def test_init_in_a_bare_repository_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    subprocess.run(["git", "init", "-q", "--bare", str(root)], check=True)
    with pytest.raises(GitError, match="bare git repository"):
        init_vault(root)
    assert not (root / "Raw").exists()


@pytest.mark.parametrize(
    "folder", ["Raw", "Meta", "articles", "Talk", "Log", ".dreaming", ".obsidian"]
)
def test_a_folder_linked_outside_the_vault_is_refused_before_writing(
    tmp_path: Path, folder: str
) -> None:
    root = tmp_path / "v"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / folder).symlink_to(elsewhere)
    with pytest.raises(VaultError, match=rf"{folder}: a link to .*elsewhere, outside the vault"):
        init_vault(root)
    assert list(elsewhere.iterdir()) == []
    assert not (root / "STATION.md").exists()


def test_a_folder_linked_inside_the_vault_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "v"
    (root / "policy").mkdir(parents=True)
    (root / "Meta").symlink_to(root / "policy")
    init_vault(root)
    assert (root / "policy" / "Entities.md").is_file()


def test_a_file_where_a_vault_folder_belongs_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    (root / "Raw").write_text("not a folder\n")
    with pytest.raises(VaultError, match=r"Raw: is a file, not a folder"):
        init_vault(root)
    assert not (root / "STATION.md").exists()


def test_an_init_stopped_by_a_stale_lock_is_finished_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitops, "_LOCK_WAIT", 0.01)
    root = existing_repo(tmp_path / "v")
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(GitError, match=r"index\.lock is held"):
        init_vault(root)
    lock.unlink()
    report = init_vault(root)
    assert "Meta/Entities.md" in report.added
    assert git(root, "status", "--porcelain") == ""
    with Ledger(Vault.open(root).ledger_path) as ledger:
        assert write_journal.pending(ledger) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to a read-only folder")
def test_a_read_only_folder_is_refused_before_writing(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    root.chmod(0o555)
    try:
        with pytest.raises(VaultError, match="not writable; give yourself write access"):
            init_vault(root)
        assert list(root.iterdir()) == []
    finally:
        root.chmod(0o755)


@pytest.mark.parametrize("folder", ["Raw", ".dreaming"])
def test_a_private_folder_linked_inside_the_vault_is_refused(tmp_path: Path, folder: str) -> None:
    root = tmp_path / "v"
    (root / "transcripts").mkdir(parents=True)
    (root / folder).symlink_to(root / "transcripts")
    with pytest.raises(VaultError, match=rf"{folder}: a link to .*only by its name"):
        init_vault(root)


def test_a_settings_folder_linked_outside_with_nothing_missing_is_kept(tmp_path: Path) -> None:
    shared = init_vault(tmp_path / "other").vault.root / ".obsidian"
    root = tmp_path / "v"
    root.mkdir()
    (root / ".obsidian").symlink_to(shared)
    report = init_vault(root)
    assert ".obsidian/app.json" in report.kept
    assert ".obsidian/app.json" not in report.added


def test_a_vault_named_with_a_dollar_is_that_folder_never_an_expanded_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("PLACE", str(elsewhere))
    root = tmp_path / "notes $PLACE"
    vault = init_vault(root).vault
    page = vault.root / "STATION.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nmine\n", encoding="utf-8")
    gitops.VaultRepo(vault.root).commit_person([page], "Edit STATION.md")
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert log[0] == "Edit STATION.md"
    assert list(elsewhere.iterdir()) == []
