"""Category lines added at an article's end, never twice, a person's kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article import LEAD, parse
from dreaming.article.filing import with_categories
from dreaming.article.queries import categories
from dreaming.article.validate import problems
from tests.support import STUB_ARTICLE as ARTICLE
from tests.support import draws


def test_a_category_line_goes_after_a_blank_line_at_the_end() -> None:
    out, where = with_categories(ARTICLE, ["Tools"])
    assert out == ARTICLE + "\n[[Category:Tools]]\n"
    assert where == "References"
    assert problems(parse(out), stem="Beads") == []


def test_a_second_category_joins_the_first_ones_lines() -> None:
    once, _ = with_categories(ARTICLE, ["Tools"])
    twice, _ = with_categories(once, ["Issue trackers"])
    assert twice.endswith("\n\n[[Category:Tools]]\n[[Category:Issue trackers]]\n")


def test_a_category_the_article_has_anywhere_is_not_added_again() -> None:
    mine = ARTICLE.replace(
        "Beads tracks issues.[^1]", "Beads tracks issues.[^1] [[Category:tools]]"
    )
    assert with_categories(mine, ["Tools"])[0] == mine


def test_an_article_with_no_section_files_under_its_lead() -> None:
    out, where = with_categories("# Beads\n\nBeads tracks issues.\n", ["Tools"])
    assert where == LEAD
    assert categories(parse(out)) == ["Tools"]


def test_an_article_ending_in_an_open_fence_gets_no_category() -> None:
    broken = "# Beads\n\nBeads.\n\n```python\nx = 1\n"
    assert with_categories(broken, ["Tools"])[0] == broken


PIECES = ["# T", "## References", "text", "```", "[[Category:Tools]]", "\n", "\r\n", "- [[X]]"]


@settings(max_examples=draws(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("\n".join))
def test_filing_twice_is_filing_once_and_the_text_before_is_kept(text: str) -> None:
    once, _ = with_categories(text, ["Tools", "Agents"])
    assert with_categories(once, ["Tools", "Agents"])[0] == once
    assert once.startswith(text.rstrip("\r\n"))


def test_a_category_named_twice_in_two_spellings_is_written_once() -> None:
    out, _ = with_categories(
        "# Beads\n\nBeads tracks issues.\n", ["Tools", "tools", "Cafe\u0301", "Café"]
    )
    assert out == "# Beads\n\nBeads tracks issues.\n\n[[Category:Tools]]\n[[Category:Cafe\u0301]]\n"


def test_a_category_after_categories_in_a_cr_only_article_follows_without_a_blank_line() -> None:
    out, _ = with_categories("# Beads\r\rBeads tracks issues.\r\r[[Category:Tools]]\r", ["Dolt"])
    assert out == "# Beads\r\rBeads tracks issues.\r\r[[Category:Tools]]\r[[Category:Dolt]]\r"
