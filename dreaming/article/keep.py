"""What an edit must leave as it was: the parts it does not name, and code.

The gate compares each part an edit did not name with the same part before
the edit, through a key that forgets exactly what NORMALIZE may rewrite in
any part (footnote numbers, the spelling of a link to the same article,
{{stub}}, blank lines, trailing whitespace, line endings, the order of infobox
fields and of the closing See also / Notes / References sections) and keeps
everything else, code and comments included, byte for byte. Footnote
definitions are left out: the citation and footnote rules govern them, and
NORMALIZE merges duplicates.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from enum import Enum

from dreaming.article.document import LEAD, Article, Section, infobox_malformed, tail_rank
from dreaming.article.fences import code_flags, fence_blocks, line_content, mask_code, split_lines
from dreaming.article.markup import (
    DEFINITION,
    MARKER,
    STUB_RE,
    WIKILINK,
    conv_hashes,
    split_alias,
)
from dreaming.article.queries import article_definitions
from dreaming.article.titles import heading_key


class Part(Enum):
    """Parts of an article other than sections that an edit may name as touched."""

    FRONTMATTER = "frontmatter"
    """The `---` block and anything before the H1."""
    INFOBOX = "infobox"
    CODE = "code"
    """Fenced code blocks in the sections the edit names."""


# One scan for the three spans a key rewrites: group 2 a link's inside, group 3 a marker's label.
_INLINE = re.compile("|".join(p.pattern for p in (WIKILINK, MARKER, STUB_RE)), re.IGNORECASE)


def definition_key(text: str) -> str:
    """A footnote definition's text as NORMALIZE cannot change it (it respells links there too)."""
    # Led by a letter: the text after `[^n]:` may itself read as a definition line.
    return " ".join(text_key("x" + text, {}))


def _labels(article: Article) -> dict[str, str]:
    """Footnote label → what it cites, so renumbering leaves a key unchanged."""
    out: dict[str, str] = {}
    for d in article_definitions(article):
        out.setdefault(d.label, " ".join(sorted(conv_hashes(d.text))) or definition_key(d.text))
    return out


def _inline_key(line: str, masked: str, labels: dict[str, str]) -> str:
    out, at = [], 0
    for m in _INLINE.finditer(masked):
        out.append(line[at : m.start()])
        at = m.end()
        if m.group(3) is not None:
            out.append(f"[^{labels.get(m.group(3), '?' + m.group(3))}]")
        elif m.group(2) is not None:
            inner = line[m.start(2) : m.end(2)]
            target, bar, alias = split_alias(inner)
            shown = alias if bar and alias.strip() else target.split("#")[0]
            out.append(f"{m.group(1)}[[{heading_key(target)}|{heading_key(shown)}]]")
        else:  # {{stub}}: NORMALIZE drops the spaces before it along with it
            out[-1] = out[-1].rstrip(" \t")
    out.append(line[at:])
    return "".join(out).rstrip()


def text_key(text: str, labels: dict[str, str]) -> tuple[str, ...]:
    """A block's lines as NORMALIZE cannot change them; code lines verbatim."""
    lines = split_lines(text)
    masked = split_lines(mask_code(text))
    out = []
    for line, mask, in_code in zip(lines, masked, code_flags(lines), strict=True):
        content = line_content(line)
        if in_code:
            out.append(content)
        elif not DEFINITION.match(content):
            key = _inline_key(content, line_content(mask), labels)
            if key.strip():
                out.append(key)
    return tuple(out)


def _infobox_key(article: Article, labels: dict[str, str]) -> tuple[object, ...] | None:
    if article.infobox is None:
        return None
    fields = sorted((k, text_key(v, labels)) for k, v in article.infobox)
    return (tuple(fields), tuple(infobox_malformed(article)))


def _frontmatter_key(article: Article) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The frontmatter's lines and the preamble's words: NORMALIZE puts the H1 after
    them, with the line ending and blank line that takes."""
    lines = split_lines(article.frontmatter or "")
    return tuple(line_content(x) for x in lines), text_key(article.preamble, {})


def _section_key(section: Section, labels: dict[str, str]) -> tuple[object, ...]:
    # NORMALIZE renumbers markers in headings too.
    return (section.level, text_key(section.heading, labels), text_key(section.body, labels))


def _occurrences(sections: Iterable[Section]) -> list[tuple[str, int, Section]]:
    """(heading key, how many earlier sections share it, section) in order."""
    seen: Counter[str] = Counter()
    out = []
    for s in sections:
        key = heading_key(s.heading)
        out.append((key, seen[key], s))
        seen[key] += 1
    return out


def changed_parts(
    old: Article, new: Article, headings: Sequence[str], parts: Collection[Part]
) -> list[str]:
    """Why parts the edit did not name are not as they were (empty when they are)."""
    named = {heading_key(h) for h in headings}
    old_labels, new_labels = _labels(old), _labels(new)
    # The same text under the same labels keys the same: most of an article is untouched.
    same = old_labels == new_labels
    out = []
    if Part.FRONTMATTER not in parts and _frontmatter_key(old) != _frontmatter_key(new):
        out.append("the frontmatter changed")
    if Part.INFOBOX not in parts and _infobox_key(old, old_labels) != _infobox_key(new, new_labels):
        out.append("the infobox changed")
    if LEAD not in named and not (same and (old.banner, old.lead) == (new.banner, new.lead)):
        was = (heading_key(old.banner or ""), text_key(old.lead, old_labels))
        if was != (heading_key(new.banner or ""), text_key(new.lead, new_labels)):
            out.append("the lead changed")
    before = {(k, n): s for k, n, s in _occurrences(old.sections)}
    after = {(k, n): s for k, n, s in _occurrences(new.sections)}
    for (key, n), section in before.items():
        if key in named:
            continue
        now = after.get((key, n))
        if now is None:
            out.append(f"section {section.heading!r} is gone")
        elif same and (section.level, section.heading, section.body) == (
            now.level,
            now.heading,
            now.body,
        ):
            continue
        elif _section_key(section, old_labels) != _section_key(now, new_labels):
            out.append(f"section {section.heading!r} changed")
    for (key, n), section in after.items():
        if key not in named and (key, n) not in before:
            out.append(f"section {section.heading!r} is new")
    kept = [(k, n) for k, n, s in _occurrences(old.sections) if k not in named and not tail_rank(s)]
    order = [(k, n) for k, n, _ in _occurrences(new.sections) if (k, n) in set(kept)]
    if len(order) == len(kept) and order != kept:
        out.append("sections moved")
    return out


def code_blocks(article: Article) -> Counter[tuple[str, ...]]:
    """Every fenced block in the lead and sections, as its lines without line endings,
    without the blank lines before its closing fence (a fence left open is closed after
    the blank lines that end the text, an edited part ends before them) and without the
    spaces after it (an edited part ends without them; a closing fence reads the same)."""
    blocks: Counter[tuple[str, ...]] = Counter()
    for text in [article.lead, *(s.body for s in article.sections)]:
        lines = split_lines(text)
        for b in fence_blocks(lines):
            inner = [line_content(x) for x in lines[b.start : b.end]]
            close = [inner[-1].rstrip()] if b.closed and len(inner) > 1 else []
            body = inner[: len(inner) - len(close)]
            while len(body) > 1 and not body[-1].strip():
                body.pop()
            blocks[(*body, *close)] += 1
    return blocks


def lost_code(old: Article, new: Article) -> list[str]:
    """Code blocks of `old` that `new` no longer holds, wherever they moved."""
    missing = code_blocks(old) - code_blocks(new)
    return [f"a code block is gone: {block[0][:40]!r}" for block in missing]
