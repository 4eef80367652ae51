"""The read path: small reads of the wiki by name.

FIND → READ → ANSWER in small reads, never a context dump: `resolve` a name to
the one article, `read` its TOC and lead, `section` the one part that answers.
Everything one call returns (text, data and any echo of an argument) is at most
`BUDGET` bytes of JSON; a longer text is cut at a boundary and names the next read,
and an argument too long to be a name is refused before any work. No embeddings,
ever. Nothing under `.dreaming/`, `.git/` or outside the vault is readable through a
tool: names resolve through the navigation index (`dreaming.query.index`), never into
paths.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dreaming.ledger import Ledger
from dreaming.query import graph, listing, names, pages, search, source, takeoff
from dreaming.query.budget import BUDGET, QueryError, Result, argument, number
from dreaming.query.index import NavIndex
from dreaming.vault import Vault

if TYPE_CHECKING:
    from dreaming.vault.repo import VaultRepo

__all__ = ["BUDGET", "QueryError", "Reader", "Result"]


class Reader:
    """The tools over one vault; the navigation index is refreshed before each call."""

    def __init__(self, vault: Vault, ledger: Ledger) -> None:
        self.vault = vault
        self.ledger = ledger
        self.index = NavIndex(vault, ledger)
        self._repo: VaultRepo | None = None

    def resolve(self, name: str) -> Result:
        """Title, alias or redirect (case and punctuation ignored) → the article's stem;
        an ambiguous name lists the candidates, an unknown one the nearest names."""
        argument("name", name)
        self.index.refresh()
        return names.resolve(self.ledger, name)

    def read(self, stem: str, *, full: bool = False, page: int = 1) -> Result:
        """TOC + lead (default); the full text only with `full`, still paged."""
        argument("stem", stem)
        number("page", page)
        self.index.refresh()
        return pages.read(self.vault, self.ledger, stem, full=full, page=page)

    def section(self, stem: str, heading: str, *, page: int = 1) -> Result:
        """One section (the default read); an unknown heading returns the TOC."""
        argument("stem", stem)
        argument("heading", heading)
        number("page", page)
        self.index.refresh()
        return pages.section(self.ledger, stem, heading, page=page)

    def links(self, stem: str, *, page: int = 1) -> Result:
        """Links out and in, and See also."""
        argument("stem", stem)
        number("page", page)
        self.index.refresh()
        return graph.links(self.ledger, stem, page=page)

    def infobox(self, stem: str, *, page: int = 1) -> Result:
        argument("stem", stem)
        number("page", page)
        self.index.refresh()
        return graph.infobox(self.ledger, stem, page=page)

    def list_by(
        self,
        *,
        kind: str | None = None,
        category: str | None = None,
        type: str | None = None,
        page: int = 1,
    ) -> Result:
        """The `list` tool: the stems of a kind, category and infobox type (all that are
        given)."""
        for what, value in (("kind", kind), ("category", category), ("type", type)):
            if value is not None:
                argument(what, value)
        number("page", page)
        self.index.refresh()
        return listing.list_by(self.ledger, kind=kind, category=category, type=type, page=page)

    def category(self, name: str, *, page: int = 1) -> Result:
        argument("name", name)
        number("page", page)
        self.index.refresh()
        return listing.category_members(self.ledger, name, page=page)

    def status(self) -> Result:
        """Vault counts and the last run."""
        self.index.refresh()
        return listing.status(self.ledger)

    def search(self, text: str, *, limit: int = 10) -> Result:
        """Last resort: lexical ranking (BM25) with a short snippet a hit."""
        argument("text", text)
        number("limit", limit)
        self.index.refresh()
        return search.search(self.ledger, text, limit=limit)

    def source(
        self, conv: str, *, start: int | None = None, end: int | None = None, page: int = 1
    ) -> Result:
        """The conversation behind a `conv:HASH` footnote, paged by message, redacted."""
        argument("conv", conv)
        for what, value in (("start", start), ("end", end), ("page", page)):
            number(what, value)
        return source.source(self.ledger, conv, start=start, end=end, page=page)

    def takeoff(self, topic: str) -> Result:
        """An agent's first minute on a topic: the article's lead, its History and newest
        cited conversation, the questions left open, the section changed last, and the
        reads that go deeper (`dreaming.query.takeoff`)."""
        argument("topic", topic)
        self.index.refresh()
        return takeoff.takeoff(self.ledger, self._git, topic)

    def _git(self) -> VaultRepo:
        """The vault's git, opened at the first takeoff (GitPython is slow to import)."""
        if self._repo is None:
            from dreaming.vault.repo import VaultRepo

            self._repo = VaultRepo(self.vault.root)
        return self._repo

    def resolve_stems(self, name: str) -> list[str]:
        """`resolve` for code (the eval): the stems a name resolves to, best first."""
        argument("name", name)
        self.index.refresh()
        return names.find(self.ledger, name).stems

    def search_stems(self, text: str, *, limit: int = 10) -> list[str]:
        """`search` for code (the eval): the ranked stems."""
        argument("text", text)
        number("limit", limit)
        self.index.refresh()
        return [h.stem for h in search.hits(self.ledger, text, limit)]
