"""What a reader cuts out of a message: a tag up to its closing tag, a marker up to its
end mark. Found in time linear in the text, however the text is built.

`<(name)>(.*?)</\\1>` as a regex reads to the end of the text once for every opening
that is never closed, so a message of unclosed tags took minutes to read; here a
closing mark found missing after one opening is never looked for again, because no
later opening can be closed either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    """Past the closing mark."""
    name: str
    """The opener's group 1 (a tag's name), else the opener itself."""
    inner: str
    """What stands between the opening and the closing mark."""


def spans(text: str, opener: re.Pattern[str], closer: Callable[[str], str]) -> Iterator[Span]:
    """Each opening (an `opener` match) up to the first `closer(name)` after it, left to
    right, never overlapping: what `opener(.*?)closer` finds with re.S."""
    missing: set[str] = set()
    pos = 0
    while (m := opener.search(text, pos)) is not None:
        name = m.group(1) if opener.groups else m.group()
        close = closer(name)
        at = -1 if name in missing else text.find(close, m.end())
        if at < 0:
            if not opener.groups:
                return  # one kind of opening: none after this one is closed either
            missing.add(name)
            pos = m.start() + 1
            continue
        end = at + len(close)
        yield Span(m.start(), end, name, text[m.end() : at])
        pos = end


def closing_tag(name: str) -> str:
    """The mark that closes `<name>`."""
    return f"</{name}>"


def cut(text: str, found: Iterator[Span]) -> str:
    """`text` without the spans."""
    pieces: list[str] = []
    pos = 0
    for span in found:
        pieces.append(text[pos : span.start])
        pos = span.end
    pieces.append(text[pos:])
    return "".join(pieces)
