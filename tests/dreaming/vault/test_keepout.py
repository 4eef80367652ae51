"""Transcripts and the ledger never reach git, whatever the vault's own .gitignore lets
in: Raw/ and .dreaming/ each hold rules of their own that win, restored when missing,
and what git would still take is said."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from dreaming.config import Settings
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from dreaming.vault.keepout import leaks, restore
from dreaming.vault.repo import VaultRepo
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest
from stages.runner.pipeline import run_night
from tests.support import drop, raw_note
from watcher.app import App

HOSTILE = [
    "!*.jsonl",
    "!Raw/**",
    "!Raw/",
    "!.dreaming/",
    "!.dreaming/**",
    "!*.sqlite",
    "!*.sqlite-wal",
]
TALK = raw_note(("user", "my key is sk-live-secret"), ("assistant", "Keep it out of git."))


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def hostile_vault(tmp_path: Path, rule: str) -> Vault:
    """A person's notes folder, already a git repository whose .gitignore lets `rule` in,
    made a vault by `dreaming init`."""
    root = tmp_path / "notes"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text(f"{rule}\n", encoding="utf-8")
    return init_vault(root).vault


def ingested(vault: Vault) -> None:
    drop(vault, "talk.jsonl", TALK.replace("\n", "\n"))
    drop(vault, "notes/talk.md", TALK)
    with Ledger(vault.ledger_path) as ledger:
        ingest(vault, ledger)


def committable(root: Path) -> list[str]:
    """What the person's `git add -A` then commit would hold of Raw/ and .dreaming/."""
    git(root, "add", "-A")
    held = git(root, "ls-files", "--", "Raw", ".dreaming").split()
    return [p for p in held if p not in {"Raw/.gitignore", "Raw/README.md", ".dreaming/.gitignore"}]


@pytest.mark.parametrize("rule", HOSTILE)
def test_a_persons_add_all_takes_no_transcript_and_no_ledger(tmp_path: Path, rule: str) -> None:
    vault = hostile_vault(tmp_path, rule)
    ingested(vault)
    assert committable(vault.root) == []


@pytest.mark.parametrize("rule", HOSTILE)
def test_the_rules_hold_by_git_check_ignore(tmp_path: Path, rule: str) -> None:
    vault = hostile_vault(tmp_path, rule)
    assert leaks(VaultRepo(vault.root)) == []


def test_init_commits_the_rules_of_raw_and_the_state_folder(vault: Vault) -> None:
    assert {"Raw/.gitignore", ".dreaming/.gitignore"} <= set(git(vault.root, "ls-files").split())


def test_a_removed_raw_rule_is_restored_by_init_and_committed(tmp_path: Path) -> None:
    vault = hostile_vault(tmp_path, "!*.jsonl")
    (vault.raw / ".gitignore").unlink()
    git(vault.root, "commit", "-qam", "the person removes it")
    report = init_vault(vault.root)
    assert "Raw/.gitignore" in report.added
    assert "Raw/.gitignore" in git(vault.root, "ls-files").split()


def test_an_older_vault_without_the_rules_gets_them_at_init(tmp_path: Path) -> None:
    vault = hostile_vault(tmp_path, "!*.jsonl")
    for rule in ("Raw/.gitignore", ".dreaming/.gitignore"):
        git(vault.root, "rm", "-q", rule)
    git(vault.root, "commit", "-qm", "as an older dreaming made it")
    assert leaks(VaultRepo(vault.root)) != []
    init_vault(vault.root)
    assert leaks(VaultRepo(vault.root)) == []


def test_restore_writes_only_what_is_missing(vault: Vault) -> None:
    edited = vault.raw / ".gitignore"
    edited.write_text("*\n!.gitignore\n", encoding="utf-8")
    assert restore(VaultRepo(vault.root)) == {}
    assert edited.read_text(encoding="utf-8") == "*\n!.gitignore\n"


def test_a_rule_the_person_opened_is_said_by_path(vault: Vault) -> None:
    (vault.raw / ".gitignore").write_text("*\n!.gitignore\n!*.jsonl\n", encoding="utf-8")
    drop(vault, "talk.jsonl", "{}\n")
    found = leaks(VaultRepo(vault.root))
    assert [leak.path for leak in found] == ["Raw/talk.jsonl"]


def test_a_transcript_git_already_tracks_is_said(vault: Vault) -> None:
    drop(vault, "talk.md", TALK)
    git(vault.root, "add", "-f", "Raw/talk.md")
    git(vault.root, "commit", "-qm", "before the rules")
    found = leaks(VaultRepo(vault.root))
    assert [(leak.path, leak.why) for leak in found] == [("Raw/talk.md", "tracked by git")]


def test_a_night_restores_a_removed_rule_and_commits_it(vault: Vault, tmp_path: Path) -> None:
    git(vault.root, "rm", "-q", "Raw/.gitignore")
    git(vault.root, "commit", "-qm", "the person removes it")
    settings = Settings(vault=vault.root, model=f"scripted:{tmp_path / 'none.jsonl'}")
    with App(vault, settings) as app:
        run_night(app, stages=())
    assert "Raw/.gitignore" in git(vault.root, "ls-files").split()
    ingested(vault)
    assert committable(vault.root) == []
