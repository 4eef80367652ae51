from __future__ import annotations

import pytest

from dreaming.errors import PolicyError
from dreaming.policy import Policy
from dreaming.vault import Vault, checksum


def test_a_page_is_read_with_the_checksum_of_its_bytes(vault: Vault) -> None:
    page = Policy(vault).page("Chunking")
    assert page.text == (vault.meta / "Chunking.md").read_text(encoding="utf-8")
    assert page.checksum == checksum((vault.meta / "Chunking.md").read_bytes())


def test_a_page_is_read_once_a_run(vault: Vault) -> None:
    policy = Policy(vault)
    first = policy.text("Chunking")
    (vault.meta / "Chunking.md").write_text("edited mid-run\n", encoding="utf-8")
    assert policy.text("Chunking") == first


def test_a_missing_page_with_no_version_to_fall_back_on_says_how_to_restore_it(
    vault: Vault,
) -> None:
    (vault.meta / "Mine.md").write_text("x", encoding="utf-8")
    (vault.meta / "Mine.md").unlink()
    with pytest.raises(PolicyError, match="dreaming init"):
        Policy(vault).text("Mine")


def test_a_broken_page_keeps_its_last_good_version_and_is_reported(vault: Vault) -> None:
    good = Policy(vault, keep=True).text("Chunking")
    (vault.meta / "Chunking.md").write_bytes(b"\xff\xfe not text")
    policy = Policy(vault)
    assert policy.text("Chunking") == good
    (problem,) = policy.problems
    assert "Chunking.md: not UTF-8 text; save it as UTF-8" in problem
    assert "last good version" in problem


def test_a_broken_page_never_seen_good_falls_back_to_the_shipped_one(vault: Vault) -> None:
    shipped = (vault.meta / "Chunking.md").read_text(encoding="utf-8")
    (vault.meta / "Chunking.md").unlink()
    policy = Policy(vault)
    assert policy.text("Chunking") == shipped
    assert "dreaming init" in policy.problems[0]


def test_a_run_that_only_reads_remembers_nothing(vault: Vault) -> None:
    Policy(vault).text("Chunking")
    (vault.meta / "Chunking.md").write_text("# Chunking\n\nmine\n", encoding="utf-8")
    Policy(vault).text("Chunking")
    (vault.meta / "Chunking.md").write_bytes(b"\xff")
    assert "mine" not in Policy(vault).text("Chunking")
