"""Summary style's pure half: a section moved into a child article keeps every word and
citation, and both articles pass the write gate."""

from __future__ import annotations

from collections.abc import Sequence

from dreaming.article import build, check, normalize, parse
from dreaming.article.markup import definitions
from dreaming.article.split import Split, split

REFS = (
    "[^1]: `conv:aaaa1111` (2026-03-01, chatgpt) — planning a shed\n"
    "[^2]: `conv:bbbb2222` (2026-04-01, chatgpt) — the felt roof\n"
    "[^3]: see the manual, page 4"
)


def unheaded(labels: Sequence[str], taken: Sequence[str]) -> str | None:
    return None


def roof_split(roof: str) -> tuple[str, Split]:
    text = build(
        "Garden Shed",
        lead="The Garden Shed is a wooden shed.[^1]",
        sections=[("Walls", "The walls are cedar.[^1]"), ("Roof", roof), ("References", REFS)],
        infobox={"kind": "project"},
    )
    article = parse(text)
    section = article.section("Roof")
    assert section is not None
    return text, split(article, section, "Roof", unheaded)


def test_a_persons_own_footnote_moves_with_the_words_that_cite_it() -> None:
    _, made = roof_split("The roof is felt.[^2] It is laid as the manual says.[^3]")
    child = parse(made.child).section("References")
    assert child is not None
    assert ("3", "see the manual, page 4") in {(d.label, d.text) for d in definitions(child.body)}


def test_a_child_citing_a_persons_own_footnote_passes_the_gate() -> None:
    _, made = roof_split("The roof is felt.[^2] It is laid as the manual says.[^3]")
    assert check(None, normalize(made.child, stem="Roof"), stem="Roof").ok


def test_an_indented_code_block_moves_byte_for_byte() -> None:
    code = "  ```\n  felt --nail 40mm\n\n  felt --check\n  ```"
    _, made = roof_split(f"The roof is felt.[^2]\n\n{code}\n\nIt is laid as the manual says.[^3]")
    assert code in made.child
