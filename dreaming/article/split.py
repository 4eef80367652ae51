"""Summary style: a section that outgrew its article becomes an article of its own (the
child), and the parent keeps a one-sentence summary under the same heading, opening
with `*Main article: [[Child]]*`. Which section has outgrown its article is the
`split` rule of `Meta/Summary_Style.md` (read by dreaming.policy.summary). Pure functions;
every word and citation of the section moves, none is written anew.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from dreaming.article.cited import sentences
from dreaming.article.document import REFERENCES, Article, Section, build, render, tail_rank
from dreaming.article.fences import code_flags
from dreaming.article.history import HISTORY
from dreaming.article.markup import DEFINITION, MAIN_LINE, conv_hashes, markers, words
from dreaming.article.queries import article_definitions, article_markers, footnote_defs, prose
from dreaming.article.titles import heading_key


@dataclass(frozen=True)
class SplitRule:
    """When a section has outgrown its article (Meta/Summary_Style.md's ```split block)."""

    min_words: int = 400
    """A section this long at least."""
    share: float = 0.5
    """And holding at least this share of the article's prose words."""


@dataclass(frozen=True)
class Split:
    parent: str
    """The parent's text: the section cut to its summary."""
    child: str
    """The child article's text."""
    dropped: tuple[str, ...]
    """Conversations the parent no longer cites (the child does)."""


def outgrown(article: Article, rule: SplitRule) -> Section | None:
    """The body section holding at least `rule.min_words` words and `rule.share` of the
    article's prose, if any (never History, a section already summarised, or the only
    section of an article with no lead of its own)."""
    body = [s for s in article.sections if tail_rank(s) == 0 and s.level == 2]
    total = words(article.lead) + sum(words(s.body) for s in body)
    for section in body:
        n = words(section.body)
        if heading_key(section.heading) == heading_key(HISTORY) or _summarised(section):
            continue
        if n >= rule.min_words and n >= rule.share * total and total > n:
            return section
    return None


def split(
    article: Article,
    section: Section,
    child: str,
    headed: Callable[[Sequence[str], Sequence[str]], str | None],
) -> Split:
    """`section` of `article` moved into the new article `child`: its first paragraph the
    child's lead, each later paragraph a section named by `headed` from the labels of
    the conversations it cites (joined to the one before when none fits), what follows
    the prose (subsections, code) kept under the last."""
    paragraphs, rest = _paragraphs(section.body)
    notes = {str(f.number): f for f in footnote_defs(article)}
    blocks: list[list[str]] = [[paragraphs[0]]]
    headings: list[str] = []
    for paragraph in paragraphs[1:]:
        labels = [notes[m].desc for m in markers(paragraph) if m in notes]
        heading = headed(labels, [child, *headings])
        if heading is None:
            blocks[-1].append(paragraph)
        else:
            headings.append(heading)
            blocks.append([paragraph])
    if rest:
        blocks[-1].append(rest)
    lead, *bodies = ["\n\n".join(b) for b in blocks]
    cited = {m for block in (lead, *bodies) for m in markers(block)}
    kind = dict(article.infobox or ()).get("kind", "thing")
    # Every definition the moved words cite, a person's own (not in the standard form) too.
    refs: dict[str, str] = {}
    for d in article_definitions(article):
        if d.label in cited and d.label not in refs:
            refs[d.label] = notes[d.label].line() if d.label in notes else f"[^{d.label}]: {d.text}"
    child_text = build(
        child,
        lead=lead,
        sections=[
            *zip(headings, bodies, strict=True),
            *([(REFERENCES, "\n".join(refs.values()))] if refs else []),
        ],
        infobox={"kind": kind},
        banner=article.title,
    )
    summary = f"*Main article: [[{child}]]*\n\n{_first_sentence(paragraphs[0])}"
    sections = [replace(s, body=summary) if s is section else s for s in article.sections]
    gone = cited - set(article_markers(replace(article, sections=tuple(sections))))
    sections = [
        replace(s, body=_without_definitions(s.body, gone)) if tail_rank(s) == TAIL_REFS else s
        for s in sections
    ]
    parent = replace(article, sections=tuple(sections))
    dropped = conv_hashes(prose(article)) - conv_hashes(prose(parent))
    return Split(render(parent), child_text, tuple(sorted(dropped)))


TAIL_REFS = 3
"""`tail_rank` of the References section."""


def _without_definitions(body: str, labels: set[str]) -> str:
    """A References body without the definitions of `labels` (cited by the child now)."""
    kept = [
        line
        for line in body.splitlines()
        if not ((m := DEFINITION.match(line)) and m.group(1) in labels)
    ]
    return "\n".join(kept)


def _summarised(section: Section) -> bool:
    return any(MAIN_LINE.fullmatch(line) for line in section.body.splitlines())


def _paragraphs(body: str) -> tuple[list[str], str]:
    """The prose paragraphs before the first subsection or code block, and the rest."""
    lines = body.splitlines()
    flags = code_flags(lines)  # a fence indented up to three spaces is one too
    cut = next(
        (i for i, x in enumerate(lines) if flags[i] or x.lstrip(" ").startswith("###")), len(lines)
    )
    paragraphs = [p.strip() for p in "\n".join(lines[:cut]).split("\n\n") if p.strip()]
    rest = "\n".join(lines[cut:]).rstrip()
    return (paragraphs or [""]), rest


def _first_sentence(paragraph: str) -> str:
    """A paragraph's first sentence with the markers that cite it (its own, else the
    paragraph's last)."""
    said = sentences(paragraph)
    if not said:
        return paragraph
    first, marks = said[0]
    if not marks:
        marks = next((m for _, m in said if m), "")
    return f"{first}{marks}"
