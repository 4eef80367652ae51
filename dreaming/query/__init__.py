"""The read path: small reads of the wiki by name (issue 10: being built).

FIND → READ → ANSWER in small reads, never a context dump: `resolve` a name to
the one article, `read` its TOC and lead, `section` the one part that answers.
Every result is at most `BUDGET` bytes of text; a longer one is cut at a boundary
and names the next read. No embeddings, ever. Nothing under `.dreaming/`, `.git/`
or outside the vault is readable through a tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dreaming.ledger import Ledger
from dreaming.vault import Vault

BUDGET = 2048
"""The most bytes (UTF-8) of text one tool result carries."""


@dataclass(frozen=True, slots=True)
class Result:
    tool: str
    """resolve, read, section, links, infobox, list, category, status, search, source."""
    text: str
    """What a reader sees: short Markdown, at most BUDGET bytes."""
    data: dict[str, Any] = field(default_factory=dict)
    """The same in structured form (`--json`, MCP structured content)."""
    next: str | None = None
    """The read that continues a cut result (e.g. `section X "H" page=2`), else None."""

    @property
    def size(self) -> int:
        """Bytes of `text` (every result carries its size)."""
        return len(self.text.encode("utf-8"))


class Reader:
    """The tools over one vault; the navigation index is refreshed before each call."""

    def __init__(self, vault: Vault, ledger: Ledger) -> None:
        self.vault = vault
        self.ledger = ledger

    def resolve(self, name: str) -> Result:
        """Title, alias or redirect (case and punctuation ignored) → the article's stem;
        an ambiguous name lists the candidates, an unknown one the nearest names."""
        raise NotImplementedError

    def read(self, stem: str, *, full: bool = False, page: int = 1) -> Result:
        """TOC + lead (default); the full text only with `full`, still paged."""
        raise NotImplementedError

    def section(self, stem: str, heading: str, *, page: int = 1) -> Result:
        """One section (the default read); an unknown heading returns the TOC."""
        raise NotImplementedError

    def links(self, stem: str) -> Result:
        """Links out and in, and See also."""
        raise NotImplementedError

    def infobox(self, stem: str) -> Result:
        raise NotImplementedError

    def list_by(
        self,
        *,
        kind: str | None = None,
        category: str | None = None,
        type: str | None = None,
        page: int = 1,
    ) -> Result:
        """The `list` tool: the stems of a kind, category or infobox type."""
        raise NotImplementedError

    def category(self, name: str, *, page: int = 1) -> Result:
        raise NotImplementedError

    def status(self) -> Result:
        """Vault counts and the last run."""
        raise NotImplementedError

    def search(self, text: str, *, limit: int = 10) -> Result:
        """Last resort: lexical ranking (BM25) with a short snippet a hit."""
        raise NotImplementedError

    def source(
        self, conv: str, *, start: int | None = None, end: int | None = None, page: int = 1
    ) -> Result:
        """The conversation behind a `conv:HASH` footnote, paged by message, redacted."""
        raise NotImplementedError

    def resolve_stems(self, name: str) -> list[str]:
        """`resolve` for code (the eval): the stems a name resolves to, best first."""
        raise NotImplementedError

    def search_stems(self, text: str, *, limit: int = 10) -> list[str]:
        """`search` for code (the eval): the ranked stems."""
        raise NotImplementedError
