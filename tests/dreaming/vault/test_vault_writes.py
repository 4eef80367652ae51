"""Writes never go through a link out of the vault: each file dreaming writes (a page, the
config, the ledger, a lock, a log) is refused in one line naming it and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.errors import DreamingError, RefusedFileError
from dreaming.ledger import Ledger
from dreaming.vault import Vault, checksum, write_atomic
from dreaming.vault.lock import run_lock
from dreaming.vault.logs import internal_error
from dreaming.vault.scaffold import init_vault


def one_line(e: pytest.ExceptionInfo[DreamingError]) -> str:
    assert "\n" not in str(e.value)
    return str(e.value)


def test_a_page_that_is_a_link_to_a_file_outside_is_not_written_through(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "passwd"
    outside.write_text("root:x:0:0\n")
    page = vault.talk / "Beads.md"
    page.symlink_to(outside)
    with pytest.raises(RefusedFileError) as e:
        write_atomic(page, "ours\n", expected=checksum(b"root:x:0:0\n"), registry=None, vault=vault)
    assert one_line(e).startswith("Talk/Beads.md: a link;")
    assert outside.read_text() == "root:x:0:0\n"
    assert page.is_symlink()


def test_a_dangling_link_is_refused_and_its_target_never_made(vault: Vault, tmp_path: Path) -> None:
    page = vault.log / "2026-01-01.md"
    page.symlink_to(tmp_path / "made.md")
    with pytest.raises(RefusedFileError) as e:
        write_atomic(page, "ours\n", expected=None, registry=None, vault=vault)
    assert "delete the link" in one_line(e)
    assert not (tmp_path / "made.md").exists()


def test_a_page_behind_a_folder_leading_out_of_the_vault_is_refused(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (vault.talk / "away").symlink_to(outside)
    with pytest.raises(RefusedFileError) as e:
        write_atomic(
            vault.talk / "away" / "x.md", "ours\n", expected=None, registry=None, vault=vault
        )
    assert "leads out of the vault" in one_line(e)
    assert list(outside.iterdir()) == []


def test_a_page_behind_a_folder_link_inside_the_vault_is_written(vault: Vault) -> None:
    (vault.root / "kept").mkdir()
    (vault.talk / "here").symlink_to(vault.root / "kept")
    write_atomic(vault.talk / "here" / "x.md", "ours\n", expected=None, registry=None, vault=vault)
    assert (vault.root / "kept" / "x.md").read_text() == "ours\n"


def test_init_never_makes_the_file_a_dangling_config_link_names(tmp_path: Path) -> None:
    root = tmp_path / "v"
    (root / ".dreaming").mkdir(parents=True)
    (root / ".dreaming" / "config.toml").symlink_to(tmp_path / "config.toml")
    with pytest.raises(DreamingError) as e:
        init_vault(root)
    assert ".dreaming/config.toml" in one_line(e)
    assert "delete the link" in str(e.value)
    assert not (tmp_path / "config.toml").exists()


def test_the_ledger_is_never_opened_through_a_link(vault: Vault, tmp_path: Path) -> None:
    vault.ledger_path.unlink()
    vault.ledger_path.symlink_to(tmp_path / "ledger.sqlite")
    with pytest.raises(DreamingError) as e:
        Ledger(vault.ledger_path)
    assert "ledger.sqlite: a link" in one_line(e)
    assert not (tmp_path / "ledger.sqlite").exists()


def test_the_ledgers_write_ahead_log_is_never_a_link(vault: Vault, tmp_path: Path) -> None:
    wal = vault.ledger_path.with_name("ledger.sqlite-wal")
    wal.unlink(missing_ok=True)
    wal.symlink_to(tmp_path / "wal")
    with pytest.raises(DreamingError) as e:
        Ledger(vault.ledger_path)
    assert "ledger.sqlite-wal: a link" in one_line(e)
    assert not (tmp_path / "wal").exists()


def test_the_ledgers_writer_lock_is_never_a_link(vault: Vault, tmp_path: Path) -> None:
    lock = vault.ledger_path.with_name("ledger.lock")
    lock.unlink(missing_ok=True)
    lock.symlink_to(tmp_path / "lock")
    with (
        pytest.raises(DreamingError) as e,
        Ledger(vault.ledger_path) as ledger,
        ledger.transaction(),
    ):
        pass
    assert "ledger.lock: a link" in one_line(e)
    assert not (tmp_path / "lock").exists()


def test_the_run_lock_is_never_taken_through_a_link(vault: Vault, tmp_path: Path) -> None:
    lock = vault.state / "run.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(tmp_path / "run.lock")
    with pytest.raises(DreamingError) as e, run_lock(vault):
        pass
    assert "run.lock: a link" in one_line(e)
    assert not (tmp_path / "run.lock").exists()


def test_an_internal_error_is_never_logged_through_a_folder_leading_out(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "logs"
    outside.mkdir()
    for old in vault.logs.iterdir():
        old.unlink()
    vault.logs.rmdir()
    vault.logs.symlink_to(outside)
    said = internal_error(vault, ValueError("boom"), "reading a page")
    assert "could not be kept" in said
    assert "leads out of the vault" in said
    assert list(outside.iterdir()) == []
