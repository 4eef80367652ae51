"""`dreaming init`: lay a vault out, adding only what is missing.

An existing folder or vault keeps every file it has: init copies a seed file
only where nothing exists at that path, and commits only the files it added,
with the bytes it wrote there, never a person's pending changes. Every refusal
comes before the first write, so a refused init leaves the folder as it found it.
What it will commit is journaled in the ledger before it is written (atomically),
so an init killed before its commit has its files committed as dreaming's by the
next start (`dreaming.vault.unfinished`), not as the person's edits.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dreaming.clock import utc_now
from dreaming.errors import ConflictError, GitError, VaultError
from dreaming.ledger import Ledger, write_journal
from dreaming.ledger.write_journal import Entry
from dreaming.resources import data_dir
from dreaming.vault import keepout
from dreaming.vault.checksums import checksum
from dreaming.vault.paths import FOLDERS, LAYOUT, STATE_DIR, Vault
from dreaming.vault.repo import VaultRepo
from dreaming.vault.writes import replace_file, write_atomic

CONFIG_NAME = "config.toml"
RUN_ID = "init"
"""The run id of init's commit (its `Dreaming-Run:` trailer) and of its journal entries."""

OLD_STATE_RULE = f"{STATE_DIR}/"
# Everything under .dreaming/ stays out of git but the notes index, which is committed
# so that it survives a wiped NOTES.md. The old rule hid the folder itself, and git
# never looks inside an ignored folder for an exception.
STATE_RULES = (f"{STATE_DIR}/*", f"!{STATE_DIR}/session-notes.json")
# The seed .gitignore's rules, for a folder whose own rules let transcripts in:
# they can hold secrets.
TRANSCRIPT_NOTE = (
    "# dreaming: transcripts in Raw/ can hold secrets; delete the two lines below to version them"
)
TRANSCRIPT_RULES = ("Raw/*", "!Raw/README.md")
# Transcript-like names: when git ignores them all, the rules are already in place.
CONFIG_TEMPLATE = """\
# dreaming settings for this vault on this machine (not committed).
# model: a spec string, see `dreaming model list`:
#   mlx:<preset or folder>, openai:<base url>[#model], scripted:<file>
# model = "mlx:qwen2.5-coder-1.5b"
# Nightly run, local time HH:MM.
# schedule = "03:00"
# A scheduled night stops by this local time, at a unit boundary ("" for no set end);
# the rest resumes the next night.
# night_ends = "07:00"
# Per-run budget; the rest resumes next run.
# max_model_calls = 2000
# max_model_seconds = 14400
# Which part of the backlog the nights take first: "newest" or "oldest" (by updated
# time), and only the conversations updated since a date (the older wait).
# backlog_order = "newest"
# backlog_since = "2025-01-01"
# Raw files larger than this (MB) are reported and skipped, never read.
# max_raw_file_mb = 512
# Seconds reading one Raw file may take; past it the file is marked failed (and read
# again once it changes) and the others go on.
# raw_read_timeout_s = 300
"""


@dataclass
class InitReport:
    vault: Vault
    added: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    upgraded: list[str] = field(default_factory=list)
    """Kept files init brought up to date (the old `.dreaming/` rule of a .gitignore)."""
    leaks: list[str] = field(default_factory=list)
    """What git would still take of Raw/ and .dreaming/ (`keepout.leaks`), a line each."""
    commit: str | None = None
    created_repo: bool = False


def init_vault(path: Path) -> InitReport:
    root = Path(path).expanduser()
    if root.exists() and not root.is_dir():
        raise VaultError(f"{root}: is a file, not a folder; choose a folder for the vault")
    if _is_bare_repository(root):
        raise GitError(
            f"{root}: is a bare git repository (no working files); "
            "make the vault in a clone of it, or in a new folder"
        )
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise VaultError(
            f"{root}: cannot create the folder ({e.strerror}); choose a folder you can write to"
        ) from e
    root = root.resolve()
    vault = Vault(root)
    report = InitReport(vault=vault)
    seeds = _seed_plan()
    _refuse_unsafe(vault, seeds)
    first = not vault.state.exists()
    report.created_repo = not (root / ".git").exists()

    for folder in FOLDERS:
        (root / folder).mkdir(exist_ok=True)
    vault.logs.mkdir(parents=True, exist_ok=True)
    config = vault.state / CONFIG_NAME
    if not _present(config):
        write_atomic(config, CONFIG_TEMPLATE, expected=None, registry=None, vault=vault)
    with Ledger(vault.ledger_path) as ledger:
        _lay_out(vault, seeds, report, first, ledger)
    return report


def _lay_out(
    vault: Vault, seeds: dict[str, Path], report: InitReport, first: bool, ledger: Ledger
) -> None:
    """Write the missing seeds, each journaled first; commit them; clear the journal."""
    root = vault.root

    def journal(writes: dict[str, bytes]) -> None:
        at = utc_now()
        entries = [Entry(rel, checksum(data), RUN_ID, at) for rel, data in writes.items()]
        write_journal.record(ledger, entries)

    leftovers = _copy_missing(seeds, report, journal)
    repo = VaultRepo.init(root)
    _keep_out_of_git(repo, first)
    journal({rel: data for rel, data in keepout.RULES.items() if not _present(root / rel)})
    keepout.restore(repo)
    # Ours and not committed: just written, or left by an init that stopped before its commit.
    ours = {
        rel: data
        for rel, data in keepout.RULES.items()
        if _own_file(root / rel, root) and (root / rel).read_bytes() == data
    }
    rules = {rel: ours[rel] for rel in repo.dirty_paths([root / rel for rel in ours])}
    # A seed file left untracked by an init that stopped before its commit (a
    # stale lock, a crash) is init's own work: this run commits it.
    unfinished = set(repo.dirty_paths([root / rel for rel in leftovers]))
    report.added += [rel for rel in leftovers if rel in unfinished]
    report.kept = [rel for rel in report.kept if rel not in unfinished]
    upgraded = _upgrade_gitignore(repo, journal)
    report.upgraded = list(upgraded)
    # The bytes init wrote, not the disk's: a save of the person's meanwhile stays theirs.
    wrote = {rel: seeds[rel].read_bytes() for rel in report.added} | upgraded | rules
    report.added += list(rules)
    tracked = set(repo.dirty_paths([root / rel for rel in wrote]))
    blobs = {root / rel: data for rel, data in wrote.items() if rel in tracked}
    report.commit = repo.commit_pipeline_blobs(blobs, "dreaming init: lay out the vault", RUN_ID)
    # Those git keeps out too: nothing is left of init's to finish.
    write_journal.clear(ledger, wrote, run_id=RUN_ID)
    report.leaks = [keepout.said(leak) for leak in keepout.leaks(repo)]
    repo.repo.close()  # its git cat-file helpers would otherwise outlive it until a GC


def _refuse_unsafe(vault: Vault, seeds: dict[str, Path]) -> None:
    """Every reason to refuse, checked before init writes anything."""
    root = vault.root
    missing = [rel for rel in seeds if not _present(root / rel)]
    # A seed folder such as .obsidian/ may be a link to settings shared between
    # vaults, as long as init has nothing to write through it.
    folders = (*LAYOUT, *sorted({rel.split("/")[0] for rel in missing if "/" in rel}))
    vault.check_layout(folders)
    for rel in missing:
        vault.inside(root / rel)
    # Not a seed (never committed), but written through a link all the same.
    for own in (vault.state / CONFIG_NAME, vault.ledger_path):
        if own.parent.is_dir():
            vault.writable(own)
    _check_writable([root, *(root / name for name in folders)])
    if (root / ".git").exists():
        VaultRepo(root).check_ready()


def _seed_plan() -> dict[str, Path]:
    """Vault-relative target → seed file, for every file init may lay down."""
    plan: dict[str, Path] = {}
    for src, prefix in ((data_dir("vault_seed"), ""), (data_dir("meta_templates"), "Meta/")):
        for item in sorted(src.rglob("*")):
            if not item.is_file() or item.name == "__init__.py" or "__pycache__" in item.parts:
                continue
            plan[prefix + item.relative_to(src).as_posix()] = item
    return plan


Journal = Callable[[dict[str, bytes]], None]
"""Journals what init is about to write (vault-relative path → bytes)."""


def _copy_missing(seeds: dict[str, Path], report: InitReport, journal: Journal) -> list[str]:
    """Copy each seed where nothing exists, all journaled first, each atomically (a kill
    leaves the whole seed or none); return the kept files identical to their seed."""
    root = report.vault.root
    same: list[str] = []
    missing: dict[str, bytes] = {}
    for rel, item in seeds.items():
        target = root / rel
        if not _present(target):
            missing[rel] = item.read_bytes()
            continue
        report.kept.append(rel)
        if _own_file(target, root) and target.read_bytes() == item.read_bytes():
            same.append(rel)
    journal(missing)
    for rel, data in missing.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_atomic(target, data, expected=None, registry=None, vault=report.vault)
        except ConflictError:
            # Made meanwhile, by the person: theirs, kept.
            report.kept.append(rel)
            continue
        report.added.append(rel)
    return same


def _check_writable(folders: list[Path]) -> None:
    for folder in folders:
        if folder.is_dir() and not os.access(folder, os.W_OK):
            raise VaultError(
                f"{folder}: not writable; give yourself write access to it "
                "(or choose another folder), then run again"
            )


def _own_file(path: Path, root: Path) -> bool:
    """A plain file of the vault itself: no link to it or above it inside the vault."""
    return path.is_file() and path.resolve() == root / path.relative_to(root)


def _present(path: Path) -> bool:
    # A link counts, even a broken one: it is the person's, and never written through.
    return path.exists() or path.is_symlink()


def _is_bare_repository(root: Path) -> bool:
    # Git's own test for a repository folder: HEAD, objects/ and refs/ in it.
    return (root / "HEAD").is_file() and (root / "objects").is_dir() and (root / "refs").is_dir()


def _keep_out_of_git(repo: VaultRepo, first: bool) -> None:
    """The protection a fresh vault's .gitignore gives, for a folder with its own rules.

    Written to .git/info/exclude, never to the person's .gitignore. `.dreaming/`
    is always kept out, but for the notes index (STATE_RULES). Transcripts are checked
    at the vault's first init only: a person who later chooses to version them is not
    overruled by a second init.
    """
    exclude = repo.git_path("info/exclude")
    exclude.parent.mkdir(parents=True, exist_ok=True)
    before = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    lines = _state_rules(before.splitlines())
    wanted = [] if STATE_RULES[0] in lines else list(STATE_RULES)
    if (
        first
        and TRANSCRIPT_NOTE not in lines
        and repo.ignored(keepout.RAW_PROBES) != set(keepout.RAW_PROBES)
    ):
        wanted += [TRANSCRIPT_NOTE, *TRANSCRIPT_RULES]
    text = "".join(line + "\n" for line in [*lines, *wanted])
    if text != before:
        replace_file(exclude, text.encode("utf-8"))


def _state_rules(lines: list[str]) -> list[str]:
    """`lines` with the old `.dreaming/` rule replaced by STATE_RULES."""
    out: list[str] = []
    for line in lines:
        out += list(STATE_RULES) if line == OLD_STATE_RULE else [line]
    return out


def _upgrade_gitignore(repo: VaultRepo, journal: Journal) -> dict[str, bytes]:
    """Replace the old `.dreaming/` line of a committed .gitignore by STATE_RULES: only
    that line, and only in a file without the person's pending changes, which init never
    commits. The vault-relative path and the bytes written, when it changed."""
    path = repo.root / ".gitignore"
    if not _own_file(path, repo.root):
        return {}
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {}
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(eol)
    if OLD_STATE_RULE not in lines or not repo.committed(path, data):
        return {}
    fresh = eol.join(_state_rules(lines)).encode("utf-8")
    journal({".gitignore": fresh})
    try:
        write_atomic(path, fresh, expected=checksum(data), registry=None, vault=Vault(repo.root))
    except ConflictError:
        # Saved meanwhile: the person's file, left as they made it.
        return {}
    return {".gitignore": fresh}
