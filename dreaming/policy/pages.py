"""The Meta policy pages a stage inlines into its prompt, loaded in one place.

Policy lives in the vault (`Meta/*.md`), not in code. A stage asks for a page
by name and gets the text in force; its checksum goes into the stage's unit
input hash, so an edited page makes exactly the units it governs new again.

A page that cannot be used (missing, unreadable, or failing the checks of
dreaming/policy/checks.py: empty, binary, too big, broken frontmatter or blocks,
a real value where the page shows a placeholder) never stops a night: its last
good version (kept under `.dreaming/policy/` by the runs that read it well and
by the watcher when a person's edit passes), else the shipped one, stays in
force, and the problem is reported for the person to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import ConflictError, PolicyError, RefusedFileError
from dreaming.policy.checks import MAX_BYTES, PAGES, check_page
from dreaming.resources import data_dir
from dreaming.vault import Vault, checksum, write_atomic
from dreaming.vault.files import read_bytes


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
            except _Refused as e:
                page = self._fallback(name, e.problems)
            else:
                self._remember(page)
            self._pages[name] = page
        return self._pages[name]

    def text(self, name: str) -> str:
        return self.page(name).text

    def _read(self, name: str) -> PolicyPage:
        where = f"Meta/{name}.md"
        try:
            data = self._read_page(self._vault.meta / f"{name}.md")
        except RefusedFileError as e:
            raise _Refused(str(e)) from None
        except FileNotFoundError:
            raise _Refused(
                f"{where}: the policy page is missing; restore it with: "
                f"dreaming init {self._vault.root}"
            ) from None
        except OSError as e:
            raise _Refused(
                f"{where}: cannot be read ({e.strerror}); check its permissions"
            ) from None
        problems = check_page(name, data)
        if problems:
            raise _Refused(*problems)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            # Only a page that is not policy gets here unchecked (check_page refuses the rest).
            raise _Refused(f"{where}: not UTF-8 text; save it as UTF-8") from None
        return PolicyPage(name, text, checksum(data))

    def _read_page(self, path: Path) -> bytes:
        """A page in the vault (or its kept version): a 10 MB page is refused unread, a
        named pipe or a link without a wait or a read through it."""
        return read_bytes(self._vault, path, cap=MAX_BYTES, what="a policy page")

    def _kept(self, name: str) -> Path:
        return self._vault.state / "policy" / f"{name}.md"

    def _remember(self, page: PolicyPage) -> None:
        if not self._keep:
            return
        kept = self._kept(page.name)
        data = page.text.encode("utf-8")
        try:
            before = self._read_page(kept)
        except FileNotFoundError:
            before = None
        except (OSError, RefusedFileError):
            # Not a file we can replace safely (a pipe, a link): only a fallback is lost.
            return
        if before == data:
            return
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            expected = None if before is None else checksum(before)
            write_atomic(kept, data, expected=expected, registry=None, vault=self._vault)
        except (OSError, ConflictError):
            # Only a fallback is lost (or another run just kept one); the page is in force.
            return

    def _fallback(self, name: str, problems: tuple[str, ...]) -> PolicyPage:
        for source, shipped in (("its last good version", False), ("the shipped version", True)):
            try:
                data = _read_shipped(name) if shipped else self._read_page(self._kept(name))
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError, RefusedFileError):
                continue
            # A kept version that today's checks refuse is no better than the page.
            if check_page(name, data):
                continue
            self.problems += [f"{p}; until then {source} is in force" for p in problems]
            return PolicyPage(name, text, checksum(data))
        raise PolicyError(problems[0])


class _Refused(Exception):
    """Why a page cannot be put in force: one line a problem."""

    def __init__(self, *problems: str) -> None:
        super().__init__(problems[0])
        self.problems = problems


def _read_shipped(name: str) -> bytes:
    """The shipped page (ours, in the package), never more than a page may hold."""
    with (data_dir("meta_templates") / f"{name}.md").open("rb") as f:
        return f.read(MAX_BYTES + 1)


def accept_edit(vault: Vault, name: str) -> list[str]:
    """Check the person's edit of `Meta/<name>.md`: no problems means it is valid and is now
    the page's last good version; otherwise one line a problem (the last good stays).
    A page that is not policy (the person's own) has no problems and is not kept."""
    if name not in PAGES:
        return []
    policy = Policy(vault, keep=True)
    policy.page(name)
    return policy.problems


def policy_problems(vault: Vault) -> list[str]:
    """The problems of every policy page as it stands now, each saying what is in force
    instead (read-only: nothing is kept)."""
    policy = Policy(vault)
    for name in PAGES:
        try:
            policy.page(name)
        except PolicyError as e:
            policy.problems.append(str(e))
    return policy.problems
