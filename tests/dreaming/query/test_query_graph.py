"""`links`, `infobox`, `list`, `category` and `status`."""

from __future__ import annotations

import pytest

from dreaming.ledger import Ledger, runs
from dreaming.ledger.runs import Run
from dreaming.query import Reader
from dreaming.vault import Vault
from tests.query_support import article, conversation, pages_of, within_budget, write


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    article(
        vault,
        "Ripgrep",
        lead="Ripgrep is like [[Grep]] and used by [[Claude Code]].[^1]",
        infobox={"kind": "tool", "type": "cli", "aliases": "rg"},
        see_also=("Fd",),
        categories=("Search Tools",),
    )
    article(vault, "Grep", lead="Grep predates [[ripgrep]].[^1]", categories=("Search Tools",))
    article(vault, "Fd", lead="Fd finds files; see [[rg]].[^1]", infobox={"kind": "tool"})
    write(vault, "Rip", "# Rip\n\n*Redirects to [[Ripgrep]].*\n")
    article(vault, "Notes", lead="Mentions [[Rip]].[^1]", infobox={"kind": "thing"})
    return Reader(vault, ledger)


def test_links_out_in_and_see_also(reader: Reader) -> None:
    result = within_budget(reader.links("Ripgrep"))
    assert result.data["see_also"] == ["Fd"]
    assert result.data["out"] == ["Claude Code (no article)", "Grep"]
    assert result.data["in"] == ["Fd", "Grep", "Notes", "Rip"]


def test_a_link_to_an_article_written_later_is_found(vault: Vault, reader: Reader) -> None:
    article(vault, "Claude Code")
    assert reader.links("Ripgrep").data["out"] == ["Claude_Code", "Grep"]
    assert reader.links("Claude_Code").data["in"] == ["Ripgrep"]


def test_many_links_are_paged(vault: Vault, ledger: Ledger) -> None:
    lead = " ".join(f"[[Thing number {i}]]" for i in range(300)) + "[^1]"
    article(vault, "Hub", lead=lead)
    pages = pages_of(Reader(vault, ledger).links, stem="Hub")
    assert len(pages) > 1
    assert pages[0].next == "links Hub page=2"


def test_infobox_fields(reader: Reader) -> None:
    result = within_budget(reader.infobox("Ripgrep"))
    assert result.data["fields"] == [["kind", "tool"], ["type", "cli"], ["aliases", "rg"]]
    assert "- aliases: rg" in result.text
    assert "(no infobox)" in reader.infobox("Rip").text


def test_list_by_kind_type_and_category(reader: Reader) -> None:
    assert reader.list_by(kind="tool").data["stems"] == ["Fd", "Grep", "Ripgrep"]
    assert reader.list_by(kind="TOOL").data["stems"] == ["Fd", "Grep", "Ripgrep"]
    assert reader.list_by(type="cli").data["stems"] == ["Ripgrep"]
    assert reader.list_by(category="search tools").data["stems"] == ["Grep", "Ripgrep"]


def test_list_without_a_filter_says_what_exists(reader: Reader) -> None:
    text = reader.list_by().text
    assert "kinds: thing (1), tool (3)" in text
    assert "Search Tools (2)" in text


def test_an_unknown_kind_lists_the_kinds(reader: Reader) -> None:
    result = reader.list_by(kind="planet")
    assert result.data["stems"] == []
    assert "tool (3)" in result.text


def test_category_by_any_spelling(reader: Reader) -> None:
    assert reader.category("Category:Search_Tools").data["stems"] == ["Grep", "Ripgrep"]
    unknown = reader.category("Nope")
    assert unknown.data["stems"] == []
    assert "Search Tools" in unknown.text


def test_a_long_list_is_paged(vault: Vault, ledger: Ledger) -> None:
    for i in range(150):
        article(vault, f"Tool number {i:03d}", infobox={"kind": "tool"})
    pages = pages_of(Reader(vault, ledger).list_by, kind="tool")
    stems = [line for p in pages for line in p.text.split("\n") if line.startswith("- ")]
    assert len(stems) == 150
    assert pages[0].next == 'list kind="tool" page=2'


def test_status_counts_and_the_last_run(reader: Reader, ledger: Ledger) -> None:
    conversation(ledger, "0a1b2c3d", [("user", "hi"), ("assistant", "hello")])
    runs.put(ledger, Run("r1", "night", "2026-03-01T03:00:00+00:00", None, "running"))
    result = within_budget(reader.status())
    assert result.data["articles"] == 4
    assert result.data["redirects"] == 1
    assert result.data["conversations"] == 1
    assert result.data["messages"] == 2
    assert result.data["last_run"]["status"] == "running"
    assert "last run: night running" in result.text


def test_list_filters_given_together_must_all_hold(reader: Reader) -> None:
    assert reader.list_by(kind="tool", type="cli").data["stems"] == ["Ripgrep"]
    assert reader.list_by(kind="tool", category="Search Tools").data["stems"] == [
        "Grep",
        "Ripgrep",
    ]
    assert reader.list_by(type="cli", category="search tools").data["stems"] == ["Ripgrep"]
    none = reader.list_by(kind="thing", type="cli")
    assert none.data["stems"] == []
    assert 'No article has kind "thing" and type "cli"' in none.text


def test_a_list_page_carries_only_its_own_stems(vault: Vault, ledger: Ledger) -> None:
    for i in range(120):
        article(vault, f"Tool Number {i:03}", infobox={"kind": "tool"})
    pages = pages_of(Reader(vault, ledger).list_by, kind="tool")
    assert len(pages) > 1
    stems = [s for p in pages for s in p.data["stems"]]
    assert stems == [f"Tool_Number_{i:03}" for i in range(120)]
    for p in pages:
        assert all(f"- {s} —" in p.text for s in p.data["stems"])
    assert pages[0].next == 'list kind="tool" page=2'
