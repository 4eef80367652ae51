"""The Meta policy pages a stage inlines into its prompt, loaded in one place.

Policy lives in the vault (`Meta/*.md`), not in code. A stage asks for a page
by name and gets the text in force; its checksum goes into the stage's unit
input hash, so an edited page makes exactly the units it governs new again.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreaming.errors import PolicyError
from dreaming.vault import Vault, checksum


@dataclass(frozen=True, slots=True)
class PolicyPage:
    name: str
    """The page's name without `.md`, e.g. `Chunking`."""
    text: str
    checksum: str


class Policy:
    """The Meta pages of one vault, read on first use and kept for the run."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._pages: dict[str, PolicyPage] = {}

    def page(self, name: str) -> PolicyPage:
        if name not in self._pages:
            self._pages[name] = self._read(name)
        return self._pages[name]

    def text(self, name: str) -> str:
        return self.page(name).text

    def _read(self, name: str) -> PolicyPage:
        path = self._vault.meta / f"{name}.md"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise PolicyError(
                f"{path}: the policy page is missing; restore it with: "
                f"dreaming init {self._vault.root}"
            ) from None
        except OSError as e:
            raise PolicyError(
                f"{path}: cannot be read ({e.strerror}); check its permissions"
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise PolicyError(f"{path}: not UTF-8 text; save it as UTF-8") from None
        return PolicyPage(name, text, checksum(data))
