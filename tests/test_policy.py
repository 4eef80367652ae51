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


def test_a_missing_page_says_how_to_restore_it(vault: Vault) -> None:
    (vault.meta / "Chunking.md").unlink()
    with pytest.raises(PolicyError, match="dreaming init"):
        Policy(vault).text("Chunking")
