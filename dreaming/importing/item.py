"""`Item`: one thing `dreaming import` copies into Raw/."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dreaming.ledger.imports import ImportKind


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to copy into Raw/: a source file, or one conversation of an export."""

    key: str
    """The cursor's key: the file's absolute path, or `chatgpt:<conversation id>`."""
    kind: ImportKind
    source: str
    """The reader the copy needs; the copy goes under Raw/<source>/."""
    rel: str
    """Where under Raw/<source>/ (POSIX)."""
    size: int
    mtime_ns: int
    """The file's mtime; 0 for a conversation."""
    when: float | None
    """When it last changed (epoch seconds; --since compares it), None when unknown."""
    path: Path | None = None
    """The file to copy; None for a conversation."""
    data: bytes | None = None
    """A conversation's bytes."""
    digest: str | None = None
    """sha256 of a conversation's bytes."""
