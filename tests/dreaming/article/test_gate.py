"""The conservative write gate: one test per rule and rejection code, plus properties."""

from __future__ import annotations

import unicodedata
from dataclasses import fields, replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dreaming.article.document import LEAD, Article, parse, render, tail_rank
from dreaming.article.gate import CODES, GateResult, Part, Rejection, check, unsafe_link
from dreaming.article.markup import _UNSPACED as UNSPACED
from dreaming.article.markup import text_units, words
from dreaming.article.normalize import normalize
from dreaming.article.sections import replace_section
from tests.strategies import COMMENTS, GenArticle, articles, near_markdown, rich_articles
from tests.support import draws

BEFORE = """\
# Foo Bar

Foo Bar is a small thing that people use for many purposes every day.[^1]

## History

It was first made in a shed by two friends who liked tools and wood.[^2]

## See also

- [[Baz]]

## References

[^1]: `conv:aaaaaaaa` (2024-01-02, claude) — first
[^2]: `conv:bbbbbbbb` (2024-02-03, claude) — second
"""


ALL = [LEAD, "History", "See also", "References"]
"""Every section of BEFORE: tests of other rules name them all as touched."""


def codes(result: GateResult) -> tuple[str, ...]:
    return result.codes


# ---------------------------------------------------------------- properties


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_the_gate_accepts_an_unchanged_article(g: GenArticle) -> None:
    assert check(g.text, g.text).ok


@settings(max_examples=draws(100), deadline=None)
@given(articles())
def test_the_gate_accepts_normalize_output_of_a_well_formed_article(g: GenArticle) -> None:
    after = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    result = check(g.text, after, stem=g.stem, known_stems=g.known_stems)
    assert result.ok, str(result)


@settings(max_examples=draws(100), deadline=None)
@given(articles(), st.data())
def test_the_gate_rejects_an_edit_that_drops_a_citation(g: GenArticle, data: st.DataObject) -> None:
    assume(g.hashes)
    dropped = data.draw(st.sampled_from(g.hashes))
    other = next(
        h for h in ("ffffffff", "fffffffe", "fffffffd", "fffffffc", "fffffffb") if h not in g.hashes
    )
    after = g.text.replace(f"conv:{dropped}", f"conv:{other}")
    result = check(g.text, after)
    assert Rejection("citation_lost", f"conv:{dropped} is no longer cited") in result.rejections
    everything = [LEAD, *g.headings, "See also", "Notes", "References"]
    assert check(g.text, after, allow_dropped=[dropped], touched=everything).ok


@settings(max_examples=draws(100), deadline=None)
@given(st.one_of(st.none(), st.text(), near_markdown), st.one_of(st.text(), near_markdown))
def test_the_gate_returns_only_a_verdict_and_never_raises(before: str | None, after: str) -> None:
    first = check(before, after, touched=[LEAD, "A"], known_stems=["X"])
    assert first == check(before, after, touched=[LEAD, "A"], known_stems=["X"])
    assert all(r.code in CODES for r in first.rejections)


def test_the_gate_rejects_an_edit_that_leaves_a_section_citing_nothing() -> None:
    moved = BEFORE.replace("wood.[^2]", "wood.").replace("every day.[^1]", "every day.[^1][^2]")
    assert check(BEFORE, moved, touched=ALL).codes == ("citation_lost",)


def test_a_gate_result_carries_no_text_to_write() -> None:
    assert [f.name for f in fields(GateResult)] == ["rejections"]


# ---------------------------------------------------------------- rules


def test_an_edit_that_keeps_everything_passes() -> None:
    after = replace_section(
        BEFORE,
        "History",
        "It was first made in a small shed by two old friends who liked tools and wood.[^2]",
    )
    assert check(BEFORE, after, touched=["History"]).ok


def test_citation_lost_when_a_definition_and_its_marker_vanish() -> None:
    after = BEFORE.replace("wood.[^2]", "wood.").replace(
        "[^2]: `conv:bbbbbbbb` (2024-02-03, claude) — second\n", ""
    )
    assert codes(check(BEFORE, after, touched=ALL)) == ("citation_lost",)


def test_allow_dropped_lets_a_deliberate_correction_drop_its_citation() -> None:
    after = BEFORE.replace("wood.[^2]", "wood.").replace(
        "[^2]: `conv:bbbbbbbb` (2024-02-03, claude) — second\n", ""
    )
    assert check(BEFORE, after, allow_dropped=["bbbbbbbb"], touched=ALL).ok


def test_footnote_unbalanced_when_a_marker_has_no_definition() -> None:
    after = BEFORE.replace("wood.[^2]", "wood.[^2][^3]")
    assert codes(check(BEFORE, after, touched=ALL)) == ("footnote_unbalanced",)


def test_footnote_unbalanced_when_a_label_is_defined_twice() -> None:
    after = BEFORE + "[^2]: `conv:cccccccc` (2024-02-03, claude) — again\n"
    assert "footnote_unbalanced" in codes(check(BEFORE, after, touched=ALL))


def test_footnote_unbalanced_when_an_edit_leaves_a_definition_uncited() -> None:
    after = BEFORE.replace("wood.[^2]", "wood.[^1]")
    assert codes(check(BEFORE, after, touched=ALL)) == ("footnote_unbalanced",)


def test_an_orphan_definition_that_was_already_orphan_is_tolerated() -> None:
    before = BEFORE + "[^3]: `conv:cccccccc` (2024-03-03, claude) — unused\n"
    assert check(before, before.replace("tools and wood", "tools and timber"), touched=ALL).ok


def test_a_new_article_may_not_carry_an_orphan_definition() -> None:
    after = BEFORE + "[^3]: `conv:cccccccc` (2024-03-03, claude) — unused\n"
    assert codes(check(None, after)) == ("footnote_unbalanced",)


def test_word_floor_rejects_a_touched_section_that_lost_too_many_words() -> None:
    after = replace_section(BEFORE, "History", "Made in a shed.[^2]")
    result = check(BEFORE, after, touched=["History"])
    assert codes(result) == ("word_floor",)
    assert "'History' kept 4 of 15 words" in str(result)


def test_word_floor_passes_at_exactly_the_floor() -> None:
    before = "# T\n\none two three four five six seven eight nine ten\n"
    after = "# T\n\none two three four five six seven\n"
    assert check(before, after, touched=[LEAD]).ok
    assert codes(check(before, after.replace(" seven", ""), touched=[LEAD])) == ("word_floor",)


def test_word_floor_on_the_lead() -> None:
    after = replace_section(BEFORE, LEAD, "Foo Bar is a thing.[^1]")
    assert codes(check(BEFORE, after, touched=[LEAD])) == ("word_floor",)


def test_word_floor_applies_to_each_named_section_and_a_lower_floor_relaxes_it() -> None:
    after = replace_section(BEFORE, "History", "Made in a shed.[^2]")
    assert codes(check(BEFORE, after, touched=ALL)) == ("word_floor",)
    assert check(BEFORE, after, touched=ALL, floor=0.25).ok


def test_a_touched_section_that_disappears_is_rejected() -> None:
    after = replace_section(BEFORE, "History", "")
    after = after.replace("day.[^1]", "day.[^1][^2]")
    assert codes(check(BEFORE, after, touched=[LEAD, "History"])) == ("word_floor",)


def test_a_touched_section_that_is_new_has_no_floor() -> None:
    after = BEFORE.replace("## See also", "## Uses\n\nMany.\n\n## See also")
    assert check(BEFORE, after, touched=["Uses"]).ok


def test_h1_lost_when_the_title_line_is_gone() -> None:
    assert "h1_lost" in codes(check(BEFORE, BEFORE.replace("# Foo Bar\n", "")))


def test_a_new_article_needs_an_h1() -> None:
    assert codes(check(None, "Just a lead.\n")) == ("h1_lost",)


def test_title_changed_when_the_h1_names_another_subject() -> None:
    assert codes(check(BEFORE, BEFORE.replace("# Foo Bar", "# Foo Baz"))) == ("title_changed",)


def test_a_cosmetic_title_fix_is_not_a_title_change() -> None:
    assert check(BEFORE.replace("# Foo Bar", "# foo_bar"), BEFORE).ok


def test_title_changed_against_the_stem_when_given() -> None:
    assert codes(check(None, BEFORE, stem="Other")) == ("title_changed",)
    assert check(None, BEFORE, stem="Foo_Bar").ok


def test_references_lost_when_the_section_is_gone() -> None:
    after = BEFORE.replace("## References\n\n", "")
    assert "references_lost" in codes(check(BEFORE, after, touched=ALL))


def test_references_missing_when_a_new_article_cites_without_the_section() -> None:
    after = BEFORE.replace("## References\n\n", "")
    assert codes(check(None, after)) == ("references_missing",)


def test_see_also_duplicate_when_an_edit_adds_a_second_one() -> None:
    after = BEFORE.replace("## References", "## See also\n\n- [[Qux]]\n\n## References")
    assert codes(check(BEFORE, after, touched=ALL)) == ("see_also_duplicate",)


def test_two_see_also_sections_a_person_wrote_do_not_block_edits() -> None:
    before = BEFORE.replace("## References", "## See also\n\n- [[Qux]]\n\n## References")
    assert check(before, before.replace("wood", "timber"), touched=ALL).ok


def test_fence_unclosed_when_the_edit_leaves_a_fence_open() -> None:
    assert codes(check(BEFORE, BEFORE + "\n```\ncode\n", touched=ALL)) == ("fence_unclosed",)


@pytest.mark.parametrize(
    "link",
    [
        "[[../../etc/passwd]]",
        "[[a/b]]",
        "[[C:\\x]]",
        "[[..]]",
        "[[a%2Fb]]",
        "[x](../secret.md)",
        "[x](/etc/passwd)",
        "[x](file:///etc/passwd)",
        "[x](%2e%2e/%2e%2e/x)",
        "[x](C:\\Windows)",
        "[x](obsidian://open?path=/etc)",
        "![img](~/photo.png)",
        "<file:///etc/passwd>",
        '<a href="file:///etc/passwd">x</a>',
        "\n\n[ref]: ../../x\n\n",
    ],
)
def test_path_escape_rejects_a_link_that_leaves_the_vault(link: str) -> None:
    after = BEFORE.replace("every day.", f"every day {link}.")
    assert codes(check(BEFORE, after, touched=ALL)) == ("path_escape",)


@pytest.mark.parametrize(
    "link",
    [
        "[[Baz]]",
        "[[Baz#Part|x]]",
        "[x](https://example.com/a/../b)",
        "[x](#part)",
        "[x](mailto:a@b.c)",
    ],
)
def test_ordinary_links_pass(link: str) -> None:
    after = BEFORE.replace("every day.", f"every day {link}.")
    assert check(BEFORE, after, touched=ALL).ok


def test_a_path_in_code_is_not_a_link() -> None:
    after = BEFORE.replace("every day.", "every day `[[../x]]`.")
    assert check(BEFORE, after, touched=ALL).ok


def test_a_strange_link_a_person_already_had_is_tolerated() -> None:
    before = BEFORE.replace("every day.", "every day [x](../notes.md).")
    assert check(before, before.replace("wood", "timber"), touched=ALL).ok


def test_a_path_escape_in_an_infobox_value_is_rejected() -> None:
    after = BEFORE.replace("\nFoo Bar is", "\n```info\nmade_by: [[../x]]\n```\n\nFoo Bar is")
    assert codes(check(BEFORE, after, touched=[*ALL, Part.INFOBOX])) == ("path_escape",)


def test_wikilink_unresolved_for_a_new_link_to_no_known_article() -> None:
    after = BEFORE.replace("every day.", "every day with [[Qux]].")
    assert codes(check(BEFORE, after, touched=ALL, known_stems=["Baz"])) == ("wikilink_unresolved",)
    assert check(BEFORE, after, touched=ALL, known_stems=["Baz", "Qux"]).ok
    assert check(BEFORE, after, touched=ALL).ok


def test_a_floor_outside_zero_to_one_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="floor"):
        check(BEFORE, BEFORE, floor=1.5)


def test_unsafe_link_explains_why() -> None:
    assert unsafe_link("../x", "markdown") == "a '..' segment"
    assert unsafe_link("a/b", "wikilink") == "a path separator"
    assert unsafe_link("Category:Things", "wikilink") is None
    assert unsafe_link("..\\..", "html") == "a '..' segment"


def test_a_rejected_result_reads_as_one_line() -> None:
    result = check(BEFORE, BEFORE.replace("# Foo Bar\n", ""))
    assert not result.ok
    assert str(result).startswith("rejected: h1_lost (")
    assert "\n" not in str(result)
    assert parse(BEFORE).title == "Foo Bar"


def test_a_fence_line_inside_frontmatter_is_not_an_unclosed_fence() -> None:
    assert check(None, "---\n```\n---\n" + BEFORE).ok


# ---------------------------------------------------------------- parts the edit did not name

RICH = """\
---
aliases: [FB]
---
# Foo Bar

```info
kind: thing
made_by: [[Baz]]
year: 1999
```

Foo Bar is a small thing that people use for many purposes every day.[^1]

<!-- a note the person keeps -->

## History

It was first made in a shed by two friends who liked tools and wood.[^2]

%% an Obsidian comment %%

## Usage

Run it like this, and read what it prints before you trust it.

```sh
foobar --all
```

## References

[^1]: `conv:aaaaaaaa` (2024-01-02, claude) — first
[^2]: `conv:bbbbbbbb` (2024-02-03, claude) — second
"""


def test_deleting_a_section_the_edit_does_not_name_is_rejected() -> None:
    start, end = RICH.index("## Usage"), RICH.index("## References")
    after = RICH[:start] + RICH[end:]
    result = check(RICH, after, touched=["History"])
    assert codes(result) == ("part_changed", "code_lost")
    assert "section 'Usage' is gone" in str(result)


def test_editing_a_section_the_edit_does_not_name_is_rejected() -> None:
    after = RICH.replace("read what it prints", "read it")
    assert codes(check(RICH, after, touched=["History"])) == ("part_changed",)
    assert check(RICH, after, touched=["Usage"]).ok


def test_reordering_sections_the_edit_does_not_name_is_rejected() -> None:
    start, end = RICH.index("## History"), RICH.index("## Usage")
    history = RICH[start:end]
    after = RICH.replace(history, "").replace("## References", history + "## References")
    result = check(RICH, after, touched=[LEAD])
    assert codes(result) == ("part_changed",)
    assert str(result) == "rejected: part_changed (sections moved)"


@pytest.mark.parametrize("heading", ["## usage", "# Usage", "### Usage", "## Use"])
def test_rewriting_the_heading_of_a_section_the_edit_does_not_name_is_rejected(
    heading: str,
) -> None:
    after = RICH.replace("## Usage", heading)
    assert codes(check(RICH, after, touched=["History"])) == ("part_changed",)


def test_a_new_section_the_edit_does_not_name_is_rejected() -> None:
    after = RICH.replace(
        "## References", "## Extra\n\nSomething new and unasked for.\n\n## References"
    )
    assert codes(check(RICH, after, touched=["History"])) == ("part_changed",)
    assert check(RICH, after, touched=["Extra"]).ok


@pytest.mark.parametrize(
    ("edit", "part"),
    [
        (("```info\nkind: thing\nmade_by: [[Baz]]\nyear: 1999\n```\n\n", ""), Part.INFOBOX),
        (("made_by: [[Baz]]\n", ""), Part.INFOBOX),
        (("made_by: [[Baz]]", "made_by [[Baz]]"), Part.INFOBOX),
        (("year: 1999", "year: 1998"), Part.INFOBOX),
        (("---\naliases: [FB]\n---\n", ""), Part.FRONTMATTER),
        (("aliases: [FB]", "aliases: []"), Part.FRONTMATTER),
    ],
)
def test_the_infobox_and_frontmatter_change_only_when_the_edit_names_them(
    edit: tuple[str, str], part: Part
) -> None:
    after = RICH.replace(*edit)
    assert after != RICH
    assert codes(check(RICH, after, touched=[LEAD, "History"])) == ("part_changed",)
    assert check(RICH, after, touched=[LEAD, "History", part]).ok


@pytest.mark.parametrize(
    "edit",
    [
        ("```sh\nfoobar --all\n```\n", ""),
        ("foobar --all\n", ""),
        ("foobar --all", "foobar"),
    ],
)
def test_deleting_or_emptying_code_in_a_named_section_is_rejected(edit: tuple[str, str]) -> None:
    after = RICH.replace(*edit)
    assert codes(check(RICH, after, touched=["Usage"])) == ("code_lost",)
    assert check(RICH, after, touched=["Usage", Part.CODE]).ok


@pytest.mark.parametrize(
    "comment", ["<!-- a note the person keeps -->\n\n", "%% an Obsidian comment %%\n\n"]
)
def test_deleting_a_comment_outside_the_named_sections_is_rejected(comment: str) -> None:
    after = RICH.replace(comment, "")
    assert codes(check(RICH, after, touched=["Usage"])) == ("part_changed",)


def test_normalize_rewrites_in_an_unnamed_section_are_not_changes() -> None:
    before = RICH.replace("[[Baz]]", "[[baz]]").replace("wood.[^2]", "wood.[^2] See [[baz]].")
    after = normalize(
        before.replace("every day.[^1]", "every day.[^2] Also handy.[^1]"),
        stem="Foo_Bar",
        known_stems=["Baz"],
    )
    assert "[[Baz]]" in after
    assert "wood.[^1]" in after
    assert check(before, after, touched=[LEAD]).ok


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("東京は日本の首都であり、世界で最も人口の多い都市圏の一つである。" * 2, 0.5),
        ("ภาษาไทยเป็นภาษาราชการของประเทศไทยและมีผู้พูดหลายสิบล้านคน" * 2, 0.5),
        ("Der 東京 Tower ist 333 m hoch und steht in 港区, nahe dem 芝公園.", 0.5),
    ],
)
def test_word_floor_holds_for_scripts_written_without_spaces(text: str, cut: float) -> None:
    before = f"# T\n\n{text}\n"
    after = f"# T\n\n{text[: int(len(text) * cut)]}\n"
    assert codes(check(before, after, touched=[LEAD])) == ("word_floor",)
    assert check(before, before.replace("。", ". "), touched=[LEAD]).ok


def test_text_units_count_each_letter_of_an_unspaced_script() -> None:
    assert words("我" * 49) == 49
    assert words("ภาษาไทยที่") == 8  # ten code points, two of them combining marks
    assert words("東京tower und café") == 5
    assert words("한국어 문장 입니다") == 3


def _units_token_by_token(line: str) -> int:
    unspaced = sum(unicodedata.category(c)[0] in "LN" for c in UNSPACED.findall(line))
    spaced = UNSPACED.sub(" ", line).split()
    return unspaced + sum(1 for tok in spaced if any(c.isalnum() for c in tok))


MIXED_SCRIPTS = st.sampled_from(" \t\u00a0\u3000-_*.a9é我ภ\u0301²")


@settings(max_examples=draws(300))
@given(st.text(alphabet=MIXED_SCRIPTS, max_size=40) | st.text())
def test_text_units_count_the_tokens_holding_a_letter_or_digit(line: str) -> None:
    assert text_units(line) == _units_token_by_token(line)


def test_a_long_chinese_article_is_not_a_stub() -> None:
    text = (
        "# 東京\n\n"
        + "東京は日本の首都であり、世界で最も人口の多い都市圏の一つである。" * 36
        + "\n"
    )
    assert len(text) > 1000
    assert "{{stub}}" not in normalize(text, stem="東京")


# ---------------------------------------------------------------- properties: nothing lost


def _mutations(article: Article) -> list[str]:
    """Names of the ways `article` can lose or reorder a part."""
    body = [s for s in article.sections if not tail_rank(s)]
    found = [f"delete {i}" for i in range(len(article.sections))]
    found += [f"empty {i}" for i, s in enumerate(article.sections) if s.body.strip()]
    found += ["swap"] if len(body) > 1 else []
    found += ["drop infobox", "drop field", "break field"] if article.infobox else []
    found += ["drop frontmatter"] if article.frontmatter else []
    found += [f"drop comment {c!r}" for c in COMMENTS if c in render(article)]
    found += [f"drop code {i}" for i, s in enumerate(article.sections) if "\n```" in s.body]
    return found


def _mutate(article: Article, how: str) -> tuple[Article, set[int]]:
    """The mutated article and the indexes of sections the edit may still name."""
    secs = list(article.sections)
    others = set(range(len(secs)))
    verb, _, arg = how.partition(" ")
    if verb in ("delete", "empty"):
        i = int(arg)
        others.discard(i)
        if verb == "delete":
            del secs[i]
        else:
            secs[i] = replace(secs[i], body="")
    elif how == "swap":
        a, b = [i for i, s in enumerate(secs) if not tail_rank(s)][:2]
        secs[a], secs[b] = secs[b], secs[a]
        others -= {a, b}
    elif how == "drop infobox":
        return replace(article, infobox=None), others
    elif how == "drop field":
        return replace(article, infobox=(article.infobox or ())[1:]), others
    elif how == "break field":
        key, value = (article.infobox or ())[-1]
        return replace(
            article, infobox=(*(article.infobox or ())[:-1], (key + " " + value, ""))
        ), others
    elif how == "drop frontmatter":
        return replace(article, frontmatter=None), others
    elif verb == "drop" and arg.startswith("comment"):
        comment = next(c for c in COMMENTS if repr(c) == arg.removeprefix("comment "))
        others = {i for i, s in enumerate(secs) if comment not in s.body}
        return parse(render(article).replace(comment, "")), others
    return replace(article, sections=tuple(secs)), others


@settings(max_examples=draws(150), deadline=None)
@given(rich_articles(), st.data())
def test_the_gate_rejects_every_edit_that_loses_or_moves_a_part_it_does_not_name(
    g: GenArticle, data: st.DataObject
) -> None:
    article = parse(g.text)
    options = _mutations(article)
    assume(options)
    how = data.draw(st.sampled_from(options), label="mutation")
    if how.startswith("drop code"):
        # Code in a section the edit names is still kept, unless Part.CODE is named.
        i = int(how.rsplit(" ", 1)[1])
        s = article.sections[i]
        lines = s.body.split("\n")
        start = next(k for k, line in enumerate(lines) if line.startswith(("```", "~~~")))
        cut = replace(s, body="\n".join(lines[:start]))
        after = render(
            replace(article, sections=(*article.sections[:i], cut, *article.sections[i + 1 :]))
        )
        named: list[str | Part] = [LEAD, *(x.heading for x in article.sections)]
    else:
        mutated, others = _mutate(article, how)
        after = render(mutated)
        names = [article.sections[i].heading for i in sorted(others)]
        lead_free = not any(c in article.lead and repr(c) in how for c in COMMENTS)
        named = [
            *([LEAD] if lead_free else []),
            *data.draw(st.lists(st.sampled_from(names), unique=True) if names else st.just([])),
        ]
    assume(after != g.text)
    if data.draw(st.booleans(), label="normalized"):
        after = normalize(after, stem=g.stem, known_stems=g.known_stems)
    assert not check(g.text, after, touched=named, stem=g.stem).ok, how


@settings(max_examples=draws(100), deadline=None)
@given(rich_articles(), st.data())
def test_the_gate_accepts_normalize_output_when_the_edit_names_nothing(
    g: GenArticle, data: st.DataObject
) -> None:
    after = normalize(g.text, stem=g.stem, known_stems=g.known_stems)
    result = check(g.text, after, stem=g.stem, known_stems=g.known_stems)
    assert result.ok, str(result)


def test_a_marker_inside_code_cites_nothing_for_the_section() -> None:
    moved = BEFORE.replace("wood.[^2]", "wood, typed `[^2]`.").replace(
        "every day.[^1]", "every day.[^1][^2]"
    )
    assert check(BEFORE, moved, touched=ALL).codes == ("citation_lost",)
