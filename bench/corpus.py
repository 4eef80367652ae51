"""The public corpus ingested into a throwaway vault: what the gold benches read."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dreaming.ledger import Ledger
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest


@contextmanager
def ingested(corpus: Path) -> Iterator[Ledger]:
    """A ledger holding every conversation of `corpus`, gone when the block ends."""
    with tempfile.TemporaryDirectory() as tmp:
        vault = init_vault(Path(tmp) / "v").vault
        shutil.copytree(corpus, vault.raw, dirs_exist_ok=True)
        (vault.raw / "SOURCES.md").unlink(missing_ok=True)
        with Ledger(vault.ledger_path) as ledger:
            ingest(vault, ledger)
            yield ledger
