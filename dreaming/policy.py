"""The Meta policy pages a stage inlines into its prompt, loaded in one place.

Policy lives in the vault (`Meta/*.md`), not in code. A stage asks for a page
by name and gets the text in force; its checksum goes into the stage's unit
input hash, so an edited page makes exactly the units it governs new again.

A page that cannot be used (missing, unreadable, not UTF-8) never stops a
night: its last good version (kept under `.dreaming/policy/` by the runs that
read it well), else the shipped one, stays in force, and the problem is
reported for the person to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import ConflictError, PolicyError
from dreaming.resources import data_dir
from dreaming.vault import Vault, checksum, write_atomic


@dataclass(frozen=True, slots=True)
class PolicyPage:
    name: str
    """The page's name without `.md`, e.g. `Chunking`."""
    text: str
    checksum: str


class Policy:
    """The Meta pages of one vault, read on first use and kept for the run.

    keep: remember each page read well as its last good version (a night does; a
    dry run or the audit, which write nothing, do not)."""

    def __init__(self, vault: Vault, *, keep: bool = False) -> None:
        self._vault = vault
        self._keep = keep
        self._pages: dict[str, PolicyPage] = {}
        self.problems: list[str] = []
        """One line per page not in force, with what to do; for the run report."""

    def page(self, name: str) -> PolicyPage:
        if name not in self._pages:
            try:
                page = self._read(name)
            except PolicyError as e:
                page = self._fallback(name, e)
            else:
                self._remember(page)
            self._pages[name] = page
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

    def _kept(self, name: str) -> Path:
        return self._vault.state / "policy" / f"{name}.md"

    def _remember(self, page: PolicyPage) -> None:
        if not self._keep:
            return
        kept = self._kept(page.name)
        data = page.text.encode("utf-8")
        try:
            before = kept.read_bytes() if kept.is_file() else None
            if before == data:
                return
            kept.parent.mkdir(parents=True, exist_ok=True)
            expected = None if before is None else checksum(before)
            write_atomic(kept, data, expected=expected, registry=None)
        except (OSError, ConflictError):
            # Only a fallback is lost (or another run just kept one); the page is in force.
            return

    def _fallback(self, name: str, problem: PolicyError) -> PolicyPage:
        for source, path in (
            ("its last good version", self._kept(name)),
            ("the shipped version", data_dir("meta_templates") / f"{name}.md"),
        ):
            try:
                data = path.read_bytes()
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            self.problems.append(f"{problem}; until then {source} is in force")
            return PolicyPage(name, text, checksum(data))
        raise problem


def accept_edit(vault: Vault, name: str) -> list[str]:
    """Check the person's edit of `Meta/<name>.md`: no problems means it is valid and is now
    the page's last good version; otherwise one line a problem (the last good stays)."""
    policy = Policy(vault, keep=True)
    policy.page(name)
    return policy.problems
