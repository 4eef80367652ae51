"""Subject names: the one key every surface form of a name resolves to.

Conservative on purpose: two names become one subject only when their keys are
equal or a person declared one an alias of the other (`Meta/Entities.md`, an
article's infobox `aliases:`). Fusing two different things corrupts both
articles; two names for one thing only cost a later redirect.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

ARTICLES = frozenset({"the", "a", "an"})
_KEEP_SYMBOLS = frozenset("+#")
"""Punctuation that names a different thing: C, C++ and C# are three languages."""
_POSSESSIVE = re.compile(r"(?:['\u2019]s|s['\u2019])$")
_ALIASES_BLOCK = re.compile(r"^```aliases[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def canonical(name: str) -> str:
    """The key of `name`: NFC, casefolded, possessive and leading articles off,
    punctuation runs squeezed to one space. Idempotent."""
    text = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    words = _squeeze(_without_possessive(text.strip()))
    while len(words) > 1 and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words) if words else " ".join(text.split())


def _without_possessive(text: str) -> str:
    # "Thing A's" and "Things'" name the thing; a bare "'s" names nothing.
    while (m := _POSSESSIVE.search(text)) is not None and m.start() > 0:
        text = text[: m.start()] + ("s" if m.group().startswith("s") else "")
        text = text.rstrip()
    return text


def _squeeze(text: str) -> list[str]:
    kept = "".join(
        ch if unicodedata.category(ch)[0] in "LNM" or ch in _KEEP_SYMBOLS else " " for ch in text
    )
    return kept.split()


def display(name: str) -> str:
    """How a surface form is shown: whitespace collapsed, a possessive and a leading
    article off ("the Thing's" is shown as "Thing": a title names the thing)."""
    words = _without_possessive(name.strip()).split()
    # Only before a word canonical() keeps: "A :" is the name "A", not ":".
    while len(words) > 1 and words[0].casefold() in ARTICLES and _squeeze(" ".join(words[1:])):
        words = words[1:]
    return " ".join(words)


def declared_aliases(entities_page: str) -> list[tuple[str, str]]:
    """(other name, canonical title) for each `X => Y` line of the page's aliases block.

    Comment lines and the page's own schematic example (`<…>` slots) are not aliases.
    """
    found = _ALIASES_BLOCK.search(entities_page)
    if found is None:
        return []
    pairs: list[tuple[str, str]] = []
    for raw in found.group(1).splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=>" not in line:
            continue
        other, _, title = (part.strip() for part in line.partition("=>"))
        if other and title and "<" not in other + title:
            pairs.append((other, title))
    return pairs


@dataclass
class AliasIndex:
    """Canonical key -> the display name of the subject it belongs to."""

    names: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        declared: Iterable[tuple[str, str]] = (),
        articles: Iterable[tuple[str, str]] = (),
    ) -> AliasIndex:
        """`declared` (Entities.md, a person's word) wins over `articles` (an infobox's
        aliases, as (alias, article title)); within one source the first claim holds."""
        index = cls()
        for other, title in declared:
            index._claim(title, title)
            index._claim(other, title)
        for other, title in articles:
            index._claim(title, title)
            index._claim(other, title)
        return index

    def _claim(self, name: str, title: str) -> None:
        key = canonical(name)
        if key:
            self.names.setdefault(key, display(title))

    def resolve(self, surface: str) -> tuple[str, str]:
        """(subject key, display name) of a surface form: its declared subject, else its own."""
        known = self.names.get(canonical(surface))
        shown = known if known is not None else display(surface)
        return canonical(shown), shown

    def known(self) -> Mapping[str, str]:
        return self.names
