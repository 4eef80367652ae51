"""The articles a vault holds, by the key a link finds each under (`heading_key` of its
title): what NORMALIZE spells links against and what the gate resolves new links in.

A link is spelled with the article's file stem, as the file spells it (`Garden_Shed`,
or `Rain Barrel` for a file a person named with spaces): Obsidian opens the note whose
file name a link names, case aside, and reads no `_` as a space, so `[[Garden Shed]]`
is a link to no note there (docs/vault.md, "Links in Obsidian").

Built once for a night's writer and grown as the night creates articles, so that a
write looks its links up instead of keying every title of the vault again (a thousand
titles keyed a write was most of a first night's LINK over a big wiki).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from dreaming.article.titles import heading_key, nfc, title_for_stem

_UNSAFE_IN_LINK = re.compile(r"[\[\]|#^`{}\r\n]")
"""A title holding one of these cannot stand inside `[[...]]`: links to it are left
as the person wrote them."""


class KnownArticles:
    """Every article's stem, title and key; grows with `add`, never shrinks (an article
    removed mid-night stays linkable until the next night lists the vault again)."""

    def __init__(self, stems: Iterable[str] = ()) -> None:
        self._stems: set[str] = set()
        self._keys: set[str] = set()
        self._spelled: dict[str, set[str]] = {}
        """A link key → the stems of the articles it names."""
        for stem in stems:
            self.add(stem)

    def add(self, stem: str) -> None:
        if stem in self._stems:
            return
        self._stems.add(stem)
        title = title_for_stem(stem)
        key = heading_key(title)
        self._keys.add(key)
        if linkable(title) and linkable(stem):
            # Composed (NFC), as the title: a Mac may name the file decomposed.
            self._spelled.setdefault(key, set()).add(nfc(stem))

    def __contains__(self, stem: object) -> bool:
        return stem in self._stems

    def __len__(self) -> int:
        return len(self._stems)

    def resolves(self, key: str) -> bool:
        """Whether a link keyed `key` names an article."""
        return key in self._keys

    def index(self, own: str, aliases: Mapping[str, str] | None = None) -> Mapping[str, str]:
        """Link key → the stem a link to it is spelled with, for the article `own` (its
        stem): keys two files share (`Foo_Bar.md` and `Foo Bar.md`, or names differing
        only by case) are left out, such links staying as written, and `own` is in,
        unless another file shares its key. `aliases` (key → stem) answer for the keys
        no article is named by."""
        return _Index(self._spelled, own, aliases or {})


def linkable(title: str) -> bool:
    return bool(title.strip()) and not _UNSAFE_IN_LINK.search(title)


class _Index(Mapping[str, str]):
    """A read-only view: building a dict of every title for each write was the cost
    this module exists to save."""

    def __init__(self, spelled: dict[str, set[str]], own: str, aliases: Mapping[str, str]) -> None:
        self._spelled = spelled
        self._aliases = aliases
        title = title_for_stem(own)
        self._own = (heading_key(title), nfc(own)) if linkable(title) and linkable(own) else None

    def __getitem__(self, key: str) -> str:
        found = self._spelled.get(key, set())
        if self._own is not None and key == self._own[0]:
            found = found | {self._own[1]}
        if not found and key in self._aliases:
            return self._aliases[key]
        if len(found) != 1:
            raise KeyError(key)
        return next(iter(found))

    def __iter__(self) -> Iterator[str]:
        keys = (
            set(self._spelled)
            | set(self._aliases)
            | ({self._own[0]} if self._own is not None else set())
        )
        return (k for k in sorted(keys) if k in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)
