"""`search`: BM25 over FTS5, title first, hostile input as plain words."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.query.search import SNIPPET_BYTES, match_expression
from dreaming.vault import Vault
from tests.query_support import article, examples, within_budget
from tests.support import draws


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    examples(vault)
    article(vault, "Tailscale", lead="Tailscale is the VPN the person runs at home.[^1]")
    for i in range(5):
        article(
            vault,
            f"Home Server {i}",
            lead="A machine at home.[^1]",
            sections=(("Network", "It reaches the others over tailscale, tailscale, tailscale."),),
        )
    return Reader(vault, ledger)


def test_the_titled_article_ranks_first(reader: Reader) -> None:
    assert reader.search_stems("tailscale")[0] == "Tailscale"


def test_an_alias_ranks_like_a_title(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Wireguard", infobox={"kind": "tool", "aliases": "wg"})
    article(vault, "Config", lead="Set wg wg wg in the file.[^1]")
    assert Reader(vault, ledger).search_stems("wg")[0] == "Wireguard"


def test_diacritics_do_not_matter(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Cafe Notes", lead="The café on the corner.[^1]")
    assert Reader(vault, ledger).search_stems("cafe corner") == ["Cafe_Notes"]


def test_each_hit_names_the_section_with_a_short_snippet(reader: Reader) -> None:
    result = within_budget(reader.search("reaches the others"))
    hit = result.text.split("\n")[1]
    assert hit.startswith("- Home_Server_")
    assert " — Network: " in hit
    snippet = hit.split(": ", 1)[1]
    assert len(snippet.encode()) <= SNIPPET_BYTES


def test_one_hit_an_article_and_the_limit(reader: Reader) -> None:
    stems = reader.search_stems("tailscale", limit=3)
    assert len(stems) == 3 == len(set(stems))


def test_no_words_and_no_match_say_so(reader: Reader) -> None:
    assert "holds no words" in reader.search("?!* ").text
    assert "no article matches" in reader.search("zzqxv").text


@pytest.mark.parametrize(
    "text",
    ['"', "NEAR(a b)", "title:tailscale", "a AND OR NOT", "*", "-x", "^x", "{a b}", "x'); DROP"],
)
def test_fts_syntax_is_data(reader: Reader, text: str) -> None:
    within_budget(reader.search(text))


@settings(
    max_examples=draws(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.text(max_size=300))
def test_any_query_never_raises(reader: Reader, text: str) -> None:
    within_budget(reader.search(text))


def test_the_match_expression_quotes_every_word() -> None:
    assert match_expression('tail"scale NEAR x') == '"tail" OR "scale" OR "near" OR "x"'


def test_the_article_whose_prose_holds_every_word_outranks_titles_holding_some(
    vault: Vault, ledger: Ledger
) -> None:
    # At scale many titles hold one query word each; BM25 weighs a title so much that
    # they buried the one article that mentions both words together.
    for i in range(100):
        article(vault, f"Quokka Note {i}", lead=f"Quokka Note {i} is a tool the person uses.[^1]")
        article(vault, f"Zephyr Note {i}", lead=f"Zephyr Note {i} is a tool the person uses.[^1]")
    gold = article(
        vault,
        "Garden Log",
        lead="Garden Log is a diary the person keeps.[^1]",
        sections=(("History", "The beds were dug in spring. " * 12 + "A quokka met a zephyr."),),
    )
    reader = Reader(vault, ledger)
    assert reader.search_stems("quokka zephyr")[0] == gold
    assert reader.search_stems("Quokka Note 7")[0] == "Quokka_Note_7"
