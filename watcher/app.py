"""The composition root: one `App` per entry point, built once, handed down.

The CLI builds one per command (the watcher and the MCP server will build
theirs the same way). It owns what every part shares: the vault, its
settings, the ledger, the registry of our own writes and the model. The
ledger and the model are opened on first use, so a command that needs
neither never pays for them; leaving the `with` block closes the ledger and
releases the model.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from dreaming.config import Settings, configured_model, load_settings, vault_from_env
from dreaming.errors import VaultError
from dreaming.ledger import Ledger
from dreaming.ledger.writer import Notice
from dreaming.vault import STATE_DIR, OwnWrites, Vault

if TYPE_CHECKING:
    from dreaming.model import TextModel


def implied_vault() -> Path | None:
    """$DREAMING_VAULT, else the current folder when it is a vault."""
    here = Path.cwd()
    return vault_from_env() or (here if (here / STATE_DIR).is_dir() else None)


def implied_model() -> str:
    """The model spec in force without a vault argument: the implied vault's, else the default."""
    return configured_model(implied_vault())


class App:
    """Settings, vault, ledger, own-write registry and model of one entry point."""

    def __init__(
        self,
        vault: Vault,
        settings: Settings | None = None,
        *,
        command: str = "dreaming",
        notice: Notice | None = None,
    ) -> None:
        self.vault = vault
        self.command = command
        """How this entry point names itself to another one waiting for the ledger."""
        self.notice = notice
        """Where a wait for the ledger is said (None: not said)."""
        self._settings = settings
        self.own_writes = OwnWrites()
        self._ledger: Ledger | None = None
        self._model: TextModel | None = None

    @classmethod
    def open(
        cls,
        path: Path | None,
        settings: Settings | None = None,
        *,
        command: str = "dreaming",
        notice: Notice | None = None,
    ) -> App:
        """The app of the vault at `path`, else of the implied vault."""
        chosen = path or implied_vault()
        if chosen is None:
            raise VaultError(
                "no vault given; pass --vault PATH, set DREAMING_VAULT, "
                "or create one with: dreaming init PATH"
            )
        return cls(Vault.open(chosen), settings, command=command, notice=notice)

    @property
    def settings(self) -> Settings:
        # Read on first use: a command that needs no setting is not refused for a bad one.
        if self._settings is None:
            self._settings = load_settings(self.vault.root)
        return self._settings

    def use_model(self, spec: str) -> None:
        """Use `spec` instead of the settings' model from now on (a command's --model)."""
        self.unload_model()
        self._settings = replace(self.settings, model=spec)

    def use_settings(self, **given: str | None) -> None:
        """The vault's settings with a command's options over them (None: not given),
        each checked as the config file's are: a bad one is one line naming it."""
        if any(v is not None for v in given.values()):
            self._settings = load_settings(self.vault.root, **given)

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger(self.vault.ledger_path, command=self.command, notice=self.notice)
        return self._ledger

    def existing_ledger(self) -> Ledger | None:
        """The ledger opened read-only, or None when the vault has none (it is not created)."""
        if self._ledger is not None:
            return self._ledger
        if not self.vault.ledger_path.is_file():
            return None
        self._ledger = Ledger(self.vault.ledger_path, read_only=True)
        return self._ledger

    @property
    def model(self) -> TextModel:
        """The settings' model, loaded once."""
        if self._model is None:
            # Imported here: the model libraries cost every other command their start-up.
            from dreaming.model import load

            self._model = load(self.settings.model)
        return self._model

    def unload_model(self) -> None:
        """Give the model's memory back; the next use of `model` loads it again."""
        if self._model is not None:
            self._model.unload()
            self._model = None

    def close(self) -> None:
        self.unload_model()
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None

    def __enter__(self) -> App:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
