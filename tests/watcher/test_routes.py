"""The committing routes (Meta, STATION.md / NOTES.md, articles) on real vaults, real git,
and the commit lock that lets one process commit from two threads."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import git
import pytest

from dreaming.article.document import build
from dreaming.ledger import Ledger
from dreaming.station.settle import Changed, Settled
from dreaming.station.settle import settle as real_settle
from dreaming.vault import Vault, checksum, write_atomic
from dreaming.vault import repo as repo_module
from dreaming.vault.repo import VaultRepo
from tests.watch_support import wait_for, watched
from watcher import routes


@pytest.fixture
def repo(vault: Vault) -> VaultRepo:
    vault_repo = VaultRepo(vault.root)
    with vault_repo.repo.config_writer() as config:
        config.set_value("user", "name", "Ada Person")
        config.set_value("user", "email", "ada@example.org")
    return vault_repo


def head(repo: VaultRepo) -> git.Commit:
    return repo.repo.head.commit


def message(commit: git.Commit) -> str:
    return str(commit.message)


def article(stem: str, lead: str) -> str:
    return build(stem.replace("_", " "), lead=lead, sections=[], infobox={"kind": "thing"})


def committed_article(vault: Vault, repo: VaultRepo, stem: str, lead: str) -> Path:
    """An article the pipeline wrote and committed, as a night leaves it."""
    path = vault.articles / f"{stem}.md"
    path.write_text(article(stem, lead), encoding="utf-8")
    repo.commit_pipeline([path], f"Create {stem}", "run-1")
    return path


def test_a_valid_meta_edit_is_committed_as_the_person(vault: Vault, repo: VaultRepo) -> None:
    page = vault.meta / "Chunking.md"
    with watched(vault) as w:
        page.write_text(page.read_text(encoding="utf-8") + "\nKeep chunks short.\n")
        said = w.reaction(lambda r: r.path == "Meta/Chunking.md")
    assert not said.problem
    assert said.outcome.startswith("policy reloaded")
    assert head(repo).author.name == "Ada Person"
    assert message(head(repo)).startswith("Edit Meta/Chunking.md")
    assert repo.committed(page, page.read_bytes())


def test_an_invalid_meta_edit_is_committed_as_the_person_but_not_put_in_force(
    vault: Vault, repo: VaultRepo
) -> None:
    page = vault.meta / "Chunking.md"
    with watched(vault) as w:
        page.write_bytes(b"\xff\xfe\x00 not text \xc3")
        said = w.reaction(lambda r: r.path == "Meta/Chunking.md")
    assert said.problem
    assert said.outcome.startswith("holds binary data")
    assert said.outcome.endswith(
        "until then the shipped version is in force; your edit is committed as yours"
    )
    assert head(repo).author.name == "Ada Person"
    assert message(head(repo)).startswith("Edit Meta/Chunking.md")
    assert repo.committed(page, b"\xff\xfe\x00 not text \xc3")
    assert not (vault.state / "policy" / "Chunking.md").exists()


def test_a_broken_meta_page_undone_in_git_is_in_force_again_with_nothing_to_commit(
    vault: Vault, repo: VaultRepo
) -> None:
    page = vault.meta / "Chunking.md"
    good = page.read_bytes()
    before = head(repo)
    with watched(vault) as w:
        page.write_bytes(b"\0 broken")
        w.reaction(lambda r: r.path == "Meta/Chunking.md" and r.problem)
        assert head(repo) != before
        repo.repo.git.reset("--hard", before.hexsha)
        said = w.reaction(lambda r: r.path == "Meta/Chunking.md" and not r.problem)
    assert said.outcome == "policy reloaded"
    assert head(repo) == before
    assert page.read_bytes() == good


def test_an_article_edit_is_committed_as_the_person_and_reindexed(
    vault: Vault, repo: VaultRepo, ledger: Ledger
) -> None:
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    with watched(vault) as w:
        path.write_text(article("Sourdough", "A bread the person bakes weekly."))
        said = w.reaction(lambda r: r.path == "articles/Sourdough.md")
    assert said.outcome == "committed as your edit; reindexed"
    assert head(repo).author.name == "Ada Person"
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")
    row = ledger.db.execute("SELECT lead, checksum FROM article_index").fetchone()
    assert tuple(row) == ("A bread the person bakes weekly.", checksum(path.read_bytes()))


def test_our_own_write_is_not_a_person_edit(vault: Vault, repo: VaultRepo) -> None:
    ours = committed_article(vault, repo, "Sourdough", "A bread.")
    theirs = committed_article(vault, repo, "Rye", "A grain.")
    with watched(vault) as w:
        old = checksum(ours.read_bytes())
        write_atomic(
            ours,
            article("Sourdough", "Ours."),
            expected=old,
            registry=w.app.own_writes,
            vault=vault,
        )
        theirs.write_text(article("Rye", "A grain for bread."))
        w.reaction(lambda r: r.path == "articles/Rye.md")
        said = w.said
    assert [r.path for r in said] == ["articles/Rye.md"]
    assert list(head(repo).stats.files) == ["articles/Rye.md"]


def test_a_pipeline_write_already_in_head_is_ignored(vault: Vault, repo: VaultRepo) -> None:
    path = vault.articles / "Sourdough.md"
    data = article("Sourdough", "A bread.").encode()
    sentinel = committed_article(vault, repo, "Rye", "A grain.")
    with watched(vault) as w:
        repo.commit_pipeline_blobs({path: data}, "Create Sourdough", "run-2")
        path.write_bytes(data)
        sentinel.write_text(article("Rye", "A grain for bread."))
        w.reaction(lambda r: r.path == "articles/Rye.md")
        said = w.said
    assert [r.path for r in said] == ["articles/Rye.md"]
    assert message(head(repo).parents[0]).startswith("Create Sourdough")


def test_an_edit_during_a_night_is_committed_after_it(vault: Vault, repo: VaultRepo) -> None:
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    page = vault.meta / "Chunking.md"
    with watched(vault) as w:
        w.night.set()
        path.write_text(article("Sourdough", "The person's words."))
        # A Meta edit is not held by the night: once it is in, the article was seen too.
        page.write_text(page.read_text(encoding="utf-8") + "\nKeep chunks short.\n")
        w.reaction(lambda r: r.path == "Meta/Chunking.md")
        assert not [r for r in w.said if r.route == "article"]
        assert not repo.committed(path, path.read_bytes())
        w.night.clear()
        w.reaction(lambda r: r.path == "articles/Sourdough.md")
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")
    assert head(repo).author.name == "Ada Person"


@pytest.mark.slow  # waits as the watcher would
def test_a_rebase_in_progress_holds_the_commit_and_says_why(vault: Vault, repo: VaultRepo) -> None:
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    before = head(repo)
    rebase = repo.git_dir / "rebase-merge"
    rebase.mkdir()
    with watched(vault) as w:
        path.write_text(article("Sourdough", "The person's words."))
        why = w.reaction(lambda r: r.problem)
        assert head(repo) == before
        rebase.rmdir()
        w.reaction(lambda r: r.path == "articles/Sourdough.md" and not r.problem)
        problems = [r for r in w.said if r.problem]
    assert "rebase is in progress" in why.outcome
    assert "git rebase --continue" in why.outcome
    assert len(problems) == 1
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")


@pytest.mark.slow  # another process holds git's index lock
def test_an_index_lock_held_by_another_process_waits_and_is_said_once(
    vault: Vault, repo: VaultRepo
) -> None:
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    lock = repo.git_dir / "index.lock"
    lock.write_bytes(b"")
    with watched(vault, lock_grace=0.3) as w:
        path.write_text(article("Sourdough", "The person's words."))
        why = w.reaction(lambda r: r.problem)
        wait_for(lambda: len(w.said) == 1 and lock.exists(), 1.5)
        lock.unlink()
        w.reaction(lambda r: r.path == "articles/Sourdough.md" and not r.problem)
        problems = [r for r in w.said if r.problem]
    assert "index.lock is held by another git process" in why.outcome
    assert len(problems) == 1
    assert head(repo).author.name == "Ada Person"


def test_a_station_edit_is_settled_with_what_changed(
    vault: Vault, repo: VaultRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[set[Changed]] = []

    def settle(*args: Any, changed: set[Changed], **kwargs: Any) -> Settled:
        seen.append(set(changed))
        return real_settle(*args, changed=changed, **kwargs)

    monkeypatch.setattr(routes, "settle", settle)
    station = vault.root / "STATION.md"
    with watched(vault):
        station.write_text(station.read_text(encoding="utf-8") + "\nIntent: bake bread\n")
        wait_for(lambda: seen)
    assert seen == [{"station"}]


def test_a_card_nested_too_deeply_is_said_and_an_article_edit_beside_it_still_commits(
    vault: Vault, repo: VaultRepo
) -> None:
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    card = vault.root / "STATION.md"
    with watched(vault) as w:
        card.write_bytes(b"---\nx: " + b"[" * 5000 + b"\n---\n" + card.read_bytes())
        path.write_text(article("Sourdough", "The person's words."))
        w.reaction(lambda r: r.path == "articles/Sourdough.md")
        said = w.reaction(lambda r: r.path == "STATION.md" and r.problem)
    assert "the frontmatter is nested more than" in said.outcome
    assert not [r for r in w.said if "watching stopped" in r.outcome]
    assert repo.committed(path, path.read_bytes())


def test_a_fault_in_one_route_is_said_and_never_blocks_the_others(
    vault: Vault, repo: VaultRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Settled:
        raise RuntimeError("a fault nobody foresaw")

    monkeypatch.setattr(routes, "settle", broken)
    path = committed_article(vault, repo, "Sourdough", "A bread.")
    card = vault.root / "STATION.md"
    with watched(vault) as w:
        card.write_text(card.read_text(encoding="utf-8") + "\nmore\n")
        path.write_text(article("Sourdough", "The person's words."))
        w.reaction(lambda r: r.path == "articles/Sourdough.md")
        said = w.reaction(lambda r: r.path == "STATION.md" and r.problem)
    assert "internal error on it (RuntimeError)" in said.outcome
    assert ".dreaming/logs/internal.log" in said.outcome
    assert "a fault nobody foresaw" in (vault.logs / "internal.log").read_text(encoding="utf-8")
    assert not [r for r in w.said if "watching stopped" in r.outcome]


def test_one_process_commits_from_two_threads_without_tripping_on_its_own_lock(
    vault: Vault, repo: VaultRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No patience for a held index lock: only the process-wide commit lock keeps them apart.
    monkeypatch.setattr(repo_module, "_LOCK_RETRIES", 1)
    inside = threading.Event()
    real = VaultRepo._commit_tree

    def slow_commit_tree(self: VaultRepo, *args: Any) -> str:
        inside.set()
        threading.Event().wait(0.3)
        return real(self, *args)

    monkeypatch.setattr(VaultRepo, "_commit_tree", slow_commit_tree)
    first, second = vault.articles / "A.md", vault.articles / "B.md"
    first.write_text(article("A", "First."))
    second.write_text(article("B", "Second."))
    errors: list[BaseException] = []

    def commit_first() -> None:
        try:
            VaultRepo(vault.root).commit_person([first], "Edit articles/A.md")
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=commit_first)
    thread.start()
    assert inside.wait(5)
    repo.commit_person([second], "Edit articles/B.md")
    thread.join(5)
    assert errors == []
    assert repo.dirty_paths([first, second]) == []


def edited_later(vault: Vault, repo: VaultRepo) -> Path:
    """An article the person edits after the bad file: its commit shows the watcher went on."""
    return committed_article(vault, repo, "Sourdough", "A bread.")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("rel", ["articles/Pipe.md", "Talk/Pipe.md", "Log/Pipe.md"])
def test_a_named_pipe_among_article_edits_is_said_and_the_watcher_goes_on(
    vault: Vault, repo: VaultRepo, rel: str
) -> None:
    later = edited_later(vault, repo)
    with watched(vault) as w:
        os.mkfifo(vault.root / rel)
        said = w.reaction(lambda r: r.path == rel)
        later.write_text(article("Sourdough", "The person's words."))
        w.reaction(lambda r: r.path == "articles/Sourdough.md" and not r.problem)
    assert said.problem
    assert said.outcome == "a named pipe, not a file; delete it"
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["Chunking", "My_Ideas"])
def test_a_named_pipe_for_a_meta_page_is_said_and_the_watcher_goes_on(
    vault: Vault, repo: VaultRepo, name: str
) -> None:
    page = vault.meta / f"{name}.md"
    page.unlink(missing_ok=True)
    later = edited_later(vault, repo)
    with watched(vault) as w:
        os.mkfifo(page)
        # On start the deleted page is the person's pending edit, said first.
        said = w.reaction(
            lambda r: r.path == f"Meta/{name}.md" and "a named pipe, not" in r.outcome
        )
        later.write_text(article("Sourdough", "The person's words."))
        w.reaction(lambda r: r.path == "articles/Sourdough.md" and not r.problem)
    assert said.problem
    assert said.outcome.startswith("a named pipe, not a file; delete it")
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["STATION.md", "NOTES.md"])
def test_a_named_pipe_for_a_station_file_is_said_and_the_watcher_goes_on(
    vault: Vault, repo: VaultRepo, name: str
) -> None:
    (vault.root / name).unlink()
    later = edited_later(vault, repo)
    with watched(vault) as w:
        os.mkfifo(vault.root / name)
        # On start the deleted file is the person's pending edit, said first.
        said = w.reaction(lambda r: r.problem and "a named pipe, not" in r.outcome)
        later.write_text(article("Sourdough", "The person's words."))
        w.reaction(lambda r: r.path == "articles/Sourdough.md" and not r.problem)
    assert said.path in ("STATION.md", "NOTES.md")  # the card route, whichever file woke it
    assert said.outcome == f"{name}: a named pipe, not a file; delete it"
    assert message(head(repo)).startswith("Edit articles/Sourdough.md")
