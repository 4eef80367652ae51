"""The ```split block of Meta/Summary_Style.md: what it sets, and what the page check
says of a line a person broke."""

from __future__ import annotations

from dreaming.article.split import SplitRule
from dreaming.policy.summary import split_problems, split_rule


def test_a_setting_in_superscript_digits_leaves_the_default() -> None:
    assert split_rule("```split\nmin_words: ²\nshare_percent: ³\n```\n") == SplitRule()


def test_a_setting_in_superscript_digits_is_a_problem_to_correct() -> None:
    assert len(split_problems(["min_words: ²", "share_percent: ³"])) == 2
