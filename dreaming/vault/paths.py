"""Vault paths: the layout of a vault and the checks that keep every path inside it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import RefusedFileError, UnsafePathError, VaultError

STATE_DIR = ".dreaming"
FOLDERS = ("Raw", "articles", "Meta", "Talk", "Log")
# Everything dreaming writes into: a link here leading out of the vault would
# carry those writes (and the person's transcripts) somewhere else.
LAYOUT = (*FOLDERS, STATE_DIR)
# Kept out of git by name (.gitignore, info/exclude): through a link, their files
# would show up in git under the link's target, where no rule keeps them out.
PRIVATE = ("Raw", STATE_DIR)


@dataclass(frozen=True)
class Vault:
    root: Path

    @classmethod
    def open(cls, path: Path | str) -> Vault:
        """An existing vault made by `dreaming init`."""
        root = Path(path).expanduser()
        if not root.exists():
            raise VaultError(f"{root}: no such folder; create a vault with: dreaming init {root}")
        if not root.is_dir():
            raise VaultError(f"{root}: is a file, not a folder; pass the vault folder")
        if not (root / STATE_DIR).is_dir() or not (root / "Raw").is_dir():
            raise VaultError(
                f"{root}: not a dreaming vault (no Raw/ or .dreaming/); run: dreaming init {root}"
            )
        vault = cls(root.resolve())
        vault.check_layout()
        return vault

    def check_layout(self, names: tuple[str, ...] = LAYOUT) -> None:
        """Refuse a vault whose folders are not its own: a link leading outside, or a file."""
        for name in names:
            path = self.root / name
            target = path.resolve()
            if target != self.root and self.root not in target.parents:
                raise VaultError(
                    f"{path}: a link to {target}, outside the vault; dreaming writes there, "
                    "so replace the link with a folder inside the vault, then run again"
                )
            if name in PRIVATE and path.is_symlink():
                raise VaultError(
                    f"{path}: a link to {target}; git keeps {name}/ out of the repository only "
                    "by its name, so replace the link with a real folder, then run again"
                )
            if path.exists() and not path.is_dir():
                raise VaultError(
                    f"{path}: is a file, not a folder; move it out of the way, then run again"
                )

    @property
    def raw(self) -> Path:
        return self.root / "Raw"

    @property
    def articles(self) -> Path:
        return self.root / "articles"

    @property
    def meta(self) -> Path:
        return self.root / "Meta"

    @property
    def talk(self) -> Path:
        return self.root / "Talk"

    @property
    def log(self) -> Path:
        return self.root / "Log"

    @property
    def state(self) -> Path:
        return self.root / STATE_DIR

    @property
    def ledger_path(self) -> Path:
        return self.state / "ledger.sqlite"

    @property
    def logs(self) -> Path:
        return self.state / "logs"

    def rel(self, path: Path) -> str:
        """The vault-relative POSIX path of `path` (which must be inside the vault)."""
        if path.is_absolute() and ".." not in path.parts:
            try:
                # Cheap path for the common case; resolve() costs a syscall per part.
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return self.inside(path).relative_to(self.root).as_posix()

    def inside(self, path: Path | str) -> Path:
        """`path` resolved, refusing anything that would leave the vault."""
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        resolved = p.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafePathError(f"{path}: outside the vault {self.root}; refusing to touch it")
        return resolved

    def writable(self, path: Path) -> None:
        """Refuse, before anything is written, a file dreaming would write through a
        link: the file itself a link (even a broken one, whose target the write would
        make), or a folder on its way leading out of the vault. A folder link inside the
        vault is followed (docs/vault.md)."""
        folder = os.path.realpath(path.parent)
        root = str(self.root)
        try:
            rel = path.relative_to(self.root).as_posix()
        except ValueError:
            rel = str(path)
        if folder != root and not folder.startswith(root.rstrip(os.sep) + os.sep):
            raise RefusedFileError(
                rel,
                f"its folder leads out of the vault (to {folder}); dreaming writes nothing "
                "outside the vault, so put a real folder in its place, then run again",
            )
        if os.path.islink(path):
            raise RefusedFileError(
                rel,
                "a link; dreaming writes only real files in the vault, so delete the link "
                "(or put the file itself in its place), then run again",
            )

    def article_path(self, stem: str) -> Path:
        """The file of an article stem; the stem is validated by the article grammar."""
        if not stem or "/" in stem or "\\" in stem or stem.startswith(".") or "\0" in stem:
            raise UnsafePathError(f"{stem!r}: not a valid article name; it would leave articles/")
        return self.inside(self.articles / f"{stem}.md")
