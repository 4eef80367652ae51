"""STATION.md heat and the NOTES.md notes index (issue 9: being built)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from typing import Literal

from dreaming.vault import OwnWrites, Vault

Changed = Literal["station", "notes"]


@dataclass(slots=True)
class Settled:
    said: list[str] = field(default_factory=list)
    """One line for each thing done (heated, notes indexed, committed)."""
    problems: list[str] = field(default_factory=list)
    """One line for each thing refused, naming the file and the fix."""


def settle(vault: Vault, registry: OwnWrites, *, changed: Set[Changed], now: str) -> Settled:
    """React to the person's edit of STATION.md and/or NOTES.md: commit it as theirs, heat
    the card, refresh the notes index, commit what we wrote."""
    return Settled()
