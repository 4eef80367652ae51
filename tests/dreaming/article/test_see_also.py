"""See also from co-occurrence: who shares conversations with whom, and the section
that lists them, added to and never taken from."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article import parse
from dreaming.article.overlap import CROWD
from dreaming.article.queries import see_also
from dreaming.article.see_also import CAP, neighbours, with_see_also
from dreaming.article.validate import problems
from tests.support import STUB_ARTICLE as ARTICLE
from tests.support import best_seconds, draws


def test_articles_citing_one_conversation_are_each_others_neighbours() -> None:
    found = neighbours(
        {"Beads": frozenset({"a"}), "Dolt": frozenset({"a"}), "Rye": frozenset({"b"})}
    )
    assert found == {"Beads": ("Dolt",), "Dolt": ("Beads",), "Rye": ()}


def test_the_neighbour_sharing_most_conversations_comes_first() -> None:
    found = neighbours(
        {"A": frozenset({"x", "y"}), "B": frozenset({"x"}), "C": frozenset({"x", "y"})}
    )
    assert found["A"] == ("C", "B")


def test_neighbours_are_capped_and_ordered_by_name_on_a_tie() -> None:
    many = {f"N{i:02d}": frozenset({"x"}) for i in range(CAP + 3)}
    assert neighbours(many)["N00"] == tuple(f"N{i:02d}" for i in range(1, CAP + 1))


def test_neighbours_do_not_depend_on_the_order_articles_were_listed() -> None:
    cites = {s: frozenset({"x"}) for s in ("Zed", "Alpha", "Mid")}
    reversed_cites = dict(reversed(list(cites.items())))
    assert neighbours(cites) == neighbours(reversed_cites)


def test_a_conversation_crowds_cite_relates_no_two_of_them() -> None:
    crowd = {f"A{i:03d}": frozenset({"x"}) for i in range(CROWD)}
    assert neighbours({**crowd, "B": frozenset({"x", "y"}), "C": frozenset({"y"})})["B"] == ("C",)


def seconds(n: int) -> float:
    crowd = {f"A{i}": frozenset({"x", f"y{i % 40}"}) for i in range(n)}
    return best_seconds(lambda _: neighbours(crowd), "")


@pytest.mark.slow  # timing
def test_neighbours_grow_about_linearly_with_the_articles() -> None:
    small, large = seconds(500), seconds(4000)
    assert large < 0.05 or large < 16 * small  # linear is 8x, quadratic 64x


def test_articles_linking_here_follow_those_sharing_a_conversation() -> None:
    cites = {"A": frozenset({"x"}), "B": frozenset({"x"}), "C": frozenset(), "D": frozenset()}
    found = neighbours(cites, {"A": frozenset({"D", "C", "B"})})
    assert found["A"] == ("B", "C", "D")
    assert found["C"] == ()


def test_a_link_from_an_unknown_article_or_itself_is_no_neighbour() -> None:
    cites = {"A": frozenset({"x"})}
    assert neighbours(cites, {"A": frozenset({"A", "Gone"})})["A"] == ()


def test_articles_discussed_together_follow_those_linking_here_either_way_round() -> None:
    cites = {"A": frozenset({"x"}), "B": frozenset({"x"}), "C": frozenset({"y"}), "D": frozenset()}
    found = neighbours(cites, {"A": frozenset({"D"})}, {"y": frozenset({"A", "C"})})
    assert found["A"] == ("B", "D", "C")
    assert found["C"] == ("A",)  # its conversation names A


def test_a_conversation_naming_a_crowd_of_articles_relates_none_of_them() -> None:
    many = {f"N{i:02d}": frozenset({f"c{i}"}) for i in range(CROWD)}
    found = neighbours(many, None, {"c0": frozenset(many)})
    assert found["N00"] == ()
    assert found["N01"] == ()


def test_a_see_also_section_goes_before_references() -> None:
    out = with_see_also(ARTICLE, ["Dolt", "Steve_Yegge"])
    assert see_also(parse(out)) == ["Dolt", "Steve_Yegge"]
    assert "## See also\n\n- [[Dolt]]\n- [[Steve_Yegge|Steve Yegge]]\n\n## References" in out
    assert problems(parse(out), stem="Beads") == []


def test_every_byte_outside_the_new_section_is_kept() -> None:
    out = with_see_also(ARTICLE, ["Dolt"])
    assert out.replace("## See also\n\n- [[Dolt]]\n\n", "") == ARTICLE


def test_a_persons_see_also_keeps_their_items_and_gains_the_missing_ones() -> None:
    mine = ARTICLE.replace(
        "## References", "## See also\n\n- [[Gardening]]\n- [[Dolt]]\n\n## References"
    )
    out = with_see_also(mine, ["Dolt", "Rye"])
    assert see_also(parse(out)) == ["Gardening", "Dolt", "Rye"]


def test_an_item_written_as_a_title_counts_as_the_stem() -> None:
    mine = ARTICLE.replace("## References", "## See also\n\n- [[Steve Yegge]]\n\n## References")
    assert with_see_also(mine, ["Steve_Yegge"]) == mine


def test_nothing_to_add_is_the_text_itself() -> None:
    assert with_see_also(ARTICLE, []) == ARTICLE


def test_an_article_with_no_tail_sections_ends_with_see_also() -> None:
    out = with_see_also("# Beads\n\nBeads tracks issues.\n", ["Dolt"])
    assert out == "# Beads\n\nBeads tracks issues.\n\n## See also\n\n- [[Dolt]]\n"


def test_crlf_articles_stay_crlf() -> None:
    out = with_see_also(ARTICLE.replace("\n", "\r\n"), ["Dolt"])
    assert "\n" not in out.replace("\r\n", "")


STEMS = st.lists(st.sampled_from(["Dolt", "Steve_Yegge", "Beads", "Rye", "Gardening"]), max_size=4)
PIECES = [
    "## See also",
    "## References",
    "## Notes",
    "- [[Dolt]]",
    "```",
    "text",
    "\n",
    "\r\n",
    "# T",
]


@settings(max_examples=draws(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("\n".join), STEMS)
def test_adding_twice_is_adding_once_and_no_line_is_lost(text: str, stems: list[str]) -> None:
    once = with_see_also(text, stems)
    assert with_see_also(once, stems) == once
    # In order, every line that says something (blank lines at the end may go).
    kept = iter(once.splitlines())
    assert all(any(line == got for got in kept) for line in text.splitlines() if line.strip())
