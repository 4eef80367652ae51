"""Shared fixtures: real vaults made by `dreaming init`, real git, real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dreaming.ledger import Ledger
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return init_vault(tmp_path / "vault").vault


@pytest.fixture
def ledger(vault: Vault) -> Iterator[Ledger]:
    with Ledger(vault.ledger_path) as led:
        yield led
