from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from git import GitCommandError

from dreaming.errors import GitError, UnsafePathError
from dreaming.vault import Vault
from dreaming.vault import repo as gitops
from dreaming.vault.repo import VaultRepo
from tests.support import REPO

ROOT = REPO


def git(
    vault: Vault, *args: str, input: str | None = None, env: dict[str, str] | None = None
) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=vault.root,
        capture_output=True,
        text=True,
        check=True,
        input=input,
        env={**os.environ, **env} if env else None,
    ).stdout


def test_a_pipeline_commit_carries_the_run_trailer(vault: Vault) -> None:
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    VaultRepo(vault.root).commit_pipeline([page], "create Thing", "run42")
    message = git(vault, "log", "-1", "--format=%B")
    assert "Dreaming-Run: run42" in message
    assert git(vault, "log", "-1", "--format=%an") == "dreaming\n"


def test_a_pipeline_commit_never_takes_the_persons_staged_work(vault: Vault) -> None:
    mine = vault.root / "NOTES.md"
    mine.write_text("my notes\n")
    git(vault, "add", "NOTES.md")
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1")
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["articles/Thing.md"]
    assert "NOTES.md" in git(vault, "diff", "--cached", "--name-only")


def test_the_persons_pending_edit_is_committed_apart_first(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    repo.commit_pipeline([page], "create Thing", "r1")
    page.write_text("# Thing\n\nMy own line.\n")
    person = repo.commit_person([page], "Edit by you: Thing")
    page.write_text("# Thing\n\nMy own line.\n\nPipeline line.\n")
    repo.commit_pipeline([page], "update Thing", "r2")
    authors = git(vault, "log", "-3", "--format=%an|%s").splitlines()
    assert authors[0] == "dreaming|update Thing"
    assert authors[1].endswith("|Edit by you: Thing")
    assert person is not None


def test_nothing_to_commit_makes_no_commit(vault: Vault) -> None:
    before = git(vault, "rev-parse", "HEAD")
    assert VaultRepo(vault.root).commit_pipeline([vault.root / "STATION.md"], "x", "r") is None
    assert git(vault, "rev-parse", "HEAD") == before


def test_the_state_folder_is_never_committed(vault: Vault) -> None:
    (vault.state / "junk").write_text("x")
    assert not any(p.startswith(".dreaming") for p in VaultRepo(vault.root).dirty_paths())


def test_a_stale_index_lock_is_retried_then_reported(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitops, "_LOCK_WAIT", 0.01)
    (vault.root / ".git" / "index.lock").write_text("")
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    with pytest.raises(GitError, match=r"index\.lock is held .* delete that file"):
        VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1")


def test_committing_bytes_head_already_holds_mends_an_index_a_kill_left_behind(
    vault: Vault,
) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "run-1")
    # Killed after HEAD moved, before the index followed: it still lacks the page.
    git(vault, "rm", "-q", "--cached", "articles/Thing.md")
    assert repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "run-2") is None
    assert git(vault, "status", "--porcelain") == ""


# A process taking git's index lock exactly as dreaming's commits take it.
HOLD = """
import os, signal, sys
from pathlib import Path
from dreaming.vault import index_lock
from dreaming.vault.repo import VaultRepo
repo = VaultRepo(Path(sys.argv[1]))
with index_lock.held(repo.git_dir, sys.argv[3:], repo._head, repo._reset, retries=1, wait=0):
    if sys.argv[2] == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    print("held", flush=True)
    sys.stdin.read()
"""


def holder(vault: Vault, how: str, *committing: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLD, str(vault.root), how, *committing],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def leave_lock(vault: Vault, *committing: str) -> Path:
    """git's index lock as a dreaming process leaves it when it is killed mid-commit."""
    child = holder(vault, "die", *committing)
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    lock = vault.root / ".git" / "index.lock"
    assert lock.exists()
    return lock


def test_a_lock_left_by_a_killed_dreaming_process_is_taken_back(vault: Vault) -> None:
    lock = leave_lock(vault)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    assert VaultRepo(vault.root).commit_pipeline([page], "add Thing", "run-1") is not None
    assert not lock.exists()
    assert git(vault, "status", "--porcelain") == ""


def test_a_killed_dreamings_lock_is_taken_back_without_a_commit(vault: Vault) -> None:
    lock = leave_lock(vault)
    assert VaultRepo(vault.root).take_back_lock()
    assert not lock.exists()


def test_taking_back_a_lock_sets_the_index_of_what_the_killed_commit_held_to_head(
    vault: Vault,
) -> None:
    repo = VaultRepo(vault.root)
    lock = leave_lock(vault, "articles/Thing.md")
    # The killed process had moved HEAD to its commit; the index never followed.
    blob = git(vault, "hash-object", "-w", "--stdin", input="# Thing\n").strip()
    scratch = {"GIT_INDEX_FILE": str(vault.root.parent / "scratch")}
    git(vault, "read-tree", "HEAD", env=scratch)
    git(
        vault,
        "update-index",
        "--add",
        "--cacheinfo",
        f"100644,{blob},articles/Thing.md",
        env=scratch,
    )
    tree = git(vault, "write-tree", env=scratch).strip()
    commit = git(vault, "commit-tree", tree, "-p", "HEAD", "-m", "create Thing").strip()
    git(vault, "update-ref", "HEAD", commit)
    (vault.articles / "Thing.md").write_text("# Thing\n")
    assert repo.take_back_lock()
    assert not lock.exists()
    assert git(vault, "status", "--porcelain") == ""


def test_a_lock_not_moved_past_by_head_leaves_the_persons_staged_work_staged(
    vault: Vault,
) -> None:
    mine = vault.root / "NOTES.md"
    mine.write_text("my staged notes\n")
    git(vault, "add", "NOTES.md")
    leave_lock(vault, "NOTES.md")
    assert VaultRepo(vault.root).take_back_lock()
    assert git(vault, "diff", "--cached", "--name-only") == "NOTES.md\n"


def test_a_lock_of_a_dreaming_process_still_running_is_waited_for(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitops, "_LOCK_WAIT", 0.01)
    running = holder(vault, "hold")
    try:
        assert running.stdout is not None
        assert running.stdout.readline() == "held\n"
        lock = vault.root / ".git" / "index.lock"
        page = vault.articles / "Thing.md"
        page.write_text("# Thing\n")
        with pytest.raises(GitError, match=r"index\.lock is held"):
            VaultRepo(vault.root).commit_pipeline([page], "add Thing", "run-1")
        assert not VaultRepo(vault.root).take_back_lock()
        assert lock.exists()
    finally:
        running.kill()
        running.communicate()


def test_a_lock_that_is_not_a_regular_file_is_never_read_or_removed(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitops, "_LOCK_WAIT", 0.01)
    lock = vault.root / ".git" / "index.lock"
    os.mkfifo(lock)
    assert not VaultRepo(vault.root).take_back_lock()
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    with pytest.raises(GitError, match=r"index\.lock is held"):
        VaultRepo(vault.root).commit_pipeline([page], "add Thing", "run-1")
    assert lock.is_fifo()


def test_without_hard_links_the_lock_is_made_in_place(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    assert VaultRepo(vault.root).commit_pipeline([page], "add Thing", "run-1") is not None
    assert not (vault.root / ".git" / "index.lock").exists()
    assert git(vault, "status", "--porcelain") == ""


def test_a_lock_released_during_the_retries_lets_the_commit_through(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = vault.root / ".git" / "index.lock"
    lock.write_text("")
    real_sleep = time.sleep

    def release(seconds: float) -> None:
        lock.unlink(missing_ok=True)
        real_sleep(0)

    monkeypatch.setattr(time, "sleep", release)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    assert VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1") is not None


def test_a_folder_without_git_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        VaultRepo(tmp_path)


def test_a_bracketed_name_never_sweeps_in_a_similar_file(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    mine = vault.articles / "a1.md"
    mine.write_text("the person's pending file\n")
    ours = vault.articles / "a[1].md"
    ours.write_text("pipeline\n")
    repo.commit_pipeline([ours], "write a[1]", "r1")
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["articles/a[1].md"]
    assert "articles/a1.md" in repo.dirty_paths()


@pytest.mark.slow  # git in child processes, made to fail
def test_a_failed_commit_leaves_the_index_as_it_found_it(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitops, "_LOCK_WAIT", 0.01)
    mine = vault.root / "NOTES.md"
    mine.write_text("my staged notes\n")
    git(vault, "add", "NOTES.md")
    staged = git(vault, "diff", "--cached", "--name-status")
    (vault.root / ".git" / "refs" / "heads" / "main.lock").write_text("")
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    with pytest.raises(GitError, match=r"main\.lock is held by another git process"):
        VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1")
    assert git(vault, "diff", "--cached", "--name-status") == staged
    assert "?? articles/Thing.md" in git(vault, "status", "--porcelain")


def test_a_signing_setting_does_not_block_the_pipelines_commits(vault: Vault) -> None:
    git(vault, "config", "commit.gpgsign", "true")
    git(vault, "config", "user.signingkey", "no-such-key")
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    assert VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1") is not None
    assert git(vault, "status", "--porcelain") == ""


def test_a_committed_deletion_leaves_nothing_staged(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    repo.commit_pipeline([page], "create Thing", "r1")
    page.unlink()
    repo.commit_pipeline([page], "delete Thing", "r2")
    assert "articles/Thing.md" not in git(vault, "ls-files")
    assert git(vault, "status", "--porcelain") == ""


def test_the_commit_message_is_kept_as_given(vault: Vault) -> None:
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n")
    VaultRepo(vault.root).commit_pipeline([page], "create Thing", "r1")
    assert git(vault, "log", "-1", "--format=%B") == "create Thing\n\nDreaming-Run: r1\n\n"
    assert "commit: create Thing" in git(vault, "reflog", "-1")


def test_a_git_failure_reads_as_git_said_it() -> None:
    failure = GitCommandError(
        ["git", "commit"],
        128,
        b"hint: see above\nfatal: cannot do a partial commit during a merge.\n",
    )
    assert gitops.git_said(failure) == "fatal: cannot do a partial commit during a merge."


def test_a_path_outside_the_vault_is_refused_in_one_line(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x\n")
    with pytest.raises(UnsafePathError, match="outside the vault"):
        VaultRepo(vault.root).commit_pipeline([outside], "x", "r1")


def test_a_blob_commit_holds_our_bytes_and_a_later_save_stays_the_persons(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    ours = b"# Thing\n\nPipeline text.\n"
    page.write_bytes(ours)
    page.write_bytes(b"# Thing\n\nThe person's save, after our write.\n")
    sha = repo.commit_pipeline_blobs({page: ours}, "create Thing", "r1")
    assert sha is not None
    assert git(vault, "show", f"{sha}:articles/Thing.md").encode() == ours
    assert git(vault, "log", "-1", "--format=%an", sha) == "dreaming\n"
    assert git(vault, "status", "--porcelain") == " M articles/Thing.md\n"
    person = repo.commit_person([page], "Edit by you: Thing")
    assert person is not None
    assert "after our write" in git(vault, "show", f"{person}:articles/Thing.md")
    assert git(vault, "log", "-1", "--format=%an", person) != "dreaming\n"
    assert git(vault, "status", "--porcelain") == ""


def test_a_blob_commit_of_several_files_is_one_commit(vault: Vault) -> None:
    a, b = vault.articles / "A.md", vault.log / "night.md"
    a.write_bytes(b"# A\n")
    b.write_bytes(b"report\n")
    VaultRepo(vault.root).commit_pipeline_blobs({a: b"# A\n", b: b"report\n"}, "night", "r1")
    changed = git(vault, "show", "--name-only", "--format=", "HEAD").split()
    assert changed == ["Log/night.md", "articles/A.md"]
    assert git(vault, "status", "--porcelain") == ""


def test_a_blob_commit_that_changes_nothing_makes_no_commit(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_bytes(b"# Thing\n")
    repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "r1")
    head = git(vault, "rev-parse", "HEAD")
    assert repo.commit_pipeline_blobs({page: b"# Thing\n"}, "again", "r2") is None
    assert git(vault, "rev-parse", "HEAD") == head


def test_a_blob_commit_keeps_the_persons_staged_work_and_an_executable_bit(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    tool = vault.root / "tool.md"
    tool.write_bytes(b"v1\n")
    tool.chmod(0o755)
    repo.commit_person([tool], "add tool")
    mine = vault.root / "NOTES.md"
    mine.write_text("my notes\n")
    git(vault, "add", "NOTES.md")
    tool.write_bytes(b"v2\n")
    repo.commit_pipeline_blobs({tool: b"v2\n"}, "update tool", "r1")
    assert git(vault, "ls-tree", "HEAD", "tool.md").startswith("100755 ")
    assert "NOTES.md" in git(vault, "diff", "--cached", "--name-only")
    assert "tool.md" not in git(vault, "status", "--porcelain")


def test_a_blob_commit_outside_the_vault_is_refused(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError, match="outside the vault"):
        VaultRepo(vault.root).commit_pipeline_blobs({tmp_path / "x.md": b"x"}, "x", "r1")


def test_committed_says_whether_head_holds_exactly_these_bytes(vault: Vault) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    assert repo.committed(page, None)
    page.write_bytes(b"# Thing\n")
    repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "r1")
    assert repo.committed(page, b"# Thing\n")
    assert not repo.committed(page, b"# Thing\n\nMore.\n")
    assert not repo.committed(page, None)
    assert not repo.committed(vault.articles, b"")


def test_committed_follows_a_commit_another_process_made_since_it_last_looked(
    vault: Vault,
) -> None:
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_bytes(b"# Thing\n")
    repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "r1")
    assert repo.committed(page, b"# Thing\n")
    page.write_bytes(b"# Thing\n\nMine.\n")
    git(vault, "commit", "-qam", "my edit")
    assert repo.committed(page, b"# Thing\n\nMine.\n")
    assert not repo.committed(page, b"# Thing\n")
    assert repo.committed(vault.meta / "Elsewhere.md", None)


def children() -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task / "children").read_text()
        found.update(int(pid) for pid in text.split())
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_reading_what_head_holds_leaves_no_git_process_running(vault: Vault) -> None:
    # GitPython's object database keeps a `git cat-file` helper for as long as its Repo
    # lives; one left to the garbage collector was reported as a leaked process.
    before = children()
    repo = VaultRepo(vault.root)
    page = vault.articles / "Thing.md"
    page.write_bytes(b"# Thing\n")
    repo.commit_pipeline_blobs({page: b"# Thing\n"}, "create Thing", "r1")
    assert repo.at_head(page) == b"# Thing\n"
    assert repo.committed(page, b"# Thing\n")
    assert repo.at_head(vault.articles) is None
    assert children() - before == set()
