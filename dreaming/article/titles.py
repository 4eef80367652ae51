"""Names: how titles and headings compare, and which file stem a title maps to.

An article's title is its H1 and its file name: `Foo Bar` lives in
`articles/Foo_Bar.md`. `stem_for_title` is the one gate from a proposed title
(often a model's) to a file name, so it refuses anything that could name
another place.
"""

from __future__ import annotations

import unicodedata

from dreaming.article.markup import MARKER
from dreaming.errors import UnsafePathError

MAX_STEM_BYTES = 200
"""Leaves room under the usual 255-byte file-name limit for ".md" and temp suffixes."""

_FORBIDDEN = '/\\:*?"<>|#^[]'
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
_RESERVED = {"con", "prn", "aux", "nul", *(f"{p}{i}" for p in ("com", "lpt") for i in range(1, 10))}


def nfc(text: str) -> str:
    """Unicode NFC: macOS (HFS+) and some tools write file names decomposed (NFD)."""
    return unicodedata.normalize("NFC", text)


def heading_key(text: str) -> str:
    """How headings, titles, stems and link targets compare.

    Case-insensitive, `_` ≡ space, spacing collapsed, Unicode NFC: `Cafe\u0301`
    (NFD, as a Mac file name may be) is the same name as `Café`. Footnote
    markers are no part of a name: `## Price[^1]` stays the Price section
    when NORMALIZE renumbers its marker.
    """
    text = MARKER.sub(" ", text)
    return " ".join(nfc(nfc(text).casefold()).replace("_", " ").split())


HEADING_WORDS = 8
HEADING_CHARS = 60
"""A section heading is a few words: code cuts a longer label to this."""
JOINING_WORDS = frozenset((
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "nor", "of", "on",
    "onto", "or", "per", "the", "to", "via", "vs", "versus", "with",
))  # fmt: skip
"""Words that join to what follows: a cut heading never ends on one."""


def cut_heading(words: list[str]) -> str:
    """A heading from a label's words: at most HEADING_WORDS words and HEADING_CHARS
    characters (a single longer word stays whole), never ending on a joining word
    ("… for WebSearch and"), closing punctuation dropped, capitalised."""
    kept = words[:HEADING_WORDS]
    while len(kept) > 1 and len(" ".join(kept)) > HEADING_CHARS:
        kept.pop()
    while len(kept) > 1 and kept[-1].strip(".!?:;,-").casefold() in JOINING_WORDS:
        kept.pop()
    text = " ".join(kept).rstrip(".!?:;,- ")
    return text[:1].upper() + text[1:]


_SPEAKERS = frozenset((
    "i", "i'm", "i've", "i'd", "i'll", "me", "my", "you", "you're", "your", "we", "we're",
    "we've", "our", "us", "oh", "ah", "hmm", "um", "wow", "hey", "hi", "hello", "ok", "okay",
    "so", "please", "can", "could", "would", "let's", "thanks",
))  # fmt: skip
"""Words of someone speaking: a label holding one is the first words of a message
("Oh I just found out that this is …"), not the name of what a section is about."""


def spoken(label: str) -> bool:
    """Whether `label` is a message's own words rather than a name for a section."""
    return any(w.strip(".,!?:;\"'()").casefold() in _SPEAKERS for w in label.split())


def same_title(a: str, b: str) -> bool:
    """Whether two titles (or a title and a stem, or a link target) name one subject."""
    return heading_key(a) == heading_key(b)


def stem_for_title(title: str) -> str:
    """The file stem for a title: spaces → `_`. Raises UnsafePathError for unsafe titles.

    Harmless fixes only (Unicode NFC, `_` read as a space, runs of whitespace
    collapsed); anything that could name another place, hide the file or
    collide with another subject is refused, so a stem is always one plain
    file name inside articles/.
    """
    t = unicodedata.normalize("NFC", title)
    for c in t:
        control = unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") and c not in "\t\n\r"
        if control or c in _BIDI:
            raise UnsafePathError(
                f"title {title!r} contains control character U+{ord(c):04X}; "
                "propose the name without it"
            )
    t = " ".join(t.replace("_", " ").split())
    if not t:
        raise UnsafePathError(f"title {title!r} is empty; give the subject a name")
    bad = sorted({c for c in t if c in _FORBIDDEN})
    if bad:
        raise UnsafePathError(
            f"title {title!r} contains {' '.join(bad)}, which cannot be in an article file name; "
            'propose the name without / \\ : * ? " < > | # ^ [ ]'
        )
    if t.startswith("."):
        raise UnsafePathError(
            f"title {title!r} starts with '.', which would hide the article file; "
            "propose the name without the leading dot"
        )
    stem = t.replace(" ", "_")
    if stem.split(".")[0].casefold() in _RESERVED:
        raise UnsafePathError(
            f"title {title!r} is a reserved device name on Windows; propose a longer name"
        )
    if len(stem.encode()) > MAX_STEM_BYTES:
        raise UnsafePathError(
            f"title {title[:40]!r}… is {len(stem.encode())} bytes; "
            f"propose a name of at most {MAX_STEM_BYTES} bytes"
        )
    return stem


def title_for_stem(stem: str) -> str:
    """The title a file stem stands for: `_` read as a space, Unicode in NFC."""
    return nfc(stem).replace("_", " ")
