"""`source`: the cited conversation, message by message, paged."""

from __future__ import annotations

import pytest

from dreaming.ledger import Ledger
from dreaming.query import QueryError, Reader
from dreaming.vault import Vault
from tests.query_support import conversation, pages_of, within_budget


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    turns = [
        ("user" if i % 2 == 0 else "assistant", f"message {i} " + "é" * 100) for i in range(60)
    ]
    conversation(ledger, "0a1b2c3d", turns, conv_id="session-one")
    conversation(ledger, "ffff0000", [("user", "short one")])
    return Reader(vault, ledger)


@pytest.mark.parametrize(
    "ref", ["conv:ffff0000", "ffff0000", "`conv:ffff0000`", "session-ffff0000"]
)
def test_a_conversation_by_citation_hash_or_id(reader: Reader, ref: str) -> None:
    result = within_budget(reader.source(ref))
    assert result.data["hash8"] == "ffff0000"
    assert "[0] user: short one" in result.text


def test_messages_are_paged_in_order_exactly_once(reader: Reader) -> None:
    pages = pages_of(reader.source, conv="conv:0a1b2c3d")
    assert len(pages) > 2
    assert pages[0].next == "source conv:0a1b2c3d from=0 to=59 page=2"
    found = [
        line.split("]")[0] for p in pages for line in p.text.split("\n") if line.startswith("[")
    ]
    assert found == [f"[{i}" for i in range(60)]


def test_a_range_of_messages(reader: Reader) -> None:
    result = reader.source("0a1b2c3d", start=10, end=12)
    lines = [line for line in result.text.split("\n") if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == ["[10", "[11", "[12"]


def test_a_range_past_the_end_says_what_exists(reader: Reader) -> None:
    result = reader.source("ffff0000", start=5)
    assert "it has messages 0-0" in result.text


def test_an_unknown_conversation_says_what_to_ask(reader: Reader) -> None:
    result = within_budget(reader.source("conv:12345678"))
    assert result.data["id"] is None
    assert "conv:HASH" in result.text


@pytest.mark.parametrize(
    "ref",
    [
        "Raw/a.jsonl",
        "../../.dreaming/ledger.sqlite",
        "%",
        "0a1b",
        "' OR 1=1 --",
        "session-one' OR id LIKE '%",
        "conv:*",
    ],
)
def test_a_conversation_is_read_only_by_its_exact_id_or_hash(reader: Reader, ref: str) -> None:
    result = within_budget(reader.source(ref))
    assert result.data["id"] is None
    assert "[0]" not in result.text


def test_a_message_number_past_any_conversation_is_refused(reader: Reader) -> None:
    with pytest.raises(QueryError, match="start must be a whole number from 0 to 1,000,000,000"):
        reader.source("ffff0000", start=10**20)
    assert "it has messages 0-0" in reader.source("ffff0000", start=10**9).text
