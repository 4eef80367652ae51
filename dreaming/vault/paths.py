"""Vault paths, checksum-guarded atomic writes, and the registry of our own writes.

Never lose a person's text: every write names the checksum of the text it
started from; if the file on disk no longer has that checksum (the person
edited it meanwhile), the write is refused with ConflictError and retried on
a later run. Writes go to a temp file in the same folder and are renamed into
place, so a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import ConflictError, UnsafePathError, VaultError

STATE_DIR = ".dreaming"
FOLDERS = ("Raw", "articles", "Meta", "Talk", "Log")
# Everything dreaming writes into: a link here leading out of the vault would
# carry those writes (and the person's transcripts) somewhere else.
LAYOUT = (*FOLDERS, STATE_DIR)
# Kept out of git by name (.gitignore, info/exclude): through a link, their files
# would show up in git under the link's target, where no rule keeps them out.
PRIVATE = ("Raw", STATE_DIR)


def checksum(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


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

    def article_path(self, stem: str) -> Path:
        """The file of an article stem; the stem is validated by the article grammar."""
        if not stem or "/" in stem or "\\" in stem or stem.startswith(".") or "\0" in stem:
            raise UnsafePathError(f"{stem!r}: not a valid article name; it would leave articles/")
        return self.inside(self.articles / f"{stem}.md")


def read_text(path: Path) -> tuple[str, str]:
    """The text of `path` and the checksum of its bytes (what a later write must match)."""
    data = path.read_bytes()
    return data.decode("utf-8"), checksum(data)


def current_checksum(path: Path) -> str | None:
    try:
        return checksum(path.read_bytes())
    except FileNotFoundError:
        return None


class OwnWrites:
    """Checksums of files we just wrote, so the watcher can ignore its own echoes.

    An event is ours only if the file still has the checksum we wrote: a
    person's edit that lands right after ours has a different checksum and is
    therefore never mistaken for our own write.
    """

    def __init__(self, ttl: float = 120.0) -> None:
        self._ttl = ttl
        self._lock = threading.Lock()
        self._seen: dict[Path, tuple[str, float]] = {}

    def record(self, path: Path, digest: str) -> None:
        with self._lock:
            self._seen[path.resolve()] = (digest, time.monotonic())

    def is_own(self, path: Path) -> bool:
        with self._lock:
            entry = self._seen.get(path.resolve())
            if entry is None:
                return False
            digest, at = entry
            if time.monotonic() - at > self._ttl:
                del self._seen[path.resolve()]
                return False
        return current_checksum(path) == digest


OWN_WRITES = OwnWrites()


def durable_temp(folder: Path, data: bytes, *, prefix: str) -> Path:
    """A hidden temp file in `folder` holding `data`, flushed to disk: the first half
    of every atomic write (the second is a rename or a link)."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def write_atomic(
    path: Path,
    text: str | bytes,
    *,
    expected: str | None,
    registry: OwnWrites | None = OWN_WRITES,
) -> str:
    """Write `text` to `path` atomically if the file still has checksum `expected`.

    `expected=None` means the file must not exist yet. Returns the new checksum.
    Raises ConflictError, leaving the file untouched, when the file changed.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    if current_checksum(path) != expected:
        raise ConflictError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = durable_temp(path.parent, data, prefix=f".{path.name}.")
    try:
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        if expected is None:
            # A link never replaces: a file the person created meanwhile wins.
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise ConflictError(path, "created during the write") from None
            except OSError:
                # No hard links on this filesystem (exFAT, some network shares).
                if path.exists():
                    raise ConflictError(path, "created during the write") from None
                os.replace(tmp, path)
            tmp.unlink(missing_ok=True)
        else:
            # Second look right before the rename: a person's save that landed
            # while we were writing the temp file still wins.
            if current_checksum(path) != expected:
                raise ConflictError(path, "edited during the write")
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    digest = checksum(data)
    if registry is not None:
        registry.record(path, digest)
    return digest
