"""`read` and `section`: the TOC and lead, one section with its footnotes, paging."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.ledger import Ledger, nav_index
from dreaming.query import BUDGET, Reader
from dreaming.vault import Vault
from tests.query_support import article, note, pages_of, within_budget
from tests.support import draws


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    article(
        vault,
        "Ripgrep",
        lead="Ripgrep is the search tool the person uses.[^1]",
        sections=(
            ("Usage", "It searches fast.[^2]\n\n### Flags\n\nUse -uu for hidden files.[^2]"),
            ("History", "Adopted in 2024.[^3]"),
            ("Hobbies", "None."),
        ),
        footnotes=(note(1, "11111111"), note(2, "22222222"), note(3, "33333333")),
        see_also=("Fd",),
    )
    return Reader(vault, ledger)


def test_read_gives_title_toc_with_sizes_and_the_lead(reader: Reader) -> None:
    result = within_budget(reader.read("Ripgrep"))
    assert result.text.startswith("# Ripgrep\nstem: Ripgrep · kind: tool")
    assert "1. Usage (" in result.text
    assert "3. Hobbies (5 B)" in result.text
    assert "the search tool the person uses" in result.text
    assert [t["heading"] for t in result.data["toc"]] == [
        "Usage", "History", "Hobbies", "See also", "References",
    ]  # fmt: skip
    assert result.next is None


def test_read_accepts_a_name_for_the_stem(reader: Reader) -> None:
    assert reader.read("ripgrep").data["stem"] == "Ripgrep"


def test_a_section_carries_only_the_footnotes_it_cites(reader: Reader) -> None:
    result = within_budget(reader.section("Ripgrep", "usage"))
    assert result.text.startswith("## Usage — Ripgrep (Ripgrep)")
    assert "### Flags" in result.text
    assert "-uu" in result.text
    assert "conv:22222222" in result.text
    assert "conv:11111111" not in result.text
    assert "conv:33333333" not in result.text


@pytest.mark.parametrize(
    ("asked", "heading"),
    [("2", "History"), ("2.", "History"), ("hist", "History"), ("HOBBIES", "Hobbies")],
)
def test_a_heading_by_number_or_unique_prefix(reader: Reader, asked: str, heading: str) -> None:
    assert reader.section("Ripgrep", asked).data["heading"] == heading


def test_lead_is_a_section_too(reader: Reader) -> None:
    result = reader.section("Ripgrep", "lead")
    assert "search tool" in result.text
    assert "conv:11111111" in result.text


@pytest.mark.parametrize("asked", ["H", "Nope", "99", "../References"])
def test_an_unknown_or_ambiguous_heading_returns_the_toc(reader: Reader, asked: str) -> None:
    result = within_budget(reader.section("Ripgrep", asked))
    assert result.data["heading"] is None
    assert "No section" in result.text
    assert "1. Usage" in result.text


def test_an_unknown_stem_says_what_exists(reader: Reader) -> None:
    result = reader.section("Ripgrap", "Usage")
    assert "No article named" in result.text
    assert "Ripgrep" in result.text


def test_a_long_section_is_paged_at_line_boundaries(vault: Vault, ledger: Ledger) -> None:
    body = "\n\n".join(f"Paragraph {i} says something about ripgrep.[^1]" for i in range(200))
    article(vault, "Long", sections=(("Story", body),))
    reader = Reader(vault, ledger)
    pages = pages_of(reader.section, stem="Long", heading="Story")
    assert len(pages) > 3
    assert pages[0].next == 'section Long "Story" page=2'
    assert pages[0].text.endswith('→ more: section Long "Story" page=2')
    spans = [p.data["span"] for p in pages]
    assert spans[0][0] == 0
    assert spans[-1][1] == len(body)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all("conv:0a1b2c3d" in p.text for p in pages)
    assert all(p.text.split("\n")[1].startswith("Paragraph") for p in pages[1:])


def test_a_page_past_the_end_says_how_many(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Short", sections=(("Story", "One line."),))
    result = Reader(vault, ledger).section("Short", "Story", page=7)
    assert "no page 7: pages 1 to 1" in result.text


def test_full_text_is_paged_and_whole(vault: Vault, ledger: Ledger) -> None:
    body = "\n".join(f"- item {i} ü€𝄞" for i in range(400))
    article(vault, "Big", sections=(("Items", body),))
    reader = Reader(vault, ledger)
    pages = pages_of(reader.read, stem="Big", full=True)
    text = (vault.articles / "Big.md").read_text()
    assert "".join(text[p.data["span"][0] : p.data["span"][1]] for p in pages) == text
    assert pages[0].next == "read Big full page=2"


_text = (
    st.lists(
        st.sampled_from(["a", "b", " ", "\n", "é", "€", "𝄞", "[^1]", "-", "x" * 50, "y" * 3000])
    )
    .map("".join)
    .map(lambda s: s.replace("\n\n\n", "\n\n"))
)


@settings(
    max_examples=draws(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(words=st.integers(min_value=0, max_value=3000), extra=_text)
def test_paging_returns_the_section_exactly_once_within_the_budget(
    vault: Vault, ledger: Ledger, words: int, extra: str
) -> None:
    body = (" ".join(f"w{i}" for i in range(words)) + "\n" + extra).strip() or "x"
    article(vault, "Prop", sections=(("Part", body),))
    reader = Reader(vault, ledger)
    reader.index.refresh()
    stored = next(s.body for s in nav_index.sections(ledger, "Prop") if s.heading == "Part")
    pages = pages_of(reader.section, stem="Prop", heading="Part")
    assert all(p.size <= BUDGET for p in pages)
    assert "".join(stored[p.data["span"][0] : p.data["span"][1]] for p in pages) == stored
    for p in pages:
        start, end = p.data["span"]
        assert stored[start:end].strip() in p.text
