"""NORMALIZE: idempotent, never touches code, each step does one documented thing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article.document import parse, render
from dreaming.article.fences import dangling_fence, scan_lines
from dreaming.article.gate import check
from dreaming.article.normalize import normalize
from dreaming.article.queries import footnote_defs, prose
from dreaming.article.validate import problems
from tests.strategies import GenArticle, articles, near_markdown
from tests.support import draws

KNOWN = ("Foo_Bar", "Baz", "Some_Title")


def norm(text: str, stem: str = "Some_Title") -> str:
    return normalize(text, stem=stem, known_stems=KNOWN)


def code_lines(text: str) -> list[str]:
    return [line.rstrip("\r\n") for line, code in scan_lines(text) if code]


REFS = "## References\n\n"


def cite(n: int | str, h: str = "deadbeef", date: str = "2024-01-02", desc: str = "d") -> str:
    return f"[^{n}]: `conv:{h}` ({date}, claude) — {desc}"


# ---------------------------------------------------------------- properties


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_normalize_is_idempotent_on_generated_articles(g: GenArticle) -> None:
    once = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    assert normalize(once, stem=g.stem, known_stems=g.known_stems) == once


@settings(max_examples=draws(300), deadline=None)
@given(st.one_of(st.text(), near_markdown))
def test_normalize_is_idempotent_on_any_text(text: str) -> None:
    once = norm(text)
    assert norm(once) == once


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_normalized_generated_articles_have_no_problems(g: GenArticle) -> None:
    out = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    assert problems(parse(out), stem=g.stem) == []


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_normalize_keeps_code_fence_contents(g: GenArticle) -> None:
    out = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    # The infobox is the one fenced block normalize owns; every other fence is untouched.
    assert sorted(code_lines(prose(parse(out)))) == sorted(code_lines(prose(parse(g.text))))


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_normalize_never_loses_a_citation(g: GenArticle) -> None:
    out = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    assert {f.hash for f in footnote_defs(parse(out))} == set(g.hashes)


# ---------------------------------------------------------------- title


def test_the_h1_is_fixed_to_match_the_stem() -> None:
    assert norm("# some title\n\nLead.", stem="Some_Title").startswith("# Some Title\n\nLead.")


def test_a_missing_h1_is_added_from_the_stem() -> None:
    assert norm("Lead.\n", stem="Foo_Bar").startswith("# Foo Bar\n\nLead.")


def test_frontmatter_is_kept_verbatim_above_the_h1() -> None:
    out = norm("---\na: [[x]]\n---\n# Some Title\n\nLead.\n")
    assert out.startswith("---\na: [[x]]\n---\n# Some Title\n")


# ---------------------------------------------------------------- footnotes


def test_markers_are_renumbered_in_order_of_first_citation() -> None:
    refs = f"{REFS}{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n"
    text = f"# Some Title\n\nA.[^2] B.[^1] C.[^2]\n\n{refs}"
    out = norm(text)
    assert "A.[^1] B.[^2] C.[^1]" in out
    assert f"{cite(1, 'bbbbbbbb')}\n{cite(2, 'aaaaaaaa')}" in out


def test_identical_definitions_merge_into_one_citation() -> None:
    text = f"# Some Title\n\nA.[^1] B.[^2]\n\n{REFS}{cite(1, desc='one')}\n{cite(2, desc='one')}\n"
    out = norm(text)
    assert "A.[^1] B.[^1]" in out
    assert cite(1, desc="one") in out
    assert "[^2]" not in out


def test_same_conversation_with_another_description_keeps_both_descriptions() -> None:
    text = f"# Some Title\n\nA.[^1] B.[^2]\n\n{REFS}{cite(1, desc='one')}\n{cite(2, desc='two')}\n"
    out = norm(text)
    assert "A.[^1] B.[^2]" in out
    assert f"{cite(1, desc='one')}\n{cite(2, desc='two')}" in out


def test_a_marker_in_an_infobox_value_is_renumbered_with_its_definition() -> None:
    refs = f"{REFS}{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n"
    text = f"# Some Title\n\n```info\nkind: thing\nprice: 40 EUR[^2]\n```\n\nLead.[^1]\n\n{refs}"
    out = norm(text)
    assert "price: 40 EUR[^1]" in out
    assert "Lead.[^2]" in out
    assert f"{cite(1, 'bbbbbbbb')}\n{cite(2, 'aaaaaaaa')}" in out


def test_a_marker_in_a_heading_is_renumbered_with_its_definition() -> None:
    refs = f"{REFS}{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n"
    text = f"# Some Title\n\nLead.[^2]\n\n## Price[^1]\n\nForty.\n\n{refs}"
    out = norm(text)
    assert "Lead.[^1]" in out
    assert "## Price[^2]" in out
    assert f"{cite(1, 'bbbbbbbb')}\n{cite(2, 'aaaaaaaa')}" in out


def test_a_marker_in_a_malformed_infobox_leaves_all_footnotes_alone() -> None:
    refs = f"{REFS}{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n"
    text = f"# Some Title\n\n```info\nprice: 4[^2]\nnot a pair\n```\n\nLead.[^1]\n\n{refs}"
    assert "Lead.[^1]" in norm(text)
    assert "price: 4[^2]" in norm(text)


def test_a_definitions_continuation_paragraph_moves_with_it() -> None:
    refs = f"{REFS}{cite(1, 'aaaaaaaa')}\n\n    more about a\n\n{cite(2, 'bbbbbbbb')}\n"
    out = norm(f"# Some Title\n\nA.[^2] B.[^1]\n\n{refs}")
    assert out.endswith(f"{cite(2, 'aaaaaaaa')}\n\n    more about a\n")
    assert out.index(cite(1, "bbbbbbbb")) < out.index(cite(2, "aaaaaaaa"))


def test_same_conversation_on_another_date_stays_a_separate_citation() -> None:
    text = f"# Some Title\n\nA.[^1] B.[^2]\n\n{REFS}{cite(1)}\n{cite(2, date='2024-05-05')}\n"
    assert "A.[^1] B.[^2]" in norm(text)


def test_orphan_definitions_are_kept_after_the_cited_ones() -> None:
    text = f"# Some Title\n\nA.[^3]\n\n{REFS}{cite(1, 'aaaaaaaa')}\n{cite(3, 'bbbbbbbb')}\n"
    out = norm(text)
    assert "A.[^1]\n" in out
    assert f"{cite(1, 'bbbbbbbb')}\n{cite(2, 'aaaaaaaa')}" in out


def test_a_marker_without_definition_leaves_all_footnotes_alone() -> None:
    text = f"# Some Title\n\nA.[^2] B.[^9]\n\n{REFS}{cite(2)}\n"
    assert "A.[^2] B.[^9]" in norm(text)
    assert cite(2) in norm(text)


def test_a_label_with_two_different_definitions_is_left_alone() -> None:
    text = f"# Some Title\n\nA.[^1]\n\n{REFS}{cite(1, 'aaaaaaaa')}\n{cite(1, 'bbbbbbbb')}\n"
    out = norm(text)
    assert cite(1, "aaaaaaaa") in out
    assert cite(1, "bbbbbbbb") in out


def test_footnote_like_lines_in_code_are_not_renumbered() -> None:
    text = f"# Some Title\n\nA.[^5]\n\n```\n[^5]: code\nx[^5]\n```\n\n{REFS}{cite(5)}\n"
    out = norm(text)
    assert "```\n[^5]: code\nx[^5]\n```" in out
    assert "A.[^1]" in out


# ---------------------------------------------------------------- wikilinks


def test_wikilinks_point_at_the_file_name_keeping_what_the_reader_saw() -> None:
    # Obsidian opens the note a link names by its file name, and reads no `_` as a space.
    out = norm("# Some Title\n\nSee [[foo bar]] and [[foo_bar|the thing]] and [[BAZ#Part]].")
    assert "See [[Foo_Bar|foo bar]] and [[Foo_Bar|the thing]] and [[Baz#Part]]." in out


def test_a_link_already_naming_the_file_is_left_as_written() -> None:
    text = "# Some Title\n\nSee [[Foo_Bar]] and [[Foo_Bar|the thing]].\n\n{{stub}}\n"
    assert norm(text) == text


def test_a_link_to_a_file_named_with_spaces_names_it_with_spaces() -> None:
    out = normalize("# T\n\nSee [[rain_barrel]]. {{stub}}\n", stem="T", known_stems=["Rain Barrel"])
    assert "See [[Rain Barrel|rain barrel]]." in out


def test_a_link_to_two_files_of_one_name_is_left_as_written() -> None:
    # `Foo_Bar.md` and `Foo Bar.md` are both "Foo Bar": no spelling opens the one meant.
    text = "# T\n\nSee [[foo bar]]. {{stub}}\n"
    assert normalize(text, stem="T", known_stems=["Foo_Bar", "Foo Bar"]) == text


def test_infobox_links_name_the_title() -> None:
    # The infobox is a code block to Obsidian: its links are text there, written to read.
    out = norm("# Some Title\n\n```info\nkind: thing\nmade_by: [[foo_bar]]\n```\n\nLead.\n")
    assert "made_by: [[Foo Bar]]\n" in out


def test_unknown_wikilinks_are_left_as_written() -> None:
    assert "[[unknown thing]]" in norm("# Some Title\n\n[[unknown thing]]")


def test_see_also_links_name_the_file_and_read_as_the_title() -> None:
    out = norm("# Some Title\n\nLead.\n\n## See also\n\n- [[foo bar]]\n- [[baz]]\n")
    assert "- [[Foo_Bar|Foo Bar]]\n- [[Baz]]\n" in out


def test_wikilinks_in_code_are_never_rewritten() -> None:
    out = norm("# Some Title\n\n`[[foo bar]]`\n\n```\n[[foo bar]]\n```\n")
    assert "`[[foo bar]]`" in out
    assert "```\n[[foo bar]]\n```" in out


def test_two_stems_that_differ_only_by_case_leave_links_alone() -> None:
    out = normalize("# T\n\n[[foo]]", stem="T", known_stems=["Foo", "FOO"])
    assert "[[foo]]" in out


# ---------------------------------------------------------------- infobox


def test_infobox_keys_are_sorted_kind_type_aliases_then_alphabetical() -> None:
    rows = "zeta: 1\naliases: a, b\nalpha: [[foo bar]]\nkind: thing\ntype: tool"
    text = f"# Some Title\n\n```info\n{rows}\n```\n\nLead."
    out = norm(text)
    assert (
        "```info\nkind: thing\ntype: tool\naliases: a, b\nalpha: [[Foo Bar]]\nzeta: 1\n```" in out
    )


def test_an_infobox_with_a_malformed_line_is_left_untouched() -> None:
    text = "# Some Title\n\n```info\nzeta: 1\na free note\nkind: thing\n```\n\nLead."
    assert "```info\nzeta: 1\na free note\nkind: thing\n```" in norm(text)


# ---------------------------------------------------------------- sections


def test_tail_sections_move_to_the_end_in_order() -> None:
    tails = f"{REFS}x\n\n## Notes\n\nn\n\n## See also\n\n- [[Baz]]\n\n"
    text = f"# Some Title\n\nLead.\n\n{tails}## Body\n\nb\n"
    heads = [s.heading for s in parse(norm(text)).sections]
    assert heads == ["Body", "See also", "Notes", "References"]


def test_sections_already_in_order_keep_their_bytes() -> None:
    text = "# Some Title\n\nLead.\n\n## B\nb  \n\n\n## A\n\na\n\n{{stub}}"
    assert norm(text) == text


# ---------------------------------------------------------------- stub


def test_a_thin_article_gets_a_stub_at_the_end_of_its_lead() -> None:
    assert norm("# Some Title\n\nShort lead.\n\n## A\n\nbody\n") == (
        "# Some Title\n\nShort lead.\n\n{{stub}}\n\n## A\n\nbody\n"
    )


def test_a_grown_article_loses_its_stub() -> None:
    lead = "word " * 160
    out = norm(f"# Some Title\n\n{lead}\n\n{{{{stub}}}}\n\n## A\n\nbody\n")
    assert "{{stub}}" not in out
    assert out == f"# Some Title\n\n{lead}\n\n## A\n\nbody\n"


def test_a_redirect_never_gets_a_stub() -> None:
    text = "# Some Title\n\n*Redirects to [[Baz]]*\n"
    assert norm(text) == text


# ---------------------------------------------------------------- fences


def test_a_dangling_fence_is_closed() -> None:
    out = norm("# Some Title\n\nLead.\n\n## A\n\n```\ncode\n")
    assert dangling_fence(out) is None


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_normalize_keeps_the_files_line_ending(eol: str) -> None:
    out = norm(
        f"# some title{eol}{eol}Lead.[^2]{eol}{eol}{REFS.replace(chr(10), eol)}{cite(2)}{eol}"
    )
    assert out.count(eol) == out.count("\n")
    assert render(parse(out)) == out


def test_a_fence_line_inside_frontmatter_is_not_a_dangling_fence() -> None:
    text = "---\n```\n---\n# Some Title\n\nLead.\n"
    out = norm(text)
    assert out == "---\n```\n---\n# Some Title\n\nLead.\n\n{{stub}}\n"
    assert norm(out) == out


def test_a_decomposed_stem_keeps_a_composed_h1() -> None:
    text = "# Café\n\nLead. {{stub}}\n"
    assert normalize(text, stem="Cafe\u0301") == text


def test_links_to_a_decomposed_stem_resolve() -> None:
    out = normalize("# T\n\nSee [[café]]. {{stub}}\n", stem="T", known_stems=["Cafe\u0301"])
    assert "[[Café|café]]" in out  # composed, as the title: the same name to Obsidian


def test_a_cr_only_article_keeps_its_citations_and_line_endings() -> None:
    text = (
        "# Some Title\r\rLead.[^2] {{stub}}\r\r## References\r\r" + cite(2).replace("\n", "") + "\r"
    )
    out = norm(text)
    assert out == text.replace("[^2]", "[^1]")
    assert [f.hash for f in footnote_defs(parse(out))] == ["deadbeef"]


def test_a_bom_before_the_title_is_kept_and_no_second_h1_is_added() -> None:
    text = "\ufeff# Some Title\n\nLead. {{stub}}\n"
    assert norm(text) == text


TABLE = "# Some Title\n\nLead. {{stub}}\n\n| who | what |\n| --- | :-: |\n| [[foo_bar]] | x |\n"


def test_a_link_canonicalised_in_a_table_cell_escapes_its_bar() -> None:
    out = norm(TABLE)
    assert "| [[Foo_Bar\\|foo bar]] | x |" in out
    assert norm(out) == out


def test_links_outside_tables_keep_a_plain_bar() -> None:
    out = norm(TABLE + "\nAfter [[foo_bar]].\n")
    assert "After [[Foo_Bar|foo bar]]." in out


def test_a_commented_see_also_is_not_moved_and_hides_no_section() -> None:
    text = (
        "# Some Title\n\nLead. {{stub}}\n\n<!--\n## See also\n\n- [[Baz]]\n-->\n\n"
        "## History\n\nOld.\n\n## See also\n\n- [[Foo_Bar|Foo Bar]]\n"
    )
    assert norm(text) == text


def test_an_open_fence_that_swallows_see_also_is_rejected_after_normalize() -> None:
    text = "# Some Title\n\nLead. {{stub}}\n\n## A\n\n```\ncode\n\n## See also\n\n- [[Baz]]\n"
    assert "fence_unclosed" in check(None, norm(text), stem="Some_Title").codes


@pytest.mark.parametrize(
    "text",
    [
        f"# Some Title\n\nLead.[^2] {{{{stub}}}}\n\n## Price[^1]\n\nForty.\n\n{REFS}"
        f"{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n",
        f"# Some Title\n\n```info\nkind: thing\nprice: 40[^2]\n```\n\nLead.[^1] {{{{stub}}}}\n\n"
        f"{REFS}{cite(1, 'aaaaaaaa')}\n{cite(2, 'bbbbbbbb')}\n",
        TABLE,
    ],
)
def test_the_gate_accepts_what_normalize_rewrites_in_headings_infoboxes_and_tables(
    text: str,
) -> None:
    out = norm(text)
    assert out != text
    assert check(text, out, stem="Some_Title").ok


def test_the_gate_reads_a_decomposed_stem_as_its_composed_title() -> None:
    text = "# Café\n\nLead about [[Menu]]. {{stub}}\n"
    result = check(None, text, stem="Cafe\u0301", known_stems=["Cafe\u0301", "Menu"])
    assert result.ok
    linked = "# Menu\n\nServed at [[Café]]. {{stub}}\n"
    assert check(None, linked, stem="Menu", known_stems=["Cafe\u0301", "Menu"]).ok
