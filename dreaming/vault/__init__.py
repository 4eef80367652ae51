"""The vault: paths, checksum-guarded writes, the own-write registry, git, scaffold.

`from dreaming.vault import Vault, write_atomic, ...` is what callers use; git
(`dreaming.vault.repo`) and `dreaming init` (`dreaming.vault.scaffold`) are
imported from their modules, so opening a vault does not import GitPython.
"""

from __future__ import annotations

from dreaming.vault.paths import (
    FOLDERS,
    LAYOUT,
    PRIVATE,
    STATE_DIR,
    OwnWrites,
    Vault,
    checksum,
    current_checksum,
    durable_temp,
    read_text,
    write_atomic,
)

__all__ = [
    "FOLDERS",
    "LAYOUT",
    "PRIVATE",
    "STATE_DIR",
    "OwnWrites",
    "Vault",
    "checksum",
    "current_checksum",
    "durable_temp",
    "read_text",
    "write_atomic",
]
