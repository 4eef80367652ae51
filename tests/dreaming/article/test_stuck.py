"""Articles no edit can pass the gate on: found before the night spends a model call on
them, each reason paired with what the person should fix.

The gate judges some defects on the text an edit leaves whatever the edit touched (a
footnote cited and never defined, footnotes with no References, no H1 NORMALIZE can
add). Every other article, whatever a person wrote in it, takes an edit of one of its
sections once NORMALIZE has run: NORMALIZE leaves alone what it cannot rewrite as the
gate allows, and is idempotent, so what it wrote one night is no change the next.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.article import LEAD, check, normalize, parse
from dreaming.article.document import tail_rank
from dreaming.article.sections import add_section, replace_section
from dreaming.article.stuck import blockers, what_to_fix
from dreaming.article.titles import heading_key
from stages.synthesize.update_text import join_body, split_body
from tests.dreaming.article.test_normalize_gate import BREAKS, broken_articles
from tests.strategies import NASTY, TOKENS
from tests.support import draws

GROWN = " ".join(["A sentence about the subject that says something true."] * 40)
"""A lead long enough that the article is no stub."""
CITE = "[^1]: `conv:deadbeef` (2024-01-02, claude) — a talk"
ADDED = "One more sentence the night wrote."


def edited(text: str, heading: str) -> str:
    """`text` with one sentence added to the prose of the section `heading` (LEAD: the
    lead), as UPDATE adds one: after the prose before its first code block or subsection."""
    article = parse(text)
    section = article.section(heading)
    body = article.lead if heading == LEAD or section is None else section.body
    split = split_body(body, lead=heading == LEAD)
    intro = f"{split.intro}\n\n{ADDED}" if split.intro else ADDED
    return replace_section(text, heading, join_body(split, intro, article.eol))


def gate_on_edit(text: str, heading: str, stem: str = "X") -> str:
    """The gate's verdict on an edit of one section, after NORMALIZE, as the write door
    judges it."""
    after = normalize(edited(text, heading), stem=stem)
    return str(check(text, after, touched=[heading], stem=stem))


# ---------------------------------------------------------------- what the person wrote


def test_a_stub_written_in_the_prose_of_a_grown_article_blocks_no_edit() -> None:
    text = f"# X\n\n{GROWN}\n\n## Storage\n\nA {{{{stub}}}} word in prose.\n\n## Use\n\nUsed.\n"
    assert blockers(text, "X") == ()
    assert gate_on_edit(text, "Storage") == "accepted"
    assert gate_on_edit(text, "Use") == "accepted"


def test_frontmatter_followed_by_text_without_a_title_blocks_no_edit() -> None:
    text = f"---\ntags: [bread]\n---\nText without a title. {GROWN}\n\n## Use\n\nUsed.\n"
    assert blockers(text, "X") == ()
    assert gate_on_edit(text, "Use") == "accepted"
    assert gate_on_edit(text, LEAD) == "accepted"


def test_a_stray_comment_close_and_an_open_one_around_the_last_headings_block_no_edit() -> None:
    # Moving See also after References would put References inside a comment.
    text = (
        f"# X\n\n{GROWN}[^1]\n\n## Use\n\nUsed.\n\n## References\n\n{CITE}\n\n-->\n\n"
        "## See also\n\n<!--\n\n- [[Foo]]\n"
    )
    assert blockers(text, "X") == ()
    assert gate_on_edit(text, "Use") == "accepted"
    assert "## References" in normalize(edited(text, "Use"), stem="X")


def test_a_section_ending_in_an_open_fence_and_blank_lines_takes_an_edit() -> None:
    # The fence closes after the blank lines when read, before them once edited.
    text = f"# X\n\n{GROWN}\n\n## Use\n\nText.\n\n```\ncode\n\n\n"
    assert blockers(text, "X") == ()
    assert gate_on_edit(text, "Use") == "accepted"


def test_a_section_ending_in_a_closing_fence_with_spaces_after_it_takes_an_edit() -> None:
    text = f"# X\n\n{GROWN}\n\n## Use\n\nText.\n\n```\ncode\n```  \n\n## Notes\n\nA note.\n"
    assert gate_on_edit(text, "Use") == "accepted"


def test_a_marker_cited_and_never_defined_blocks_every_edit_and_says_to_define_it() -> None:
    text = f"# X\n\n{GROWN}[^1] Also this.[^9]\n\n## Use\n\nUsed.\n\n## References\n\n{CITE}\n"
    assert [r.code for r in blockers(text, "X")] == ["footnote_unbalanced"]
    assert gate_on_edit(text, "Use") != "accepted"
    said = what_to_fix(text, "X")
    assert said is not None
    assert "[^9] is cited but never defined" in said
    assert "definition" in said


def test_a_label_defined_twice_blocks_every_edit_and_says_to_keep_one() -> None:
    text = f"# X\n\n{GROWN}[^1]\n\n## Use\n\nUsed.\n\n## References\n\n{CITE}\n[^1]: another\n"
    assert [r.code for r in blockers(text, "X")] == ["footnote_unbalanced"]
    said = what_to_fix(text, "X")
    assert said is not None
    assert "[^1] is defined 2 times" in said


def test_footnotes_without_a_references_section_block_every_edit_and_say_where_they_go() -> None:
    text = f"# X\n\n{GROWN}[^1]\n\n## Use\n\nUsed.\n\n{CITE}\n"
    assert "references_missing" in [r.code for r in blockers(text, "X")]
    said = what_to_fix(text, "X")
    assert said is not None
    assert "'## References'" in said


def test_a_title_normalize_cannot_add_blocks_every_edit_and_names_the_line_to_add() -> None:
    # A title above the lead's info block would make it the infobox: NORMALIZE leaves it.
    text = f"{{{{stub}}}}\n\n```info\nkind: thing\n```\n\n{GROWN}\n\n## Use\n\nUsed.\n"
    assert [r.code for r in blockers(text, "Foo_Bar")] == ["h1_lost"]
    said = what_to_fix(text, "Foo_Bar")
    assert said is not None
    assert "'# Foo Bar'" in said


def test_what_to_fix_is_one_line_naming_the_file() -> None:
    text = f"# X\n\n{GROWN}[^1] Also this.[^9]\n\n{CITE}\n"
    said = what_to_fix(text, "X")
    assert said is not None
    assert said.startswith("articles/X.md: ")
    assert "\n" not in said


def test_an_article_that_blocks_nothing_has_nothing_to_fix() -> None:
    assert what_to_fix(f"# X\n\n{GROWN}\n", "X") is None


# ---------------------------------------------------------------- any text a person writes

FUZZ = settings(
    max_examples=draws(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
_PIECE = st.one_of(
    st.sampled_from(BREAKS),
    st.sampled_from(NASTY),
    st.sampled_from(TOKENS),
    st.sampled_from(("Some words here.\n", "## Use\n", "# X\n", "## Storage\n", "[^1]\n")),
)
hand_written = st.tuples(
    st.sampled_from(("", "---\ntags: [a]\n---\n", "---\na: b\n---")),
    st.lists(_PIECE, max_size=30).map("".join),
).map(lambda parts: "".join(parts)[:1] + "".join(parts)[1:].replace("\ufeff", ""))
"""Text a person may leave in an article: any run of the lines people break articles with
(a byte-order mark only first, where an editor puts one)."""

human_articles = st.one_of(
    broken_articles(),
    st.tuples(hand_written, st.sampled_from(("X", "Foo_Bar")), st.just(("Foo_Bar", "Y"))),
)


def _editable(text: str) -> list[str]:
    """The sections the night adds prose to: each body section with prose before its
    first code block or subsection (UPDATE adds to that prose), whose heading reads as a
    name of its own."""
    article = parse(text)
    keys = [heading_key(s.heading) for s in article.sections]
    return [
        s.heading
        for s in article.sections
        if not tail_rank(s)
        and heading_key(s.heading)
        and keys.count(heading_key(s.heading)) == 1
        and split_body(s.body).intro
    ]


@FUZZ
@given(human_articles)
def test_normalize_is_idempotent_on_any_article_a_person_edited(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    text, stem, known = case
    once = normalize(text, stem=stem, known_stems=known)
    assert normalize(once, stem=stem, known_stems=known) == once


@FUZZ
@given(human_articles)
def test_a_no_op_edit_after_normalize_passes_the_gate_or_the_article_says_what_to_fix(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    text, stem, known = case
    verdict = check(text, normalize(text, stem=stem, known_stems=known), stem=stem)
    if not verdict.ok:
        said = what_to_fix(text, stem)
        assert said is not None
        assert all(r.detail in said for r in verdict.rejections)


@FUZZ
@given(human_articles)
def test_an_edit_of_one_section_passes_the_gate_or_the_article_is_blocked(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    text, stem, known = case
    if blockers(text, stem):
        return
    for heading in _editable(text):
        after = normalize(edited(text, heading), stem=stem, known_stems=known)
        verdict = check(text, after, touched=[heading], stem=stem, known_stems=known)
        assert verdict.ok, f"{heading!r}: {verdict}\n{text!r}\n{after!r}"


@FUZZ
@given(human_articles)
def test_a_new_section_passes_the_gate_or_the_article_is_blocked(
    case: tuple[str, str, tuple[str, ...]],
) -> None:
    text, stem, known = case
    if blockers(text, stem):
        return
    after = normalize(add_section(text, f"## Brand New\n\n{ADDED}\n"), stem=stem, known_stems=known)
    verdict = check(text, after, touched=["Brand New"], stem=stem, known_stems=known)
    assert verdict.ok, f"{verdict}\n{text!r}\n{after!r}"
