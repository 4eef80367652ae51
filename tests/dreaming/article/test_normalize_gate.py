"""NORMALIZE's output passes the gate against its input, or NORMALIZE leaves the text alone.

The night's write door normalises an edit and then gates it; a rewrite the
gate refuses would turn a person's own odd but harmless markup into a NO-OP
every night. So what NORMALIZE writes must be what the gate tolerates as
NORMALIZE's (footnote numbers, link spelling, {{stub}}, blank lines, line
endings, a fence left open closed at the end), on generated text and on real
articles broken in the ways people break them.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dreaming.article.gate import GateResult, check
from dreaming.article.normalize import normalize
from tests.strategies import nasty_markdown, near_markdown, rich_articles
from tests.support import draws

STEMS = ("Some_Title", "Foo_Bar", "X")
FUZZ = settings(
    max_examples=draws(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
FUZZ_ARTICLES = settings(
    max_examples=draws(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


GROWN = " ".join(["A sentence about the subject that says something true."] * 40)
"""A lead long enough that the article is no stub."""


def gate_on_normalize(text: str, stem: str, known: tuple[str, ...]) -> tuple[str, GateResult]:
    out = normalize(text, stem=stem, known_stems=known)
    return out, check(text, out, stem=stem, known_stems=known)


def test_an_info_block_closed_at_once_with_its_fields_below_is_normalized_not_refused() -> None:
    text = (
        "# Some Title\n\n```info\n```\nkind: thing\nstatus: x\n```\n\n"
        "Some Title is a thing.\n\n## History\n\nOnce.\n"
    )
    out, verdict = gate_on_normalize(text, "Some_Title", STEMS)
    assert verdict.ok, str(verdict)
    assert out.endswith("Once.\n```\n\n{{stub}}\n")  # the open fence closed, the stub marked


# ---------------------------------------------------------------- real articles, broken

BREAKS = (
    "```info\n```\n", "```\n", "~~~\n", "````\n", "-->\n", "<!--\n", "%%\n", "{{stub}}\n",
    "Some {{stub}} in prose.\n", "## See also\n", "## References\n", "## Notes\n", "# Second\n",
    "[^1]: `conv:deadbeef` (2024-01-02, claude) — loose\n", "[^7] cited\n", "[[foo_bar]]\n",
    "kind: thing\n", "\r\n", "\r", " \n", "\n",
)  # fmt: skip
"""Lines people leave in their articles: fences, comments, headings (inside fences once
another break opens one), stray footnotes, stubs, and line endings of another kind."""


@st.composite
def broken_articles(draw: st.DrawFn) -> tuple[str, str, tuple[str, ...]]:
    """(text, stem, known stems): a rich generated article with lines added, dropped or
    doubled, its H1 perhaps gone (frontmatter then straight into text)."""
    g = draw(rich_articles())
    lines = g.text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines)))
        move = draw(st.sampled_from(("add", "add", "drop", "double", "crlf")))
        if move == "add" or not lines:
            lines.insert(at, draw(st.sampled_from(BREAKS)))
            continue
        at = min(at, len(lines) - 1)
        if move == "drop":
            del lines[at]
        elif move == "double":
            lines.insert(at, lines[at])
        else:
            lines[at] = lines[at].rstrip("\r\n") + "\r\n"
    if draw(st.booleans()):
        lines = [x for x in lines if not x.startswith("# ")]
    return "".join(lines), g.stem, g.known_stems


def assert_gate_safe(text: str, stem: str, known: tuple[str, ...]) -> None:
    out, verdict = gate_on_normalize(text, stem, known)
    if out == text:
        return
    # Defects the text already had (a footnote never defined, no References) stay the
    # gate's to report; NORMALIZE may add none.
    already = set(check(text, text, known_stems=known).codes)
    assert set(verdict.codes) <= already, f"{verdict}\n{text!r}\n{out!r}"


@FUZZ
@given(st.one_of(nasty_markdown, near_markdown), st.sampled_from(STEMS))
def test_normalize_adds_no_rejection_to_any_text(text: str, stem: str) -> None:
    assert_gate_safe(text, stem, STEMS)


@FUZZ_ARTICLES
@given(broken_articles())
def test_normalize_adds_no_rejection_to_a_broken_article(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    assert_gate_safe(*case)


@FUZZ_ARTICLES
@given(broken_articles())
def test_the_gate_accepts_normalize_on_an_article_it_accepts_as_it_stands(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    text, stem, known = case
    assume(check(text, text, stem=stem, known_stems=known).ok)
    out, verdict = gate_on_normalize(text, stem, known)
    assert verdict.ok, f"{verdict}\n{text!r}\n{out!r}"


# ---------------------------------------------------------------- what the gate tolerates


def test_a_blank_preamble_before_the_title_normalize_adds_is_no_change() -> None:
    assert gate_on_normalize("    ", "X", STEMS)[1].ok
    assert gate_on_normalize("---\ntags: [a]\n---\nText without a title.\n", "X", STEMS)[1].ok


def test_a_link_respelled_in_a_footnote_never_cited_is_the_same_footnote() -> None:
    text = "# X\n\nLead.\n\n## References\n\n[^1]: see [[foo bar|x]]\n"
    out, verdict = gate_on_normalize(text, "X", STEMS)
    assert "[[Foo_Bar|x]]" in out
    assert verdict.codes == ()


def test_a_section_moved_to_the_end_with_its_closed_code_swallows_nothing() -> None:
    text = "# X\n\nLead.\n\n## Notes\n\n```\n## See also\n```\n\n## See also\n\n- [[Foo Bar]]\n"
    out, verdict = gate_on_normalize(text, "X", STEMS)
    assert out.endswith("## Notes\n\n```\n## See also\n```\n")
    assert verdict.ok, str(verdict)


def test_a_stub_dropped_from_the_prose_of_a_grown_article_takes_its_space_along() -> None:
    text = f"# X\n\n{GROWN}\n\n## History\n\nSome {{{{stub}}}} in prose.\n"
    out, verdict = gate_on_normalize(text, "X", STEMS)
    assert "Some in prose." in out
    assert verdict.ok, str(verdict)


# ---------------------------------------------------------------- what NORMALIZE leaves alone


def test_text_normalize_cannot_rewrite_as_the_gate_allows_is_left_as_it_is() -> None:
    # With the title added and the stub gone, the lead's info block would become the
    # infobox: a code block lost, the lead and infobox changed.
    text = f"{{{{stub}}}}\n\n```info\nkind: thing\n```\n\n{GROWN}\n"
    assert normalize(text, stem="X", known_stems=STEMS) == text
