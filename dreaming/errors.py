"""The one error family. Every message says what went wrong and what to do."""

from __future__ import annotations

from pathlib import Path


class DreamingError(Exception):
    """Base of every error a user can see. The CLI prints it as one line and exits."""

    exit_code = 1


class VaultError(DreamingError):
    """The vault path is missing, not a folder, or not a dreaming vault."""


class ConflictError(DreamingError):
    """A file changed under us between read and write: the person's text wins."""

    def __init__(self, path: Path, detail: str = "") -> None:
        msg = f"{path}: changed on disk while dreaming was writing it; kept your version"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg + "; the edit will be retried on the next run")
        self.path = path


class UnsafePathError(DreamingError):
    """A path derived from input (a title, a transcript) would leave the vault."""


class RefusedFileError(DreamingError):
    """A file in the vault dreaming will not read or write: a link, a named pipe or
    other non-file, one behind a folder link leaving the vault, or one over its size cap."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        """Vault-relative."""
        self.reason = reason


class TranscriptError(DreamingError):
    """A Raw file cannot be read. `reason` is the one-line explanation with the fix."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class ReaderFault(TranscriptError):
    """A reader's own code failed on a file: ours to fix, not the person's. The cause is
    chained (`__cause__`) for the traceback ingest keeps."""

    def __init__(self, path: Path | str, source: str, cause: Exception) -> None:
        super().__init__(path, f"internal error reading it as {source} ({type(cause).__name__})")
        self.source = source


class IncompleteTranscript(TranscriptError):
    """A Raw file looks half-written (still being copied): retry later, never half-ingest."""


class SourceError(DreamingError):
    """An import source is missing, unreadable, or not what `dreaming import` reads."""


class GitError(DreamingError):
    """A git operation on the vault failed (a stale lock, a broken repository)."""


class LedgerError(DreamingError):
    """The ledger cannot be opened, migrated, read or written; SQLite's own error is
    chained (`__cause__`)."""


class LedgerUnavailable(LedgerError):
    """The database itself said no (locked by another process, disk full): the whole
    run stops and is redone, never one unit marked failed for it."""


class ModelError(DreamingError):
    """A model cannot be installed, loaded or called."""


class ConfigError(DreamingError):
    """A setting is invalid."""


class PolicyError(DreamingError):
    """A Meta policy page is missing, unreadable or invalid."""


def one_line(text: object, limit: int | None = None) -> str:
    """Text fit for a one-line message: whitespace runs as one space, at most `limit`
    characters."""
    flat = " ".join(str(text).split())
    return flat if limit is None else flat[:limit]
