"""The vault: paths, checksum-guarded writes, the own-write registry, git, scaffold.

Callers import the names below from here; git (`dreaming.vault.repo`) and
`dreaming init` (`dreaming.vault.scaffold`) come from their own modules, so
opening a vault does not import GitPython or the ledger.
"""

from __future__ import annotations

from dreaming.vault.checksums import checksum
from dreaming.vault.own_writes import OwnWrites
from dreaming.vault.paths import FOLDERS, LAYOUT, STATE_DIR, Vault
from dreaming.vault.writes import write_atomic

__all__ = [
    "FOLDERS",
    "LAYOUT",
    "STATE_DIR",
    "OwnWrites",
    "Vault",
    "checksum",
    "write_atomic",
]
