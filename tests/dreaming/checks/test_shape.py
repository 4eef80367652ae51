"""The wiki's shape: See-also coverage, links that reach an article, orphans, how
articles gather conversations, categories and Talk pages."""

from __future__ import annotations

from dreaming.checks.shape import Page, shape, shape_text


def page(
    stem: str,
    *,
    links: tuple[str, ...] = (),
    convs: tuple[str, ...] = (),
    aliases: tuple[str, ...] = (),
    see_also: int = 0,
    categories: int = 0,
    redirect_to: str | None = None,
) -> Page:
    names = (stem, stem.replace("_", " "), *aliases)
    return Page(names, links, see_also, categories, frozenset(convs), redirect_to)


def test_see_also_coverage_counts_articles_with_an_item_redirects_left_out() -> None:
    found = shape(
        {"A": page("A", see_also=2), "B": page("B"), "Old": page("Old", redirect_to="A")}, 0
    )
    assert found["see_also"] == {"hit": 1, "of": 2}


def test_a_link_counts_when_it_reaches_an_article_by_title_alias_or_redirect() -> None:
    pages = {
        "Claude_Code": page("Claude_Code", aliases=("claude -p",)),
        "Old": page("Old", redirect_to="Claude Code"),
        "Beads": page("Beads", links=("Claude Code", "claude -p", "Old", "Nowhere")),
    }
    # Three links, one article reached: links count the articles reached.
    assert shape(pages, 0)["links_per_article"] == 0.5


def test_an_article_nothing_links_to_is_an_orphan_and_a_neighbour_is_told_apart() -> None:
    pages = {
        "A": page("A", links=("B",), convs=("c1",)),
        "B": page("B", convs=("c1",)),
        "C": page("C", convs=("c2",)),
    }
    found = shape(pages, 0)
    assert (found["orphans"], found["orphans_with_neighbour"]) == (2, 1)  # A has B; C none


def test_a_link_to_itself_does_not_adopt_an_orphan() -> None:
    assert shape({"A": page("A", links=("A",))}, 0)["orphans"] == 1


def test_conversations_an_article_is_a_distribution() -> None:
    pages = {"A": page("A", convs=("c1",)), "B": page("B", convs=("c1", "c2")), "C": page("C")}
    assert shape(pages, 0)["conversations_per_article"] == {"0": 1, "1": 1, "2": 1}


def test_the_line_says_every_measure() -> None:
    line = shape_text(shape({"A": page("A", see_also=1, categories=2)}, 3))
    assert line.startswith("see also 1/1 = 100 %, links 0.0 an article, orphans 1")
    assert "categories 2.0 an article, talk pages 3" in line
