"""Article grammar: parse ⇄ render round trip, section surgery, queries, titles ⇄ stems."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dreaming.article.document import LEAD, SEE_ALSO, Section, build, parse, render
from dreaming.article.fences import (
    dangling_fence,
    fence_label,
    is_fence_line,
    mask_code,
    repair_fences,
    scan_lines,
    split_lines,
)
from dreaming.article.layout import split_frontmatter
from dreaming.article.markup import Footnote, footnote_def_line, markers, wikilinks, words
from dreaming.article.queries import (
    article_markers,
    categories,
    footnote_balance,
    footnote_defs,
    is_redirect,
    is_stub,
    redirect_target,
    see_also,
)
from dreaming.article.sections import (
    SectionNotFoundError,
    add_section,
    extract_section,
    replace_section,
    swallowed_tails,
    toc,
)
from dreaming.article.titles import heading_key, same_title, stem_for_title, title_for_stem
from dreaming.article.validate import problems
from dreaming.errors import DreamingError, UnsafePathError
from tests.strategies import GenArticle, articles, near_markdown
from tests.support import draws

SAMPLE = """\
---
tags: [demo]
---
# Foo Bar

*Part of a series on [[Things]].*

```info
kind: thing
aliases: fb, foobar
made_by: [[Acme]]
```

Foo Bar is a thing.[^1] It links to [[Baz]].

## History

It was made in a shed.[^2]

```python
# not a heading
[^1]: not a definition
```

### Early days

Small beginnings.

## See also

- [[Baz]]

## References

[^1]: `conv:deadbeef` (2024-01-02, claude) — first talk
[^2]: `conv:cafebabe` (2024-02-03, chatgpt) — second talk

[[Category:Things]]
"""


# ---------------------------------------------------------------- round trip


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_render_of_parse_is_byte_identical_for_generated_articles(g: GenArticle) -> None:
    assert render(parse(g.text)) == g.text


@settings(max_examples=draws(300), deadline=None)
@given(st.text())
def test_render_of_parse_is_byte_identical_for_any_text(text: str) -> None:
    assert render(parse(text)) == text


@settings(max_examples=draws(300), deadline=None)
@given(near_markdown)
def test_render_of_parse_is_byte_identical_for_near_markdown(text: str) -> None:
    assert render(parse(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "# Title",
        "# Title\r\n\r\nLead.\r\n",
        "# Title  \n\nLead with trailing space.   \n\n\n## A\t\nbody",
        "---\nkey: v\n---\n# T\n",
        "---\nunclosed frontmatter\n# T\n",
        "no heading at all\n",
        "## Section first\n# Then a title\n",
        "# T\n```\n# inside code\n[^1]: inside code\n",
        "# Ünïcødé 東京\n\nLead.",
        "# T\n\n```info\nkind: thing\nnot a pair\n```\n",
    ],
)
def test_render_of_parse_is_byte_identical_for_edge_cases(text: str) -> None:
    assert render(parse(text)) == text


# ---------------------------------------------------------------- parse


def test_parse_reads_every_part_of_the_skeleton() -> None:
    a = parse(SAMPLE)
    assert a.frontmatter == "---\ntags: [demo]\n---\n"
    assert a.title == "Foo Bar"
    assert a.banner == "Things"
    assert a.infobox == (("kind", "thing"), ("aliases", "fb, foobar"), ("made_by", "[[Acme]]"))
    assert a.lead == "Foo Bar is a thing.[^1] It links to [[Baz]]."
    assert [s.heading for s in a.sections] == ["History", "See also", "References"]


def test_a_hash_line_inside_a_code_fence_is_not_a_section() -> None:
    history = parse(SAMPLE).sections[0]
    assert "# not a heading" in history.body
    assert "### Early days" in history.body


def test_a_definition_inside_a_code_fence_is_not_a_footnote() -> None:
    assert [f.number for f in footnote_defs(parse(SAMPLE))] == [1, 2]


def test_a_fence_in_frontmatter_does_not_hide_the_article() -> None:
    a = parse("---\n```\n---\n# T\n\nLead.\n")
    assert a.frontmatter == "---\n```\n---\n"
    assert a.title == "T"
    assert split_frontmatter("---\n```\n---\nrest") == ("---\n```\n---\n", "rest")


def test_a_text_without_h1_parses_with_title_none() -> None:
    a = parse("Just some words.\n\n## Part\n\nMore.")
    assert a.title is None
    assert a.lead == "Just some words."
    assert a.sections[0].heading == "Part"


def test_crlf_text_parses_to_the_same_parts_as_lf() -> None:
    lf, crlf = parse(SAMPLE), parse(SAMPLE.replace("\n", "\r\n"))
    assert crlf.title == lf.title
    assert [s.heading for s in crlf.sections] == [s.heading for s in lf.sections]
    assert crlf.infobox == lf.infobox
    assert crlf.eol == "\r\n"


def test_a_shorter_fence_of_the_same_char_does_not_close_a_fence() -> None:
    text = "# T\n\n````\n```\n## inside\n````\n\n## Outside\n"
    assert [s.heading for s in parse(text).sections] == ["Outside"]


def test_a_fence_of_the_other_char_does_not_close_a_fence() -> None:
    flags = [code for _, code in scan_lines("~~~\n```\n# x\n~~~\n# y\n")]
    assert flags == [True, True, True, True, False]


def test_section_lookup_ignores_case_but_keeps_heading_text() -> None:
    section = parse(SAMPLE).section("SEE ALSO")
    assert section is not None
    assert section.heading == "See also"


# ---------------------------------------------------------------- render after changes


def test_changing_one_section_leaves_the_others_byte_identical() -> None:
    a = parse(SAMPLE)
    history = replace(a.sections[0], body="Rewritten.[^2]")
    out = render(replace(a, sections=(history, *a.sections[1:])))
    head, tail = SAMPLE.split("## History", 1)
    assert out.startswith(head + "## History\n\nRewritten.[^2]\n\n## See also")
    assert out.endswith(tail[tail.index("## See also") :])


def test_a_changed_title_renders_canonically_in_place() -> None:
    out = render(replace(parse(SAMPLE), title="Foo Baz"))
    assert out == SAMPLE.replace("# Foo Bar\n", "# Foo Baz\n")


def test_a_changed_infobox_renders_canonically() -> None:
    out = render(replace(parse(SAMPLE), infobox=(("kind", "person"),)))
    assert "```info\nkind: person\n```\n\nFoo Bar is a thing." in out


def test_a_new_section_gets_blank_lines_around_it() -> None:
    a = parse("# T\n\nLead.")
    out = render(replace(a, sections=(Section("New", 2, "Body."),)))
    assert out == "# T\n\nLead.\n\n## New\n\nBody.\n"


def test_canonical_parts_use_the_files_line_ending() -> None:
    a = parse("# T\r\n\r\nLead.\r\n")
    out = render(replace(a, sections=(Section("New", 2, "one\ntwo"),)))
    assert out == "# T\r\n\r\nLead.\r\n\r\n## New\r\n\r\none\r\ntwo\r\n"


# ---------------------------------------------------------------- section surgery


def _section_start(g: GenArticle, heading: str) -> tuple[int, str]:
    old = extract_section(g.text, heading)
    assert old is not None
    return g.text.index(old), old


@settings(max_examples=draws(100), deadline=None)
@given(articles(), st.data())
def test_replace_section_changes_only_that_sections_bytes(
    g: GenArticle, data: st.DataObject
) -> None:
    assume(g.headings)
    heading = data.draw(st.sampled_from(g.headings))
    new_body = data.draw(st.text(alphabet="abc .\n", min_size=1).filter(str.strip))
    start, old = _section_start(g, heading)
    out = replace_section(g.text, heading, new_body)
    assert out[:start] == g.text[:start]
    assert out.endswith(g.text[start + len(old) :])
    assert extract_section(out, heading) is not None


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_replacing_a_section_with_itself_changes_nothing(g: GenArticle) -> None:
    for heading in (LEAD, *g.headings):
        current = extract_section(g.text, heading)
        assert current is not None
        assert replace_section(g.text, heading, current) == g.text


def test_replace_section_keeps_the_old_heading_when_the_new_text_has_none() -> None:
    out = replace_section(SAMPLE, "history", "Only a body now.")
    assert "## History\n\nOnly a body now.\n\n## See also" in out


def test_replace_section_accepts_a_renamed_heading_of_the_same_level() -> None:
    out = replace_section(SAMPLE, "History", "## Origins\n\nBody.")
    assert "## Origins\n\nBody.\n\n## See also" in out
    assert "## History" not in out


def test_replace_section_closes_a_dangling_fence_in_the_new_text() -> None:
    out = replace_section(SAMPLE, "History", "Body.\n\n```\ncode")
    assert dangling_fence(out) is None
    assert [s.heading for s in parse(out).sections] == ["History", "See also", "References"]


def test_replace_section_with_empty_text_deletes_the_section() -> None:
    out = replace_section(SAMPLE, "See also", "")
    assert [s.heading for s in parse(out).sections] == ["History", "References"]


def test_replace_section_of_a_missing_heading_raises_a_dreaming_error() -> None:
    with pytest.raises(SectionNotFoundError) as err:
        replace_section(SAMPLE, "Nope", "x")
    assert isinstance(err.value, DreamingError)


def test_replace_lead_leaves_every_other_byte_identical() -> None:
    out = replace_section(SAMPLE, LEAD, "A new lead.[^1]")
    assert out == SAMPLE.replace("Foo Bar is a thing.[^1] It links to [[Baz]].", "A new lead.[^1]")


def test_extract_section_finds_a_subsection() -> None:
    assert extract_section(SAMPLE, "early days") == "### Early days\n\nSmall beginnings."


def test_extract_section_ignores_headings_inside_code() -> None:
    assert extract_section(SAMPLE, "not a heading") is None


def test_add_section_inserts_before_see_also() -> None:
    out = add_section(SAMPLE, "## Uses\n\nMany.")
    assert [s.heading for s in parse(out).sections] == ["History", "Uses", "See also", "References"]
    assert out.startswith(SAMPLE[: SAMPLE.index("## See also")])


def test_add_section_after_a_fence_left_open_puts_the_section_after_the_code() -> None:
    # The gate and NORMALIZE read the fence as closed at the end of the text.
    out = add_section("# X\n\nLead.\n\n```\ncode\n", "## Uses\n\nMany.")
    assert out == "# X\n\nLead.\n\n```\ncode\n```\n\n## Uses\n\nMany.\n"
    assert [s.heading for s in parse(out).sections] == ["Uses"]


def test_add_section_refuses_text_without_a_heading() -> None:
    with pytest.raises(ValueError, match="## Heading"):
        add_section(SAMPLE, "no heading here")


# ---------------------------------------------------------------- queries


def test_markers_skip_code_and_definition_labels() -> None:
    text = "a[^1] `b[^2]` c[^3]\n\n```\n[^4]\n```\n[^5]: def with [^6]\n"
    assert markers(text) == ["1", "3", "6"]


def test_wikilinks_skip_code_fences_and_inline_code() -> None:
    text = "[[A]] `[[B]]` [[C#Part|see c]]\n```\n[[D]]\n```\n"
    links = wikilinks(text)
    assert [(w.target, w.anchor, w.alias) for w in links] == [
        ("A", None, None),
        ("C", "Part", "see c"),
    ]
    assert text[links[1].start : links[1].end] == "[[C#Part|see c]]"


def test_categories_are_read_from_the_body() -> None:
    assert categories(parse(SAMPLE)) == ["Things"]


def test_footnote_defs_parse_the_standard_citation() -> None:
    first = footnote_defs(parse(SAMPLE))[0]
    assert first == Footnote(1, "deadbeef", "2024-01-02", "claude", "first talk")


@pytest.mark.parametrize("label", ["²", "٣", "①"])
def test_a_footnote_label_that_is_no_ascii_number_is_no_citation(label: str) -> None:
    text = (
        f"# T\n\nLead.[^{label}]\n\n## References\n\n"
        f"[^{label}]: `conv:deadbeef` (2024-01-02, claude) — talk\n"
    )
    assert footnote_defs(parse(text)) == []
    assert problems(parse(text))  # said, not raised


def test_a_redirect_article_is_recognised() -> None:
    a = parse("# Old Name\n\n*Redirects to [[New Name]]*\n")
    assert is_redirect(a)
    assert redirect_target(a) == "New Name"
    assert not is_redirect(parse(SAMPLE))


def test_stub_in_code_does_not_make_an_article_a_stub() -> None:
    assert is_stub(parse("# T\n\nLead.\n\n{{stub}}\n"))
    assert not is_stub(parse("# T\n\nLead `{{stub}}`.\n\n```\n{{stub}}\n```\n"))


def test_toc_lists_sections_and_subsections_but_not_code() -> None:
    assert toc(parse(SAMPLE)) == [
        (2, "History"),
        (3, "Early days"),
        (2, "See also"),
        (2, "References"),
    ]


def test_see_also_lists_link_targets() -> None:
    assert see_also(parse(SAMPLE)) == ["Baz"]


def test_words_count_display_text_not_markup() -> None:
    assert words("A [[Long Name|name]] here.[^1] {{stub}} [[Category:X]]\n```\nno count\n```") == 3


def test_fence_label_and_is_fence_line() -> None:
    assert fence_label("```info\n") == "info"
    assert fence_label("~~~~ python extra") == "python"
    assert fence_label("```") == ""
    assert fence_label("``` a`b") is None
    assert not is_fence_line("    ```")
    assert is_fence_line("   ~~~")


def test_mask_code_keeps_length_and_line_endings() -> None:
    text = "a `code` b\r\n```\nx\n```\n"
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert masked == "a        b\r\n   \n \n   \n"


def test_repair_fences_closes_with_the_opening_run() -> None:
    assert repair_fences("````py\ncode\n") == "````py\ncode\n````\n"
    assert repair_fences("~~~\ncode") == "~~~\ncode\n~~~"
    assert repair_fences("done\n") == "done\n"


# ---------------------------------------------------------------- build


def test_build_produces_the_canonical_layout() -> None:
    text = build(
        "Foo Bar",
        lead="Foo Bar is a thing.[^1]",
        sections=[("History", "Made.")],
        infobox={"kind": "thing"},
        see_also=["Baz"],
        footnotes=[Footnote(1, "deadbeef", "2024-01-02", "claude", "talk")],
        categories=["Things"],
        banner="Stuff",
        stub=True,
    )
    assert text == (
        "# Foo Bar\n\n*Part of a series on [[Stuff]].*\n\n```info\nkind: thing\n```\n\n"
        "Foo Bar is a thing.[^1]\n\n{{stub}}\n\n## History\n\nMade.\n\n## See also\n\n"
        "- [[Baz]]\n\n## References\n\n"
        "[^1]: `conv:deadbeef` (2024-01-02, claude) — talk\n\n[[Category:Things]]\n"
    )


def test_a_built_article_is_well_formed_and_parses_back() -> None:
    text = build(
        "T",
        lead="Lead.[^1]",
        sections=[("A", "Body.")],
        footnotes=[Footnote(1, "0123abcd", "2024-01-02", "pi")],
        stub=True,
    )
    a = parse(text)
    assert problems(a, stem="T") == []
    assert a.sections[0] == Section("A", 2, "Body.")
    assert article_markers(a) == ["1"]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, "deadbeef", "2024-01-02", "c", "d"), "number"),
        ((1, "DEADBEEF", "2024-01-02", "c", "d"), "hash"),
        ((1, "deadbee", "2024-01-02", "c", "d"), "hash"),
        ((1, "deadbeef", "2024-13-02", "c", "d"), "date"),
        ((1, "deadbeef", "2024-01-02", "a (b)", "d"), "source"),
    ],
)
def test_footnote_def_line_rejects_malformed_parts(
    args: tuple[int, str, str, str, str], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        footnote_def_line(*args)


def test_footnote_def_line_writes_the_standard_form_on_one_line() -> None:
    line = footnote_def_line(3, "deadbeef", "2024-01-02", "claude", "two\nlines")
    assert line == "[^3]: `conv:deadbeef` (2024-01-02, claude) — two lines"


# ---------------------------------------------------------------- titles and stems


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ("Foo Bar", "Foo_Bar"),
        ("  Foo   Bar ", "Foo_Bar"),
        ("snake_case", "snake_case"),
        ("Ünïcødé 東京", "Ünïcødé_東京"),
        ("Foo\nBar", "Foo_Bar"),
        ("Node.js", "Node.js"),
    ],
)
def test_stem_for_title_maps_spaces_to_underscores(title: str, stem: str) -> None:
    assert stem_for_title(title) == stem


@pytest.mark.parametrize(
    "title",
    [
        "../../etc/passwd",
        "a/b",
        "C:\\x",
        "C:",
        ".hidden",
        "..",
        "",
        "   ",
        "bell\x07",
        "right\u202eleft",
        "CON",
        "nul.txt",
        "x" * 201,
        "what?",
        "a|b",
        "[[link]]",
    ],
)
def test_stem_for_title_refuses_unsafe_titles(title: str) -> None:
    with pytest.raises(UnsafePathError) as err:
        stem_for_title(title)
    message = str(err.value)
    assert "\n" not in message
    assert "propose" in message or "give the subject a name" in message


def test_a_path_like_title_from_a_model_names_the_title_and_the_fix() -> None:
    with pytest.raises(UnsafePathError, match=r"'\.\./\.\./etc/passwd'.*propose the name without"):
        stem_for_title("../../etc/passwd")


@settings(max_examples=draws(200), deadline=None)
@given(st.text(max_size=30))
def test_every_accepted_stem_is_a_single_plain_file_name(title: str) -> None:
    try:
        stem = stem_for_title(title)
    except UnsafePathError:
        assume(False)
    assert stem
    assert "/" not in stem
    assert "\\" not in stem
    assert not stem.startswith(".")
    assert stem_for_title(title_for_stem(stem)) == stem


def test_title_for_stem_maps_underscores_to_spaces() -> None:
    assert title_for_stem("Foo_Bar_Baz") == "Foo Bar Baz"


# ---------------------------------------------------------------- problems


def test_the_sample_has_no_problems_except_thinness() -> None:
    assert problems(parse(SAMPLE), stem="Foo_Bar") == ["thin article (17 words) without {{stub}}"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lead.\n", "no '# Title' line"),
        ("# T\n\n{{stub}}\n", "no lead paragraph"),
        ("intro\n# T\n\nLead. {{stub}}\n", "text before the H1"),
        ("# T\n\n```info\nKind: thing\n```\n\nLead. {{stub}}\n", "not snake_case"),
        ("# T\n\n```info\nkind: gadget\n```\n\nLead. {{stub}}\n", "kind 'gadget'"),
        ("# T\n\n```info\njust words\n```\n\nLead. {{stub}}\n", "not 'key: value'"),
        ("# T\n\nLead. {{stub}}\n\n# Second\n", "second H1"),
        ("# T\n\nLead. {{stub}}\n\n## See also\n\n- [[X]]\n\n## Body\n", "in that order"),
        ("# T\n\nLead. {{stub}}\n\n## See also\n\nX and Y\n", "See also line"),
        ("# T\n\nLead.[^1] {{stub}}\n", "never defined"),
        (
            "# T\n\nLead.[^2] {{stub}}\n\n## References\n\n"
            "[^2]: `conv:deadbeef` (2024-01-02, c) — d\n",
            "numbered 1..n",
        ),
        (
            "# T\n\nLead. {{stub}}\n\n## References\n\n[^1]: `conv:deadbeef` (2024-01-02, c) — d\n",
            "never cited",
        ),
        ("# T\n\nLead.[^1] {{stub}}\n\n## References\n\n[^1]: loose text\n", "References line"),
        (
            "# T\n\nLead.[^1] {{stub}}\n\n[^1]: `conv:deadbeef` (2024-01-02, c) — d\n",
            "no '## References'",
        ),
        ("# T\n\nLead. {{stub}}\n\n```\nopen", "never closed"),
        ("# T\n\nLead. {{stub}}\n\n## A\n\nx\n\n## a\n\ny\n", "appears 2 times"),
        ("# T\n\n" + "word " * 200 + "{{stub}}\n", "not thin"),
    ],
)
def test_problems_names_each_grammar_violation(text: str, expected: str) -> None:
    found = problems(parse(text), stem="T")
    assert any(expected in p for p in found), found


def test_problems_reports_an_h1_that_differs_from_the_stem() -> None:
    assert any(
        "does not match the file name" in p for p in problems(parse("# T\n\nx {{stub}}"), stem="U")
    )


# ---------------------------------------------------------------- sections headed by a second H1


def test_replacing_a_second_h1_section_keeps_the_sections_after_it() -> None:
    text = "# T\n\nLead.\n\n# Extra\n\nold\n\n## After\n\nkept\n"
    out = replace_section(text, "Extra", "new")
    assert out == "# T\n\nLead.\n\n# Extra\n\nnew\n\n## After\n\nkept\n"


def test_extracting_a_second_h1_section_stops_at_the_next_section() -> None:
    text = "# T\n\nLead.\n\n# Extra\n\nold\n\n## After\n\nkept\n"
    assert extract_section(text, "Extra") == "# Extra\n\nold"


# ---------------------------------------------------------------- Unicode forms of names

NFD_CAFE = "Cafe\u0301"


def test_a_decomposed_file_name_has_the_composed_title() -> None:
    assert title_for_stem(NFD_CAFE) == "Café"


def test_titles_compare_under_nfc() -> None:
    assert same_title(NFD_CAFE, "café")
    assert heading_key(NFD_CAFE + "_Bar") == heading_key("CAFÉ bar")


def test_a_decomposed_stem_matches_its_composed_h1() -> None:
    assert problems(parse("# Café\n\nx {{stub}}\n"), stem=NFD_CAFE) == []


# ---------------------------------------------------------------- line endings

CR_ARTICLE = (
    "# Foo\r\rFoo is a tool.[^1]\r\r## Use\r\rFor shelves.\r\r## References\r\r"
    "[^1]: `conv:deadbeef` (2024-01-02, claude) — shelves\r"
)


def test_cr_only_line_endings_parse_like_lf() -> None:
    cr, lf = parse(CR_ARTICLE), parse(CR_ARTICLE.replace("\r", "\n"))
    assert (cr.title, cr.lead, [s.heading for s in cr.sections]) == (
        lf.title,
        lf.lead.replace("\n", "\r"),
        [s.heading for s in lf.sections],
    )
    assert footnote_defs(cr) == footnote_defs(lf)


def test_split_lines_ends_lines_at_cr_lf_and_crlf() -> None:
    assert split_lines("a\rb\r\nc\nd") == ["a\r", "b\r\n", "c\n", "d"]


@pytest.mark.parametrize("text", ["```\r", "```\n```\r", "a\r```x\r", "```\r\r"])
def test_repair_fences_is_idempotent_on_any_line_ending(text: str) -> None:
    once = repair_fences(text)
    assert repair_fences(once) == once
    assert dangling_fence(once) is None


def test_a_changed_section_in_a_cr_file_keeps_cr_endings() -> None:
    article = parse(CR_ARTICLE)
    use = replace(article.sections[0], body="For walls.\nAnd shelves.")
    out = render(replace(article, sections=(use, *article.sections[1:])))
    assert out == CR_ARTICLE.replace("For shelves.", "For walls.\rAnd shelves.")


def test_words_count_every_line_of_a_cr_text() -> None:
    assert words("# Heading\rone two\r[^1]: `conv:deadbeef` (2024-01-02, c)\rthree") == 3


# ---------------------------------------------------------------- byte-order mark

BOM = "\ufeff"


def test_a_bom_does_not_hide_the_title_or_the_infobox() -> None:
    article = parse(BOM + "# T\n\n```info\nkind: thing\n```\n\nLead.\n")
    assert (article.title, article.infobox, article.lead) == ("T", (("kind", "thing"),), "Lead.")


def test_a_bom_does_not_hide_the_frontmatter() -> None:
    article = parse(BOM + "---\na: b\n---\n# T\n")
    assert (article.frontmatter, article.preamble) == ("---\na: b\n---\n", "")


def test_a_retitled_article_keeps_its_bom() -> None:
    assert render(replace(parse(BOM + "# T\n\nLead.\n"), title="U")) == BOM + "# U\n\nLead.\n"


def test_replacing_a_first_line_section_keeps_the_bom() -> None:
    assert replace_section(BOM + "## A\n\nx\n", "A", "## B\n\ny") == BOM + "## B\n\ny\n"


def test_an_escaped_bar_in_a_table_link_separates_target_and_alias() -> None:
    [link] = wikilinks("| [[Foo Bar\\|the bar]] |")
    assert (link.target, link.alias) == ("Foo Bar", "the bar")
    assert words("[[Foo Bar\\|the bar]]") == 2


# ---------------------------------------------------------------- comments


@pytest.mark.parametrize(
    ("opener", "closer"), [("<!--", "-->"), ("%%", "%%"), ("<!-- x", "y -->"), ("%% a", "b %%")]
)
def test_a_commented_out_section_is_no_section(opener: str, closer: str) -> None:
    text = f"# T\n\nLead.\n\n## A\n\na\n\n{opener}\n## See also\n\n- [[X]]\n{closer}\n\n## B\n\nb\n"
    assert [s.heading for s in parse(text).sections] == ["A", "B"]
    assert render(parse(text)) == text


def test_markers_and_links_in_comments_are_not_read() -> None:
    text = "a [[X]] <!-- [[Y]] [^1] --> b %% [[Z]] %% c"
    assert [w.target for w in wikilinks(text)] == ["X"]
    assert markers(text) == []


def test_an_unclosed_comment_hides_nothing() -> None:
    text = "# T\n\nLead. <!-- open\n\n## A\n\na\n"
    assert [s.heading for s in parse(text).sections] == ["A"]


def test_a_comment_opener_inside_inline_code_opens_no_comment() -> None:
    text = "# T\n\n`<!--` here\n\n## A\n\na -->\n"
    assert [s.heading for s in parse(text).sections] == ["A"]


def test_replacing_a_section_leaves_a_commented_heading_inside_it() -> None:
    text = "# T\n\n## A\n\na\n\n<!--\n## B\n-->\n\n## C\n\nc\n"
    assert (
        replace_section(text, "C", "new") == "# T\n\n## A\n\na\n\n<!--\n## B\n-->\n\n## C\n\nnew\n"
    )
    assert extract_section(text, "B") is None


def test_a_comment_in_see_also_is_no_malformed_item() -> None:
    text = "# T\n\nLead. {{stub}}\n\n## See also\n\n- [[X]]\n<!-- - [[Y]] later -->\n"
    assert problems(parse(text), stem="T") == []


# ---------------------------------------------------------------- fences left open in written parts


def test_a_built_section_with_an_open_fence_cannot_swallow_see_also() -> None:
    text = build("T", lead="x", sections=[("A", "```\ncode")], see_also=["B"])
    assert [s.heading for s in parse(text).sections] == ["A", SEE_ALSO]
    assert dangling_fence(text) is None


def test_a_rewritten_lead_with_an_open_fence_is_closed_in_place() -> None:
    article = parse("# T\n\nx\n\n## A\n\na\n")
    out = render(replace(article, lead="~~~~\ncode"))
    assert out == "# T\n\n~~~~\ncode\n~~~~\n\n## A\n\na\n"


def test_swallowed_tails_names_tail_sections_inside_a_final_code_block() -> None:
    assert swallowed_tails("# T\n\n```\ncode\n\n## See also\n\n- [[B]]\n```\n") == ["See also"]
    assert swallowed_tails("# T\n\n```\n## See also\n```\n\n## B\n") == []


def test_an_infobox_below_a_categories_line_is_reported() -> None:
    text = "# T\n\ncategories: [[Category:Tools]]\n\n```info\nkind: thing\n```\n\nLead. {{stub}}\n"
    assert parse(text).infobox is None
    assert any("```info block" in p for p in problems(parse(text), stem="T"))


def test_a_footnote_marker_is_no_part_of_a_heading_name() -> None:
    assert heading_key("Price[^1]") == heading_key("price")
    assert parse("# T\n\n## Price[^2]\n\nx\n").section("Price") is not None


def test_an_escaped_marker_is_text_in_a_heading_name_as_in_prose() -> None:
    assert markers("Price\\[^1]") == []
    assert heading_key("Price\\[^1]") != heading_key("Price\\[^2]")


def test_footnote_balance_pairs_markers_with_definitions() -> None:
    refs = "[^1]: one\n[^1]: again\n[^2]: two\n[^9]: stray\n"
    text = f"# T\n\nA[^2] b[^1] c[^3].\n\n## References\n\n{refs}"
    balance = footnote_balance(parse(text))
    assert balance.cited == ("2", "1", "3")
    assert balance.undefined == ("3",)
    assert balance.repeated == {"1": 2}
    assert [d.label for d in balance.orphans] == ["9"]


def test_a_decomposed_h1_matches_its_composed_file_name() -> None:
    article = parse("# Cafe\u0301\n\nA place.\n")
    assert not any("does not match the file name" in p for p in problems(article, stem="Café"))
