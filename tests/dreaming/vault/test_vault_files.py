"""Reading a file of the vault: a regular file inside the vault, within its cap, or one
line saying why not; never a wait on a pipe, never a read through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dreaming.errors import RefusedFileError
from dreaming.vault import Vault
from dreaming.vault.files import read_bytes, read_optional, read_page


def test_a_regular_file_is_read_whole(vault: Vault) -> None:
    page = vault.meta / "Mine.md"
    page.write_bytes(b"# Mine\n")
    assert read_bytes(vault, page, cap=100, what="a page") == b"# Mine\n"


@pytest.mark.timeout(10)
def test_a_named_pipe_is_refused_at_once_naming_the_file_and_the_fix(vault: Vault) -> None:
    os.mkfifo(vault.meta / "Pipe.md")
    with pytest.raises(RefusedFileError) as refused:
        read_bytes(vault, vault.meta / "Pipe.md", cap=100, what="a page")
    assert str(refused.value) == "Meta/Pipe.md: a named pipe, not a file; delete it"
    assert (refused.value.path, refused.value.reason) == (
        "Meta/Pipe.md",
        "a named pipe, not a file; delete it",
    )


def test_a_folder_where_a_file_belongs_is_refused(vault: Vault) -> None:
    (vault.articles / "Folder.md").mkdir()
    with pytest.raises(RefusedFileError, match=r"^articles/Folder\.md: a folder, not a file"):
        read_bytes(vault, vault.articles / "Folder.md", cap=100, what="a page")


def test_a_link_is_never_followed_even_to_a_file_in_the_vault(vault: Vault) -> None:
    (vault.articles / "Real.md").write_text("# Real\n")
    (vault.articles / "Alias.md").symlink_to(vault.articles / "Real.md")
    with pytest.raises(RefusedFileError, match=r"^articles/Alias\.md: a link;"):
        read_bytes(vault, vault.articles / "Alias.md", cap=100, what="a page")


def test_a_link_to_a_file_outside_the_vault_is_never_read(vault: Vault, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("root:x:0:0")
    (vault.articles / "Passwd.md").symlink_to(secret)
    with pytest.raises(RefusedFileError, match=r"^articles/Passwd\.md: a link;"):
        read_bytes(vault, vault.articles / "Passwd.md", cap=100, what="a page")


def test_a_file_behind_a_folder_link_leaving_the_vault_is_refused(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Note.md").write_text("# Not the vault's\n")
    (vault.talk / "away").symlink_to(outside)
    with pytest.raises(RefusedFileError, match=r"^Talk/away/Note\.md: .*leads out of the vault"):
        read_bytes(vault, vault.talk / "away" / "Note.md", cap=100, what="a page")


def test_a_file_over_its_cap_is_refused_with_its_size_unread(vault: Vault) -> None:
    page = vault.log / "Big.md"
    page.write_bytes(b"x" * 101)
    with pytest.raises(RefusedFileError) as refused:
        read_bytes(vault, page, cap=100, what="a page")
    assert str(refused.value) == (
        "Log/Big.md: 101 bytes, over the 100 bytes a page may hold; shorten it"
    )


def test_a_missing_file_is_file_not_found_or_none(vault: Vault) -> None:
    with pytest.raises(FileNotFoundError):
        read_bytes(vault, vault.articles / "Gone.md", cap=100, what="a page")
    assert read_optional(vault, vault.articles / "Gone.md", cap=100, what="a page") is None


def test_a_file_outside_the_vault_is_refused(vault: Vault, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text("x")
    with pytest.raises(RefusedFileError, match="leads out of the vault"):
        read_bytes(vault, tmp_path / "elsewhere.md", cap=100, what="a page")


def test_a_page_is_its_bytes_and_its_text(vault: Vault) -> None:
    page = vault.articles / "Café.md"
    page.write_bytes("# Café\n".encode())
    assert read_page(vault, page, what="an article") == ("# Café\n".encode(), "# Café\n")
    assert read_page(vault, vault.articles / "Gone.md", what="an article") is None


def test_a_page_that_is_not_utf8_is_refused_naming_the_file_and_the_fix(vault: Vault) -> None:
    page = vault.articles / "Latin.md"
    page.write_bytes(b"# Caf\xe9\n")
    with pytest.raises(
        RefusedFileError, match=r"^articles/Latin\.md: not UTF-8 text; save it as UTF-8$"
    ):
        read_page(vault, page, what="an article")
