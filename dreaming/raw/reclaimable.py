"""Which Raw files a newer copy holds byte for byte: what RECLAIM may remove, and what
`dreaming status` lists as reclaimable. One predicate, so the two never disagree.

The ledger names the candidates (`conversations.superseded`: every conversation of the
file is the start of one another file holds), but it compares only the text a reader
keeps, and readers drop much (thinking, tool output, a tool call's other arguments,
`uuid`, `cwd`, a ChatGPT title). So a candidate is reclaimable only when its bytes, read
now, are the start of a newer copy's bytes (all of them, for a duplicate): a session
resumed or copied before it grew. That rule is the same for every format: a JSONL
session's complete lines are then the newer one's first lines, and a one-document file
(a ChatGPT conversation, Markdown) goes only as an identical copy or a start of the
other file. Anything else is kept, saying where the bytes part.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from dreaming.ledger import Ledger, raw_files
from dreaming.ledger.conversations import Superseded
from dreaming.ledger.raw_files import RawFile
from dreaming.raw.folder import Prefix, byte_prefix
from dreaming.vault import Vault

QUIET_SECONDS = 10.0
"""A file changed more recently than this may still be being written: it is left alone."""


@dataclass(frozen=True, slots=True)
class Seen:
    """A file as looked at on disk: its ledger row and the identity of what was there."""

    rel: str
    row: RawFile
    ino: int
    dev: int
    nlink: int

    def same_as(self, st: os.stat_result) -> bool:
        return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns) == (
            self.ino,
            self.dev,
            self.row.size,
            self.row.mtime_ns,
        )


@dataclass(frozen=True, slots=True)
class Held:
    """A superseded file whose every byte a newer copy holds."""

    item: Superseded
    file: Seen
    newer: tuple[Seen, ...]
    """Every file the ledger names as holding its conversations, as seen."""
    holder: str
    """The one of them whose bytes start with all of this file's."""
    exact: bool
    """The two are byte for byte the same."""

    @property
    def freed(self) -> int:
        """What removing it frees: nothing for one of several hard links to the same data."""
        return self.file.row.size if self.file.nlink == 1 else 0


def examine(
    vault: Vault, ledger: Ledger, item: Superseded, quiet: float = QUIET_SECONDS
) -> Held | str:
    """`item` with the newer copy holding its bytes, or why it is kept."""
    seen = look(vault, ledger, item.path)
    if isinstance(seen, str):
        return seen
    if time.time() - seen.row.mtime_ns / 1e9 < quiet:
        return f"changed in the last {quiet:g} seconds; it may still be being written"
    newer: list[Seen] = []
    for holder in item.holders:
        other = look(vault, ledger, holder)
        if isinstance(other, str):
            return f"its newer copy {holder} is not as ingested ({other})"
        newer.append(other)
    parted: list[tuple[str, Prefix]] = []
    for other in newer:
        try:
            found = byte_prefix(vault.root / seen.rel, vault.root / other.rel)
        except OSError as e:
            return f"cannot be read now ({e.strerror or e}); kept"
        if (found.size, found.sha256) != (seen.row.size, seen.row.sha256):
            return "changed since it was ingested; run dreaming ingest, then reclaim again"
        if found.line is None:
            return Held(item, seen, tuple(newer), other.rel, found.size == other.row.size)
        parted.append((other.rel, found))
    return _lacks(parted)


def _lacks(parted: list[tuple[str, Prefix]]) -> str:
    def where(p: Prefix) -> str:
        return f"from line {p.line}, past its end" if p.past_end else f"line {p.line} differs"

    if len(parted) == 1:
        rel, p = parted[0]
        return f"holds bytes {rel} lacks ({where(p)})"
    each = "; ".join(f"{rel}: {where(p)}" for rel, p in parted)
    return f"holds bytes none of its newer copies has in full ({each})"


def look(vault: Vault, ledger: Ledger, rel: str) -> Seen | str:
    """`rel` on disk as the ledger recorded it at its last ingest, or what differs."""
    row = raw_files.get(ledger, rel)
    if row is None or row.status != "ok":
        return "not ingested cleanly; run dreaming ingest, then reclaim again"
    path = vault.root / rel
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "gone from Raw/; dreaming ingest forgets it"
    except OSError as e:
        return f"cannot be looked at ({e.strerror or e})"
    if path.is_symlink():
        return "a link, not a copy: removing it frees nothing; remove it yourself if you wish"
    if not path.is_file():
        return "not a regular file"
    if (st.st_size, st.st_mtime_ns) != (row.size, row.mtime_ns):
        return "changed since it was ingested; run dreaming ingest, then reclaim again"
    return Seen(rel, row, st.st_ino, st.st_dev, st.st_nlink)
