from __future__ import annotations

import importlib
import os
import pkgutil
from pathlib import Path

import pytest

from dreaming.errors import ConflictError, UnsafePathError, VaultError
from dreaming.vault import LAYOUT, OwnWrites, Vault, checksum, write_atomic


def test_write_creates_a_new_file_when_none_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    digest = write_atomic(path, "hello\n", expected=None, registry=None, vault=Vault(tmp_path))
    assert path.read_text() == "hello\n"
    assert digest == checksum("hello\n")


def test_write_replaces_the_file_it_read(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    digest = checksum(path.read_bytes())
    write_atomic(path, "new\n", expected=digest, registry=None, vault=Vault(tmp_path))
    assert path.read_text() == "new\n"


def test_a_person_edit_after_the_read_wins(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    digest = checksum(path.read_bytes())
    path.write_text("the person's edit\n")
    with pytest.raises(ConflictError, match=r"a\.md: changed on disk"):
        write_atomic(path, "pipeline text\n", expected=digest, registry=None, vault=Vault(tmp_path))
    assert path.read_text() == "the person's edit\n"


def test_creating_over_an_existing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("mine\n")
    with pytest.raises(ConflictError):
        write_atomic(path, "theirs\n", expected=None, registry=None, vault=Vault(tmp_path))
    assert path.read_text() == "mine\n"


def test_a_crash_during_the_rename_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    digest = checksum(path.read_bytes())

    def crash(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="power cut"):
        write_atomic(path, "new\n", expected=digest, registry=None, vault=Vault(tmp_path))
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_own_writes_are_recognised_until_the_person_edits(tmp_path: Path) -> None:
    registry = OwnWrites()
    path = tmp_path / "a.md"
    write_atomic(path, "ours\n", expected=None, registry=registry, vault=Vault(tmp_path))
    assert registry.is_own(path)
    path.write_text("the person's\n")
    assert not registry.is_own(path)


@pytest.mark.timeout(10)
def test_a_named_pipe_put_where_we_wrote_is_no_own_write_and_is_never_written_over(
    tmp_path: Path,
) -> None:
    registry = OwnWrites()
    path = tmp_path / "a.md"
    digest = write_atomic(path, "ours\n", expected=None, registry=registry, vault=Vault(tmp_path))
    path.unlink()
    os.mkfifo(path)
    assert not registry.is_own(path)
    with pytest.raises(ConflictError):
        write_atomic(path, "again\n", expected=digest, registry=registry, vault=Vault(tmp_path))
    assert path.is_fifo()


def test_a_write_names_its_registry_there_is_no_shared_default(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="registry"):
        write_atomic(tmp_path / "a.md", "text\n", expected=None)  # type: ignore[call-arg]
    assert not (tmp_path / "a.md").exists()


def test_two_registries_never_see_each_others_writes(tmp_path: Path) -> None:
    first, second = OwnWrites(), OwnWrites()
    path = tmp_path / "a.md"
    write_atomic(path, "ours\n", expected=None, registry=first, vault=Vault(tmp_path))
    assert first.is_own(path)
    assert not second.is_own(path)


def test_no_module_of_the_vault_holds_a_registry() -> None:
    import dreaming.vault as package

    modules = [
        package,
        *(
            importlib.import_module(f"dreaming.vault.{m.name}")
            for m in pkgutil.iter_modules(package.__path__)
        ),
    ]
    held = [
        f"{module.__name__}.{name}"
        for module in modules
        for name, value in vars(module).items()
        if isinstance(value, OwnWrites)
    ]
    assert held == []


def test_paths_outside_the_vault_are_refused(vault: Vault) -> None:
    with pytest.raises(UnsafePathError):
        vault.inside("../escape.md")
    with pytest.raises(UnsafePathError):
        vault.article_path("../../etc/passwd")


def test_open_refuses_a_file(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(VaultError, match="is a file, not a folder"):
        Vault.open(f)


def test_open_refuses_a_folder_that_is_not_a_vault(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="dreaming init"):
        Vault.open(tmp_path)


def test_open_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="no such folder"):
        Vault.open(tmp_path / "nope")


@pytest.mark.parametrize("folder", LAYOUT)
def test_open_refuses_a_vault_whose_folder_became_a_link_outside(
    vault: Vault, tmp_path: Path, folder: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = vault.root / folder
    moved.rename(tmp_path / "old")
    moved.symlink_to(elsewhere)
    with pytest.raises(VaultError, match=rf"{folder}: a link to .*elsewhere, outside the vault"):
        Vault.open(vault.root)


def test_open_accepts_a_folder_linked_inside_the_vault(vault: Vault) -> None:
    (vault.articles).rename(vault.root / "wiki")
    (vault.articles).symlink_to(vault.root / "wiki")
    assert Vault.open(vault.root).root == vault.root
