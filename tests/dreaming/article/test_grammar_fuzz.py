"""The grammar's promises, fuzzed on text built from fragments that once broke them.

Nothing lost, nothing leaked: parse ⇄ render is byte-identical, NORMALIZE is
idempotent and keeps every citation, and replacing one section leaves every
other byte as it was, on generated articles and on arbitrary text with CR
line endings, a BOM, NFD names, comments, tables and fences left open.
The budget is fixed (examples per test, no deadline) so CI time stays flat.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dreaming.article.document import parse, render
from dreaming.article.markup import conv_hashes
from dreaming.article.normalize import normalize
from dreaming.article.queries import prose
from dreaming.article.sections import extract_section, replace_section
from tests.strategies import GenArticle, articles, nasty_markdown
from tests.support import draws

STEMS = ("Some_Title", "Cafe\u0301", "Foo_Bar", "X")
FUZZ = settings(
    max_examples=draws(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


sectioned = st.lists(nasty_markdown, min_size=1, max_size=4).map(
    lambda parts: "".join(f"{p}\n## H{i}\n" for i, p in enumerate(parts))
)
"""Nasty text with `## H0`, `## H1`… between its pieces (some end up inside code or comments)."""


def _norm(text: str, stem: str) -> str:
    return normalize(text, stem=stem, known_stems=STEMS)


@FUZZ
@given(nasty_markdown)
def test_round_trip_is_byte_identical_on_nasty_text(text: str) -> None:
    assert render(parse(text)) == text


@FUZZ
@given(nasty_markdown, st.sampled_from(STEMS))
def test_normalize_is_idempotent_on_nasty_text(text: str, stem: str) -> None:
    once = _norm(text, stem)
    assert _norm(once, stem) == once


@FUZZ
@given(nasty_markdown, st.sampled_from(STEMS))
def test_normalize_keeps_every_conversation_cited_in_nasty_text(text: str, stem: str) -> None:
    def cited(t: str) -> set[str]:
        return conv_hashes(prose(parse(t)))

    assert cited(text) <= cited(_norm(text, stem))


@FUZZ
@given(st.one_of(nasty_markdown, sectioned), st.data())
def test_replacing_a_section_of_nasty_text_keeps_every_other_byte(
    text: str, data: st.DataObject
) -> None:
    headings = [s.heading for s in parse(text).sections if s.heading.strip()]
    assume(headings)
    heading = data.draw(st.sampled_from(headings))
    old = extract_section(text, heading)
    assert old is not None
    assume(text.find(old) == text.rfind(old))
    start = text.index(old)
    out = replace_section(text, heading, "new words")
    assert out[:start] == text[:start]
    assert out.endswith(text[start + len(old) :])


@FUZZ
@given(articles())
def test_normalize_is_idempotent_and_keeps_citations_on_generated_articles(g: GenArticle) -> None:
    once = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    assert normalize(once, stem=g.stem, known_stems=g.known_stems) == once
    assert set(g.hashes) <= conv_hashes(once)
    assert render(parse(once)) == once
