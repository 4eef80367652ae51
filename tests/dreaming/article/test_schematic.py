"""The placeholder vocabulary: one list, matching the Meta pages, enforced by the gate."""

from __future__ import annotations

import re

import pytest

from dreaming.article.document import LEAD
from dreaming.article.gate import check
from dreaming.article.schematic import EXAMPLE_LINES, PLACEHOLDERS, SLOTS, leaks
from tests.support import REPO

META = REPO / "meta_templates"
ARTICLE = """\
# Foo Bar

Foo Bar is a small thing that people use for many purposes every day.[^1]

## References

[^1]: `conv:aaaaaaaa` (2024-01-02, claude) — first
"""


def test_every_slot_the_meta_pages_show_is_in_the_one_list() -> None:
    pages = [p.read_text(encoding="utf-8") for p in sorted(META.glob("*.md"))]
    assert pages
    shown = {m for text in pages for m in re.findall(r"<[A-Za-z][^<>\n`]{0,60}>", text)}
    assert shown <= set(SLOTS), shown - set(SLOTS)


def test_every_example_line_is_made_of_placeholders() -> None:
    assert all(any(p in line for p in PLACEHOLDERS) for line in EXAMPLE_LINES)


@pytest.mark.parametrize(
    "leak",
    [
        "The user prefers <Thing A> for <purpose>.",
        "It was released on <YYYY-MM-DD>.",
        "It was released on YYYY-MM-DD.",
        "See `conv:HASH` for the talk.",
        "It is fast.[^N]",
        "*Main article: [[<Child>]]*",
    ],
)
def test_the_gate_rejects_a_draft_that_carries_a_placeholder(leak: str) -> None:
    after = ARTICLE.replace("every day.[^1]", f"every day.[^1] {leak}")
    result = check(ARTICLE, after, touched=[LEAD])
    assert "placeholder_leak" in result.codes
    assert "placeholder_leak" in check(None, after).codes


def test_the_gate_rejects_a_draft_that_repeats_a_schematic_example_line() -> None:
    after = ARTICLE + "[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc\n"
    result = check(ARTICLE, after, touched=["References"])
    assert "placeholder_leak" in result.codes
    assert "[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc" in str(result)


def test_a_placeholder_the_person_wrote_is_tolerated() -> None:
    before = ARTICLE.replace("every day.", "every day, dated YYYY-MM-DD.")
    after = before.replace("small thing", "small tool")
    assert check(before, after, touched=[LEAD]).ok
    assert leaks(before, after + " YYYY-MM-DD") == ["YYYY-MM-DD"]


def test_real_values_in_the_same_shape_are_not_leaks() -> None:
    after = ARTICLE.replace("every day.", "every day since 2024-01-02, says <b>conv</b>.")
    assert check(ARTICLE, after, touched=[LEAD]).ok
