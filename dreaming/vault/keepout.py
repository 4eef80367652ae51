"""What must never be committed: the transcripts in Raw/ and dreaming's state in
`.dreaming/` (the ledger holds every message, the import stages whole transcripts).

Each folder holds a `.gitignore` of its own that ignores everything in it but itself
(and Raw/README.md, the notes index): git lets the rules of the folder nearest a file
win, so no rule of the vault's own `.gitignore` (`!*.jsonl`, `!Raw/**`, `!.dreaming/`)
or of `.git/info/exclude` lets a transcript back in. `restore` writes one that is
missing (init, every night, the watcher's start); `leaks` says what git would still take.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dreaming.clock import utc_now
from dreaming.ledger import Ledger, write_journal
from dreaming.ledger.write_journal import Entry
from dreaming.vault.checksums import checksum
from dreaming.vault.paths import STATE_DIR, Vault
from dreaming.vault.repo import VaultRepo
from dreaming.vault.writes import write_atomic

_HEAD = "# dreaming: {what}; never committed. Restored by dreaming if removed.\n"
RULES: dict[str, bytes] = {
    "Raw/.gitignore": (
        _HEAD.format(what="transcripts can hold secrets") + "*\n!.gitignore\n!README.md\n"
    ).encode(),
    f"{STATE_DIR}/.gitignore": (
        _HEAD.format(what="the ledger holds every message")
        + "*\n!.gitignore\n!session-notes.json\n"
    ).encode(),
}
"""Each folder's own rules, by the vault-relative path of its `.gitignore`."""

ALLOWED = frozenset({*RULES, "Raw/README.md", f"{STATE_DIR}/session-notes.json"})
"""The only files of those folders git may hold."""

RAW_PROBES = ("Raw/a.jsonl", "Raw/a.json", "Raw/a.md", "Raw/sub/a.jsonl")
"""Names a transcript in Raw/ may have: each must be ignored."""
PROBES = (
    *RAW_PROBES,
    f"{STATE_DIR}/ledger.sqlite",
    f"{STATE_DIR}/ledger.sqlite-wal",
    f"{STATE_DIR}/import/a.jsonl",
)
"""Names git must ignore even while no such file exists."""


@dataclass(frozen=True)
class Leak:
    path: str
    why: str


def restore(repo: VaultRepo) -> dict[str, bytes]:
    """Write each folder's `.gitignore` that is missing; the vault-relative paths and
    bytes written. One the person changed is theirs: `leaks` says if it lets files in."""
    wrote: dict[str, bytes] = {}
    for rel, data in RULES.items():
        path = repo.root / rel
        if path.exists() or path.is_symlink():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data, expected=None, registry=None, vault=Vault(repo.root))
        wrote[rel] = data
    return wrote


def leaks(repo: VaultRepo) -> list[Leak]:
    """What git holds or `git add -A` would take from Raw/ and `.dreaming/`, and the
    names of transcripts and state git would not ignore."""
    found = [
        Leak(rel, "tracked by git") for rel in repo.listed("Raw", STATE_DIR) if rel not in ALLOWED
    ]
    found += [
        Leak(rel, "not ignored: `git add -A` would commit it")
        for rel in repo.listed("Raw", STATE_DIR, untracked=True)
        if rel not in ALLOWED
    ]
    if not found:
        kept_out = repo.ignored(PROBES)
        found = [Leak(rel, "would not be ignored") for rel in PROBES if rel not in kept_out]
    return found


def said(leak: Leak) -> str:
    """One line: the path, why, and what to do."""
    folder = leak.path.split("/", 1)[0]
    fix = f"`git rm --cached {leak.path}`, then " if leak.why == "tracked by git" else ""
    return (
        f"{leak.path}: {leak.why}; {fix}run `dreaming init` to restore {folder}/.gitignore "
        "and remove any `!` rule that lets it in"
    )


def restore_committed(root: Path, ledger: Ledger, run_id: str) -> list[str]:
    """`restore`, journaled first and committed as run `run_id`'s work (a night's start):
    the vault-relative paths written."""
    missing = {rel: data for rel, data in RULES.items() if not (root / rel).exists()}
    if not missing:
        return []
    at = utc_now()
    write_journal.record(
        ledger, [Entry(rel, checksum(d), run_id, at) for rel, d in missing.items()]
    )
    repo = VaultRepo(root)
    try:
        wrote = restore(repo)
        message = "dreaming: keep transcripts and the ledger out of git"
        repo.commit_pipeline_blobs(
            {root / rel: data for rel, data in wrote.items()}, message, run_id
        )
    finally:
        repo.repo.close()
    write_journal.clear(ledger, missing, run_id=run_id)
    return list(wrote)
