"""The navigation index: refreshed per file before each query, read-only over the vault."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from dreaming.errors import VaultError
from dreaming.ledger import Ledger
from dreaming.query import Reader, pages
from dreaming.query.index import MAX_ARTICLE_BYTES, NavIndex, read_article_bytes
from dreaming.query.reindex import reindex
from dreaming.vault import Vault
from tests.query_support import article, examples


def _git_status(vault: Vault) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=vault.root, capture_output=True, text=True
    ).stdout


def test_nothing_changed_reads_no_file(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep")
    index = NavIndex(vault, ledger)
    assert index.refresh().parsed == 1
    again = index.refresh()
    assert (again.parsed, again.restamped, again.dropped) == (0, 0, 0)


def test_a_fresh_instance_trusts_the_stored_index(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep")
    NavIndex(vault, ledger).refresh()
    assert NavIndex(vault, ledger).refresh().parsed == 0


def test_a_persons_edit_in_place_is_seen_once_the_files_are_checked(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep", sections=(("Usage", "It searches fast.[^1]"),))
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 0
    assert "fast" in reader.section("Ripgrep", "Usage").text
    path = vault.articles / "Ripgrep.md"
    text = path.read_text().replace("It searches fast.", "It searches slow.")
    path.write_text(text)  # in place, same size: only mtime_ns tells
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert "slow" in reader.section("Ripgrep", "Usage").text


def test_a_save_by_rename_is_seen_at_once(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep", sections=(("Usage", "It searches fast.[^1]"),))
    article(vault, "Other")
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 3600
    assert "fast" in reader.section("Ripgrep", "Usage").text
    path = vault.articles / "Ripgrep.md"
    temp = vault.articles / ".Ripgrep.md.swp"
    temp.write_text(path.read_text().replace("It searches fast.", "It searches slow."))
    temp.replace(path)
    assert "slow" in reader.section("Ripgrep", "Usage").text


def test_within_the_window_an_unchanged_folder_is_not_listed(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep")
    index = NavIndex(vault, ledger)
    index.recheck_seconds = 3600
    index.refresh()
    (vault.articles / "Ripgrep.md").write_bytes(b"\0 binary now")
    assert index.refresh().parsed == 0
    index.recheck_seconds = 0
    assert index.refresh().parsed == 1


def test_a_touched_file_with_the_same_bytes_is_not_parsed_again(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep")
    index = NavIndex(vault, ledger)
    index.recheck_seconds = 0
    index.refresh()
    path = vault.articles / "Ripgrep.md"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
    done = index.refresh()
    assert (done.parsed, done.restamped) == (0, 1)


def test_a_deleted_article_is_gone_and_a_new_one_found(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep")
    reader = Reader(vault, ledger)
    assert reader.resolve_stems("ripgrep") == ["Ripgrep"]
    (vault.articles / "Ripgrep.md").unlink()
    article(vault, "Fd Find")
    assert reader.resolve_stems("ripgrep") == []
    assert reader.resolve_stems("fd find") == ["Fd_Find"]
    assert reader.search_stems("ripgrep") == []


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"# Bin\n\0\0\0binary", "binary"),
        (b"# Latin\n\xe9t\xe9 \xff\n", "not UTF-8"),
    ],
)
def test_an_unreadable_file_is_indexed_with_its_reason(
    vault: Vault, ledger: Ledger, content: bytes, reason: str
) -> None:
    (vault.articles / "Odd.md").write_bytes(content)
    article(vault, "Ripgrep")
    reader = Reader(vault, ledger)
    for result in (reader.read("Odd"), reader.section("Odd", "x"), reader.resolve("odd")):
        assert reason in result.text
    assert reader.read("Ripgrep").data["stem"] == "Ripgrep"
    assert "1 unreadable" in reader.status().text


def test_a_huge_file_is_not_read(vault: Vault, ledger: Ledger) -> None:
    (vault.articles / "Huge.md").write_bytes(
        b"# Huge\n\n" + b"word " * (MAX_ARTICLE_BYTES // 5 + 10)
    )
    result = Reader(vault, ledger).read("Huge")
    assert "over" in result.text
    assert "split it" in result.text


def test_a_link_fifo_or_folder_in_articles_never_blocks_or_leaks(
    vault: Vault, ledger: Ledger
) -> None:
    secret = vault.root.parent / "secret.md"
    secret.write_text("# Secret\n\nTOPSECRET\n")
    (vault.articles / "Leak.md").symlink_to(secret)
    os.mkfifo(vault.articles / "Pipe.md")
    (vault.articles / "Folder.md").mkdir()
    reader = Reader(vault, ledger)
    leak = reader.read("Leak", full=True)
    assert "a link" in leak.text
    assert "TOPSECRET" not in leak.text
    assert "not a regular file" in reader.read("Pipe").text
    assert reader.search_stems("TOPSECRET") == []
    assert reader.resolve_stems("folder") == []


def test_queries_never_change_the_vault(vault: Vault, ledger: Ledger) -> None:
    stems = examples(vault)
    subprocess.run(["git", "add", "-A"], cwd=vault.root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
        cwd=vault.root,
        check=True,
    )
    before = {p: p.read_bytes() for p in vault.articles.iterdir()}
    reader = Reader(vault, ledger)
    for stem in stems:
        reader.read(stem, full=True)
        reader.links(stem)
    assert {p: p.read_bytes() for p in vault.articles.iterdir()} == before
    assert _git_status(vault) == ""


def test_reindex_and_the_query_index_live_side_by_side(vault: Vault, ledger: Ledger) -> None:
    examples(vault)
    Reader(vault, ledger).status()
    assert reindex(vault, ledger).articles == 3
    assert Reader(vault, ledger).status().data["articles"] == 3


def test_a_busy_ledger_answers_from_the_index_as_it_stands(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep", sections=(("Usage", "It searches fast.[^1]"),))
    reader = Reader(vault, ledger)
    assert "fast" in reader.section("Ripgrep", "Usage").text
    article(vault, "Fd")
    night = Ledger(vault.ledger_path)
    night.db.execute("BEGIN IMMEDIATE")
    try:
        assert reader.index.refresh().busy
        assert reader.resolve_stems("fd") == []
    finally:
        night.db.execute("ROLLBACK")
        night.close()
    assert reader.resolve_stems("fd") == ["Fd"]


def _followed(vault: Vault, ledger: Ledger) -> NavIndex:
    """An index that trusts file events (and would check every file only hourly)."""
    index = NavIndex(vault, ledger)
    index.recheck_seconds = 3600
    assert index.follow(wait=10), "the file watch never came up"
    return index


def _seen_within(index: NavIndex, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if index.refresh().parsed:
            return True
        time.sleep(0.02)
    return False


def test_a_followed_index_sees_an_edit_in_place_from_its_file_event(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep")
    article(vault, "Other")
    index = _followed(vault, ledger)
    try:
        (vault.articles / "Ripgrep.md").write_bytes(b"\0 binary now")  # in place
        assert _seen_within(index, 5)
        assert index.refresh().parsed == 0
    finally:
        index.close()


def test_an_index_that_stopped_following_checks_every_file_again(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep")
    index = _followed(vault, ledger)
    index.close()
    (vault.articles / "Ripgrep.md").write_bytes(b"\0 binary now")
    assert index.refresh().parsed == 0  # within the window, as without events
    index.recheck_seconds = 0
    assert index.refresh().parsed == 1


def test_two_readers_of_one_vault_each_see_an_article_the_other_indexed_first(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep")
    first, second = NavIndex(vault, ledger), NavIndex(vault, ledger)
    first.recheck_seconds = second.recheck_seconds = 0
    first.refresh()
    second.refresh()
    article(vault, "Fd Find")
    assert second.refresh().parsed == 1
    assert first.refresh().parsed == 1  # its cache never saw the row the other wrote
    assert Reader(vault, ledger).resolve_stems("fd find") == ["Fd_Find"]


def _same_size_edit(path: Path, old: str, new: str) -> None:
    """An edit written in place (no rename): only the file's mtime tells."""
    assert len(old) == len(new)
    st = path.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_a_followed_index_answers_from_the_articles_folder_on_disk_now(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep", sections=(("Usage", "It searches fast.[^1]"),))
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 3600
    assert reader.index.follow(wait=10), "the file watch never came up"
    try:
        assert "fast" in reader.section("Ripgrep", "Usage").text
        vault.articles.rename(vault.root / "articles.old")
        assert reader.resolve_stems("ripgrep") == []
        vault.articles.mkdir()
        article(vault, "Ripgrep", sections=(("Usage", "It searches slow.[^1]"),))
        assert "slow" in reader.section("Ripgrep", "Usage").text
        # The new folder is the one followed now: an edit in place there is seen at
        # once, not at the next full check a minute on.
        _same_size_edit(vault.articles / "Ripgrep.md", "slow", "calm")
        deadline = time.monotonic() + 5
        while "calm" not in reader.section("Ripgrep", "Usage").text:
            assert time.monotonic() < deadline, "the edit in the new articles/ was never seen"
            time.sleep(0.05)
    finally:
        reader.index.close()


def test_an_articles_folder_replaced_by_a_link_out_of_the_vault_is_refused(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    article(vault, "Ripgrep")
    reader = Reader(vault, ledger)
    assert reader.resolve_stems("ripgrep") == ["Ripgrep"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret.md").write_text("# Secret\n\nTOPSECRET\n")
    vault.articles.rename(vault.root / "articles.old")
    vault.articles.symlink_to(outside)
    for _ in range(2):  # refused every time, not only the first
        with pytest.raises(VaultError, match="outside the vault"):
            reader.search("TOPSECRET")


def test_a_file_that_became_a_link_since_the_listing_is_never_followed(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    article(vault, "Ripgrep")
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 3600
    reader.read("Ripgrep")
    secret = tmp_path / "secret.md"
    secret.write_text("# Ripgrep\n\nTOPSECRET\n")
    path = vault.articles / "Ripgrep.md"
    path.unlink()
    path.symlink_to(secret)
    # Between a listing and the read of the file (here: no listing since), the
    # read itself refuses the link.
    with pytest.raises(OSError, match="a link; dreaming reads only real files"):
        read_article_bytes(vault, "Ripgrep")
    with pytest.raises(OSError, match="not an article name"):
        read_article_bytes(vault, "../../secret")
    assert "TOPSECRET" not in pages.read(vault, ledger, "Ripgrep", full=True, page=1).text


def test_a_file_that_became_a_fifo_since_the_listing_is_read_at_once(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, "Ripgrep")
    Reader(vault, ledger).read("Ripgrep")
    path = vault.articles / "Ripgrep.md"
    path.unlink()
    os.mkfifo(path)
    failed: list[OSError] = []

    def read() -> None:
        try:
            read_article_bytes(vault, "Ripgrep")
        except OSError as e:
            failed.append(e)

    reading = threading.Thread(target=read, daemon=True)
    reading.start()
    reading.join(timeout=5)
    assert not reading.is_alive(), "the read blocked on a FIFO"
    assert failed, "a FIFO was read as an article"
    text = pages.read(vault, ledger, "Ripgrep", full=True, page=1).text
    assert "cannot read articles/Ripgrep.md now" in text


def test_a_name_no_tool_could_ask_for_is_left_out(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Ripgrep")
    (vault.articles / "Tab\there.md").write_text("# Tab\n")
    (vault.articles / f"{'l' * 220}.md").write_text("# Long\n")
    assert Reader(vault, ledger).status().data["files"] == 1
