"""Names discussed without an article: `resolve` says where they were said and which
article holds them, `search` lists them; a folded name resolves to its article."""

from __future__ import annotations

from dreaming.ledger import Ledger, chunks, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.subjects import Mention
from dreaming.query import Reader
from dreaming.vault import Vault
from tests.query_support import NOW, article, conversation, note, within_budget


def said(ledger: Ledger, hash8: str, *names: str) -> None:
    """A conversation whose one chunk named `names` (displayed as given)."""
    conv = conversation(ledger, hash8, [("user", " ".join(names)), ("assistant", "ok")])
    chunk = Chunk(conv, 0, 1, "a talk", "h", "seg-1")
    with ledger.transaction():
        chunks.replace(ledger, conv, [chunk], NOW)
        for name in names:
            key = name.casefold()
            subjects.add(ledger, key, name, NOW)
            subjects.set_status(ledger, key, "captured")
            subjects.mention(ledger, Mention(chunk.id, key, name, False))


def test_a_captured_name_resolves_to_the_conversations_that_named_it(
    vault: Vault, ledger: Ledger
) -> None:
    said(ledger, "aaaa1111", "Sonnet")
    result = within_budget(Reader(vault, ledger).resolve("sonnet"))
    assert "has no article: it was captured" in result.text
    assert "conv:aaaa1111" in result.text
    assert result.data["how"] == "captured"
    assert result.data["stem"] is None


def test_a_captured_name_points_at_the_article_citing_most_of_its_conversations(
    vault: Vault, ledger: Ledger
) -> None:
    said(ledger, "aaaa1111", "Sonnet")
    article(vault, "Claude", footnotes=(note(1, "aaaa1111"),))
    result = within_budget(Reader(vault, ledger).resolve("Sonnet"))
    assert result.data["stem"] == "Claude"
    assert "Next: read Claude" in result.text


def test_an_article_citing_half_of_them_or_fewer_is_no_home(vault: Vault, ledger: Ledger) -> None:
    said(ledger, "aaaa1111", "Sonnet")
    said(ledger, "bbbb2222", "Sonnet")
    article(vault, "Claude", footnotes=(note(1, "aaaa1111"),))
    assert Reader(vault, ledger).resolve("Sonnet").data["stem"] is None


def test_a_folded_name_resolves_to_the_article_it_was_folded_into(
    vault: Vault, ledger: Ledger
) -> None:
    said(ledger, "aaaa1111", "Haiku Model")
    article(vault, "Haiku")
    with ledger.transaction():
        subjects.redirect(ledger, "haiku model", "Haiku", "folded", NOW)
    result = within_budget(Reader(vault, ledger).resolve("Haiku Model"))
    assert result.data["stem"] == "Haiku"
    assert "folded into it" in result.text


def test_a_name_no_conversation_named_is_still_unknown(vault: Vault, ledger: Ledger) -> None:
    assert "No article named" in Reader(vault, ledger).resolve("Sonnet").text


def test_search_lists_captured_names_holding_its_words(vault: Vault, ledger: Ledger) -> None:
    said(ledger, "aaaa1111", "Plan Mode", "Sonnet")
    result = within_budget(Reader(vault, ledger).search("plan mode"))
    assert result.data["captured"] == ["Plan Mode"]
    assert "Named in conversations, no article: Plan Mode" in result.text


def test_search_lists_no_name_that_misses_a_word(vault: Vault, ledger: Ledger) -> None:
    said(ledger, "aaaa1111", "Plan Mode")
    assert Reader(vault, ledger).search("plan sonnet").data["captured"] == []


LONG_NAMES = tuple(f"Plan Mode {i} " + "x" * 400 for i in range(5))


def test_search_with_long_captured_names_and_no_hit_fits_the_budget(
    vault: Vault, ledger: Ledger
) -> None:
    said(ledger, "aaaa1111", *LONG_NAMES)
    result = within_budget(Reader(vault, ledger).search("plan mode"))
    assert "Named in conversations, no article: Plan Mode 0" in result.text


def test_search_with_long_captured_names_keeps_its_hits(vault: Vault, ledger: Ledger) -> None:
    said(ledger, "aaaa1111", *LONG_NAMES)
    article(vault, "Plan", footnotes=(note(1, "aaaa1111"),))
    result = within_budget(Reader(vault, ledger).search("plan"))
    assert "- Plan — " in result.text


def test_a_captured_name_in_many_conversations_still_names_its_long_home(
    vault: Vault, ledger: Ledger
) -> None:
    for i in range(60):
        said(ledger, f"{i:08x}", "Sonnet")
    stem = article(vault, "S" * 150, footnotes=tuple(note(i + 1, f"{i:08x}") for i in range(60)))
    result = within_budget(Reader(vault, ledger).resolve("Sonnet"))
    assert result.data["stem"] == stem
    assert result.text.endswith(f"Next: read {stem}")
