"""Link targets as a Markdown renderer reads them, and whether one could leave the vault.

The gate judges what a reader's renderer would follow, not the bytes as
written: entities (`&#47;`), backslash escapes, percent-encoding, and the tabs
and line breaks a URL parser drops are decoded first, so `&#46;&#46;&#47;x`
is judged as `../x`. Every regex here is linear: alternatives start with
distinct characters and no two unbounded quantifiers can trade text.
"""

from __future__ import annotations

import html
import re
from typing import Literal
from urllib.parse import unquote

from dreaming.article.fences import mask_code
from dreaming.article.markup import wikilinks

LinkKind = Literal["wikilink", "markdown", "html"]
"""How a target is written, which decides how a renderer decodes it."""

_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_DRIVE = re.compile(r"^[A-Za-z]:")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_URL_DROPS = re.compile(r"[\t\r\n]")
_C0_AND_SPACE = "".join(chr(c) for c in range(0x21))


def _balanced(depth: int) -> str:
    """A link destination: no spaces, parentheses balanced `depth` levels deep."""
    # A backslash escapes the next character, or stands for itself before a space.
    atom = r"[^\s()\\]|\\\S|\\(?!\S)"
    if depth == 0:
        return f"(?:{atom})*"
    return rf"(?:{atom}|\({_balanced(depth - 1)}\))*"


# In the <…> form a backslash may escape a bracket (CommonMark).
_DEST = r"(<(?:[^<>\\\r\n]|\\[^\r\n])*>|" + _balanced(3) + ")"
_MD_LINK = re.compile(r"\]\(\s*" + _DEST)
_REF_DEF = re.compile(r"\[(?!\^)[^\[\]\r\n]{1,999}\]:\s*" + _DEST)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_HTML_ATTR = re.compile(
    r"(?<![\w:-])(srcset|href|src|action|formaction|poster|background|cite|xlink:href)"
    r"\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+)",
    re.IGNORECASE,
)


def decode(target: str, kind: LinkKind = "markdown") -> str:
    """The target a renderer and then a URL parser would follow.

    Markdown drops backslash escapes; both Markdown and HTML decode entities.
    """
    t = target.strip()
    t = html.unescape(_ESCAPE.sub(r"\1", t) if kind == "markdown" else t)
    t = _URL_DROPS.sub("", t).strip(_C0_AND_SPACE)
    if t.startswith("<") and t.endswith(">"):
        t = t[1:-1]
    return unquote(t)


def unsafe_link(target: str, kind: LinkKind) -> str | None:
    """Why a link target could leave the vault, or None when it is safe."""
    if kind == "wikilink":
        t = unquote(html.unescape(target)).strip()
        if "/" in t or "\\" in t:
            return "a path separator"
        if t in (".", ".."):
            return "a dot segment"
        if _DRIVE.match(t):
            return "a drive letter"
        if t.lower().startswith("file:"):
            return "a file: URL"
        return None
    t = decode(target, kind)
    if t.startswith("#"):
        return None
    m = _SCHEME.match(t)
    if m:
        scheme = m.group(1).lower()
        if len(scheme) == 1:
            return "a drive letter"
        return None if scheme in _SAFE_SCHEMES else f"a {scheme}: URL"
    if t.startswith(("/", "\\", "~")):
        return "an absolute path"
    # A fragment or query names a place in the page; only the path can leave the vault.
    path = t.split("#", 1)[0].split("?", 1)[0]
    if ".." in re.split(r"[\\/]", path):
        return "a '..' segment"
    if "/" in path or "\\" in path:
        return "a path separator"
    return None


def _attr_targets(name: str, value: str) -> list[str]:
    value = value[1:-1] if value[:1] in "\"'" else value
    if name.lower() != "srcset":
        return [value]
    return [c.split()[0] for c in html.unescape(value).split(",") if c.split()]


def blank_destinations(masked: str) -> str:
    """`masked` with every Markdown link and reference destination blanked, length kept:
    `<…>` there is a destination (`[x](<My File.md>)`), not HTML."""
    for rx in (_MD_LINK, _REF_DEF):
        masked = rx.sub(lambda m: _blanked(m, 1), masked)
    return masked


def _blanked(m: re.Match[str], group: int) -> str:
    start, end = m.start(group) - m.start(), m.end(group) - m.start()
    whole = m.group()
    return whole[:start] + " " * (end - start) + whole[end:]


def link_targets(text: str) -> set[tuple[LinkKind, str]]:
    """(kind, target as written) for every link outside code in `text`."""
    found: set[tuple[LinkKind, str]] = {("wikilink", link.target) for link in wikilinks(text)}
    masked = mask_code(text)
    for rx in (_MD_LINK, _REF_DEF):
        found |= {("markdown", m.group(1)) for m in rx.finditer(masked)}
    found |= {("html", m.group(1)) for m in _AUTOLINK.finditer(masked)}
    for m in _HTML_ATTR.finditer(masked):
        found |= {("html", t) for t in _attr_targets(m.group(1), m.group(2))}
    return found
