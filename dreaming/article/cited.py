"""An article's cited sentences: each lead and body sentence with the footnote markers
after it and the date of the newest source they cite. What RECONCILE reads an
article's statements from. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from dreaming.article.document import LEAD, Article, tail_rank
from dreaming.article.fences import code_flags, line_content, split_lines
from dreaming.article.history import TRACE
from dreaming.article.markup import (
    BANNER_LINE,
    DEFINITION,
    MARKER,
    TEMPLATE_LINE,
    atx_heading,
    unlinked,
)
from dreaming.article.queries import footnote_defs

_MARK_AT = re.compile(r"[ \t]{0,3}\[\^[^\[\]\s^]{1,40}\]")
_QUOTE = re.compile(r"^(?:>[ \t]?)+")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+")


def sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the markers right after it) in order: a sentence ends at `.`, `!` or `?`
    (closing quotes and brackets included), then its markers, then a space or the end."""
    out: list[tuple[str, str]] = []
    start = i = 0
    n = len(text)
    while i < n:
        if text[i] not in ".!?":
            i += 1
            continue
        end = i + 1
        while end < n and text[end] in ".!?\"')":
            end += 1
        j = end
        while (m := _MARK_AT.match(text, j)) is not None:
            j = m.end()
        if j == n or text[j].isspace():
            body = text[start:end].strip()
            if body:
                out.append((body, "".join(text[end:j].split())))
            start = i = j
        else:
            i = end
    tail = text[start:].strip()
    if tail:
        out.append((tail, ""))
    return out


@dataclass(frozen=True, slots=True)
class Cited:
    heading: str
    """The section it stands in (LEAD for the lead)."""
    sentence: str
    """As written, links included, its markers left out."""
    labels: tuple[str, ...]
    """The footnote labels cited right after it."""
    date: str
    """The newest date among those footnotes' sources (YYYY-MM-DD); "" when none has one."""

    @property
    def plain(self) -> str:
        """The sentence as a reader sees it: links as their words."""
        return unlinked(self.sentence)


def cited_sentences(article: Article) -> list[Cited]:
    """Every lead and body sentence that cites a source, itself or through the marker that
    ends its run of sentences in a paragraph, in reading order (code, headings,
    templates, RECONCILE's History trace and the closing See also / Notes / References left out)."""
    dates = {str(f.number): f.date for f in footnote_defs(article)}
    blocks = [(LEAD, article.lead)] + [
        (s.heading, s.body) for s in article.sections if tail_rank(s) == 0
    ]
    out: list[Cited] = []
    for heading, body in blocks:
        for paragraph in _paragraphs(body):
            waiting: list[str] = []
            for sentence, marks in sentences(paragraph):
                labels = tuple(MARKER.findall(marks))
                if not labels:
                    waiting.append(sentence)
                    continue
                # A marker after a paragraph's last sentence cites the sentences before
                # it that carry none (CREATE and UPDATE cite a drafted paragraph so).
                when = max((dates.get(label, "") for label in labels), default="")
                out += [Cited(heading, x, labels, when) for x in (*waiting, sentence)]
                waiting = []
    return out


def structure_line(text: str) -> bool:
    """Whether a line (its content) is structure, not prose: a heading, a footnote
    definition, a template, a series banner or a History trace line."""
    return bool(
        atx_heading(text)
        or DEFINITION.match(text)
        or TEMPLATE_LINE.match(text)
        or BANNER_LINE.match(text)
        or TRACE.match(text.strip())
    )


def _paragraphs(body: str) -> Iterator[str]:
    """The prose paragraphs of a block: lines joined, code and structure lines left out,
    a quote's `>` and a list item's bullet too (each item a paragraph of its own)."""
    lines = split_lines(body)
    flags = code_flags(lines)
    run: list[str] = []
    for line, code in zip(lines, flags, strict=True):
        text = line_content(line)
        structure = structure_line(text)
        said = _QUOTE.sub("", text.strip())
        item = _ITEM.match(said)
        if code or structure or not said.strip() or item:
            if run:
                yield " ".join(run)
            run = []
            if code or structure or not item:
                continue
            said = said[item.end() :]
        run.append(said.strip())
    if run:
        yield " ".join(run)
