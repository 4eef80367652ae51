"""`dreaming init`: lay a vault out, adding only what is missing.

An existing folder or vault keeps every file it has: init copies a seed file
only where nothing exists at that path, and commits only the files it added,
never a person's pending changes.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from dreaming.errors import VaultError
from dreaming.gitops import VaultRepo
from dreaming.ledger import Ledger
from dreaming.resources import data_dir
from dreaming.vault import FOLDERS, STATE_DIR, Vault

IGNORED = f"{STATE_DIR}/"

CONFIG_TEMPLATE = """\
# dreaming settings for this vault on this machine (not committed).
# model: a spec string, see `dreaming model list`:
#   mlx:<preset or folder>, openai:<base url>[#model], scripted:<file>
# model = "mlx:qwen2.5-coder-1.5b"
# Nightly run, local time HH:MM.
# schedule = "03:00"
# Per-run budget; the rest resumes next run.
# max_model_calls = 2000
# max_model_seconds = 14400
# Raw files larger than this (MB) are reported and skipped, never read.
# max_raw_file_mb = 512
"""


@dataclass
class InitReport:
    vault: Vault
    added: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    commit: str | None = None
    created_repo: bool = False


def init_vault(path: Path) -> InitReport:
    root = Path(path).expanduser()
    if root.exists() and not root.is_dir():
        raise VaultError(f"{root}: is a file, not a folder; choose a folder for the vault")
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    vault = Vault(root)
    report = InitReport(vault=vault)
    for folder in FOLDERS:
        (root / folder).mkdir(exist_ok=True)
    _copy_missing(data_dir("vault_seed"), root, report)
    _copy_missing(data_dir("meta_templates"), root / "Meta", report)
    vault.logs.mkdir(parents=True, exist_ok=True)
    config = vault.state / "config.toml"
    if not config.exists():
        config.write_text(CONFIG_TEMPLATE, encoding="utf-8")
    Ledger(vault.ledger_path).close()

    report.created_repo = not (root / ".git").exists()
    repo = VaultRepo.init(root)
    _exclude_state(repo)
    added = [root / rel for rel in report.added]
    report.commit = repo.commit_pipeline(added, "dreaming init: lay out the vault", "init")
    repo.repo.close()  # its git cat-file helpers would otherwise outlive it until a GC
    return report


def _copy_missing(src: Path, dst: Path, report: InitReport) -> None:
    for item in sorted(src.rglob("*")):
        if not item.is_file() or item.name == "__init__.py" or "__pycache__" in item.parts:
            continue
        target = dst / item.relative_to(src)
        rel = target.relative_to(report.vault.root).as_posix()
        if target.exists() or target.is_symlink():
            report.kept.append(rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item, target)
        report.added.append(rel)


def _exclude_state(repo: VaultRepo) -> None:
    """Keep .dreaming/ out of git even when the person's own .gitignore lacks it."""
    exclude = repo.git_path("info/exclude")
    exclude.parent.mkdir(parents=True, exist_ok=True)
    text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    if IGNORED not in text.splitlines():
        sep = "" if not text or text.endswith("\n") else "\n"
        exclude.write_text(f"{text}{sep}{IGNORED}\n", encoding="utf-8")
