"""Writes a killed dreaming left uncommitted, committed as dreaming's, never as the person's.

Before dreaming writes a file it will commit (a night's edit, `dreaming init`'s seeds), it
journals the path and the SHA-256 of the bytes (`dreaming.ledger.write_journal`); the
commit carrying them clears the entry. A process killed in between (kill -9, a power cut)
leaves the file changed and no commit holding it, which the next start would otherwise
take for the person's edit, and the night after for text of theirs that must win.

`finish_interrupted` looks at every entry left: a file holding exactly the journaled bytes
is committed as dreaming's, in one commit per run; a file holding other bytes was saved by
the person after our write, and is left to be committed as theirs, as any edit of theirs;
a file that is gone has nothing to commit. Either way the entry goes. Call it under the
vault's run lock, before the person's pending edits are committed: a live run's entries
are its own, not a killed one's.
"""

from __future__ import annotations

from pathlib import Path

from dreaming.errors import RefusedFileError
from dreaming.ledger import Ledger, write_journal
from dreaming.vault.checksums import checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from dreaming.vault.paths import Vault
from dreaming.vault.repo import VaultRepo

Finished = dict[str, list[str]]
"""A killed run's id → the vault-relative files committed for it as dreaming's."""


def finish_interrupted(vault: Vault, ledger: Ledger) -> Finished:
    """Commit what killed runs wrote and never committed as theirs (dreaming's); clear the
    journal. GitError, with the journal kept, when git cannot commit now."""
    done: Finished = {}
    journaled: dict[str, dict[str, str]] = {}
    """path → sha256 → run id: a run may have written a file more than once."""
    for entry in write_journal.pending(ledger):
        journaled.setdefault(entry.path, {})[entry.sha256] = entry.run_id
    if not journaled:
        return done
    found: dict[str, dict[Path, bytes]] = {}
    for rel, written in journaled.items():
        path = vault.root / rel
        data = _read(vault, path)
        run = None if data is None else written.get(checksum(data))
        if data is not None and run is not None:
            found.setdefault(run, {})[path] = data
    if found:
        _commit(vault, found, done)
    write_journal.clear(ledger, journaled)
    return done


def _commit(vault: Vault, found: dict[str, dict[Path, bytes]], done: Finished) -> None:
    """One commit of dreaming's per run, of the bytes found."""
    repo = VaultRepo(vault.root)
    try:
        for run, writes in sorted(found.items()):
            # What git would take, as the killed run's commit would have: not a file its
            # ignore rules keep out, nor one HEAD holds already (killed after its commit).
            dirty = set(repo.dirty_paths(writes))
            blobs = {path: data for path, data in writes.items() if vault.rel(path) in dirty}
            rels = sorted(vault.rel(path) for path in blobs)
            if not rels:
                continue
            message = f"dreaming: finish interrupted run {run}\n\n" + "\n".join(rels)
            if repo.commit_pipeline_blobs(blobs, message, run):
                done[run] = rels
    finally:
        repo.repo.close()  # its git cat-file helpers would otherwise outlive it until a GC


def _read(vault: Vault, path: Path) -> bytes | None:
    """The file's bytes; None for no file, and for anything dreaming never writes there
    (a link, a named pipe, a page too big) or cannot read: none of those is ours."""
    try:
        return read_optional(vault, path, cap=MAX_PAGE_BYTES, what="a page")
    except (RefusedFileError, OSError):
        return None
