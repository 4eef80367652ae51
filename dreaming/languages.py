"""The wiki's one language: what `Meta/Article_Conventions.md` names, and whether a
drafted text is written in it.

A small model answers in the language of what it reads: a Dutch conversation gets
a Dutch paragraph in an English article. Code tells languages apart well enough
to refuse that: by script first (Latin, Cyrillic, Greek, CJK…), then, among
languages sharing a script, by their commonest function words. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.fences import fence_blocks, line_content, split_lines

BLOCK = "language"
"""The fenced block of Article_Conventions that names the language (optional)."""


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    name: str
    script: str
    marks: frozenset[str]
    """Function words common in running text of this language and rare in others."""


def _language(code: str, name: str, script: str, marks: str) -> Language:
    return Language(code, name, script, frozenset(marks.split()))


LANGUAGES: tuple[Language, ...] = (
    _language("en", "English", "latin", "the and is are was were of to with this that it for"),
    _language("nl", "Dutch", "latin", "de het een en is zijn van niet met dat voor ook je ik"),
    _language("de", "German", "latin", "der die das und ist nicht mit ein eine sich auch ich"),
    _language("fr", "French", "latin", "le la les et est une des du pas que pour avec je"),
    _language("es", "Spanish", "latin", "el la los las y es una del que por para con no"),
    _language("ru", "Russian", "cyrillic", "и в не на что это с как по для"),  # noqa: RUF001
)
ENGLISH = LANGUAGES[0]
_BY_KEY = {key: lang for lang in LANGUAGES for key in (lang.code, lang.name.casefold())}
MARGIN = 2
"""Another language's function words must outnumber the wiki's this many times, and
be at least `MIN_MARKS`, before a text counts as written in that language."""
MIN_MARKS = 3
SCRIPT_SHARE = 0.5
"""The share of a text's letters that must be in the language's script."""


def named(value: str) -> Language | None:
    """The language a code (`nl`) or an English name (`Dutch`) names, or None."""
    return _BY_KEY.get(value.strip().casefold())


def from_block(content: Sequence[str]) -> Language | str:
    """The language the block's lines name, or the problem with them."""
    names = [line.strip() for line in content if line.strip() and not line.startswith("#")]
    known = ", ".join(lang.name for lang in LANGUAGES)
    if len(names) != 1:
        return f"the ```{BLOCK} block must name one language (one of {known}); correct it"
    lang = named(names[0])
    if lang is None:
        return f"the language {names[0][:40]!r} is not one dreaming writes; use one of {known}"
    return lang


def of_conventions(page: str) -> Language:
    """The language the Article_Conventions page names; English when it names none
    (a page in force has a valid block or none: policy_check refuses others)."""
    lines = [line_content(x) for x in split_lines(page)]
    for block in fence_blocks(lines):
        if block.label == BLOCK and block.closed:
            found = from_block(lines[block.start + 1 : block.end - 1])
            return found if isinstance(found, Language) else ENGLISH
    return ENGLISH


def written_in(text: str, lang: Language) -> bool:
    """Whether `text` reads as `lang`: mostly its script, and no other language of that
    script clearly commoner by function words. Too little text to tell passes."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True
    if sum(1 for c in letters if _script(c) == lang.script) < SCRIPT_SHARE * len(letters):
        return False
    words = [w.strip(".,;:!?()\"'«»").casefold() for w in text.split()]
    own = sum(1 for w in words if w in lang.marks)
    for other in LANGUAGES:
        if other.script != lang.script or other is lang:
            continue
        theirs = sum(1 for w in words if w in other.marks - lang.marks)
        if theirs >= MIN_MARKS and theirs > MARGIN * own:
            return False
    return True


def _script(c: str) -> str:
    point = ord(c)
    if point < 0x250 or 0x1E00 <= point < 0x1F00:
        return "latin"
    if 0x400 <= point < 0x530:
        return "cyrillic"
    if 0x370 <= point < 0x400:
        return "greek"
    return "other"
