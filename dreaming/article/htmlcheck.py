"""The HTML an article may hold: an allow-list of tags and attributes, never a list of
bad ones.

A renderer passes an article's raw HTML on to a browser engine, and the ways HTML can
reach outside the vault have no end (`<object data>`, `<meta http-equiv=refresh>`, CSS
`url()`, event handlers), so only what the article grammar and harmless inline
formatting need is let through. A tag is read as a browser reads one: its name runs to
a space, `/` or `>`, its attributes to the `>` that closes it, whatever their case; an
autolink (`<https://…>`, `<a@b.c>`) is a link, not a tag.
Anything the scan cannot read as such a tag (a quote left open, a stray `<`, a
declaration or processing instruction) is refused too. The URLs of the allowed `href`
and `src` are judged by `linkcheck`. Every pattern is anchored where the scan stands
and consumes what it matches, so the scan is linear in the text.
"""

from __future__ import annotations

import re

from dreaming.article.fences import mask_code
from dreaming.article.linkcheck import blank_destinations

ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "b", "br", "cite", "code", "del", "dfn", "em", "hr", "i", "img",
        "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup",
        "u", "var", "wbr",
    }
)  # fmt: skip
"""Inline formatting, and the link and image a Markdown link or image may also be."""

ALLOWED_ATTRIBUTES: dict[str, frozenset[str]] = {
    "*": frozenset({"title", "lang", "dir"}),
    "a": frozenset({"href"}),
    "img": frozenset({"src", "alt", "width", "height"}),
}
"""Attributes by tag, `*` for every allowed tag; `href` and `src` are URLs `linkcheck`
judges."""

# `<` then a letter opens a tag, `</` a closing one; `<!--` is a comment (the mask hides
# a closed one); any other `<!` or `<?` is a declaration or processing instruction.
_OPEN = re.compile(r"<(?:(/?)([A-Za-z][^\s/<>]*)|(![^-]|!-[^-]|\?))")
# CommonMark's autolinks: a link, never raw HTML (`linkcheck` judges the URL).
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>"
)
_TAIL = re.compile(r"[^<>]*")
_ATTRIBUTE = re.compile(r"""\s+([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")
_END = re.compile(r"\s*/?\s*")


def refused_html(text: str) -> set[str]:
    """What in `text`'s HTML (outside code, comments and link destinations) the
    allow-list does not let through: `tag <object>`, `attribute 'style' on <b>`,
    `unreadable tag <b …>`."""
    masked = blank_destinations(mask_code(text))
    found: set[str] = set()
    for m in _OPEN.finditer(masked):
        if _AUTOLINK.match(masked, m.start()):
            continue
        if m.group(3) is not None:
            found.add(f"declaration <{m.group(3)[:2]}")
            continue
        name = m.group(2).lower()
        if name not in ALLOWED_TAGS:
            found.add(f"tag <{m.group(1)}{name}>")
            continue
        tail = _TAIL.match(masked, m.end())
        assert tail is not None  # `*` matches the empty string
        end = tail.end()
        closed = end < len(masked) and masked[end] == ">"
        if not closed and end < len(masked):
            found.add(f"unreadable tag <{name} …>")
            continue
        found |= _attributes(name, tail.group())
    return found


def _attributes(tag: str, text: str) -> set[str]:
    allowed = ALLOWED_ATTRIBUTES.get(tag, frozenset()) | ALLOWED_ATTRIBUTES["*"]
    found: set[str] = set()
    pos = 0
    while (m := _ATTRIBUTE.match(text, pos)) is not None:
        name = m.group(1).lower()
        if name not in allowed:
            found.add(f"attribute {name!r} on <{tag}>")
        pos = m.end()
    end = _END.match(text, pos)
    if end is None or end.end() != len(text):
        found.add(f"unreadable tag <{tag} …>")
    return found
