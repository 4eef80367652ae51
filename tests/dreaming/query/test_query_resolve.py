"""`resolve`: a name → the one article through the index; never a path."""

from __future__ import annotations

import pytest

from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.vault import Vault
from tests.query_support import article, examples, within_budget, write


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    examples(vault)
    article(vault, "Ripgrep", infobox={"kind": "tool", "aliases": "rg, Ripgrep CLI"})
    article(vault, "Café Crème", infobox={"kind": "place"})
    write(vault, "Rg_Old", "# Rg Old\n\n*Redirects to [[Ripgrep]].*\n")
    return Reader(vault, ledger)


@pytest.mark.parametrize(
    "name", ["Ripgrep", "ripgrep", "  RIPGREP ", "rg", "ripgrep-cli", "The Ripgrep's"]
)
def test_a_title_or_alias_in_any_case_and_punctuation(reader: Reader, name: str) -> None:
    result = within_budget(reader.resolve(name))
    assert result.data["stem"] == "Ripgrep"
    assert "read Ripgrep" in result.text


def test_diacritics_and_the_stem_resolve(reader: Reader) -> None:
    assert reader.resolve_stems("café crème") == ["Café_Crème"]
    assert reader.resolve_stems("Café_Crème") == ["Café_Crème"]


def test_a_redirect_leads_to_its_target(reader: Reader) -> None:
    result = reader.resolve("rg old")
    assert result.data["stem"] == "Ripgrep"
    assert "redirect from Rg_Old" in result.text


def test_a_redirect_created_before_its_target_is_followed_once_the_target_exists(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Old_Name", "# Old Name\n\n*Redirects to [[New Name]].*\n")
    reader = Reader(vault, ledger)
    assert "which has no article" in reader.resolve("old name").text
    article(vault, "New Name")
    assert reader.resolve_stems("old name") == ["New_Name"]


def test_an_ambiguous_name_lists_the_candidates(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Mercury Planet", infobox={"kind": "place", "aliases": "Mercury"})
    article(vault, "Mercury Element", infobox={"kind": "thing", "aliases": "Mercury"})
    result = within_budget(Reader(vault, ledger).resolve("mercury"))
    assert result.data["stem"] is None
    assert result.data["candidates"] == ["Mercury_Element", "Mercury_Planet"]
    assert "pick one" in result.text


def test_an_exact_stem_wins_over_a_name_in_another_case(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Go")
    write(vault, "GO", "# GO\n\nThe board game.\n")
    assert Reader(vault, ledger).resolve_stems("GO") == ["GO"]


def test_an_unknown_name_offers_the_nearest_names_and_search(reader: Reader) -> None:
    result = within_budget(reader.resolve("ripgrp"))
    assert result.data["stem"] is None
    assert result.data["nearest"][0] == "Ripgrep"
    assert 'search "ripgrp"' in result.text


def test_nothing_near_says_search(reader: Reader) -> None:
    result = reader.resolve("zzqx")
    assert result.data["nearest"] == []
    assert "No article named" in result.text


@pytest.mark.parametrize(
    "name",
    [
        "../x",
        "/etc/passwd",
        ".dreaming/ledger",
        ".dreaming/ledger.sqlite",
        "a/../../b",
        ".git/config",
        "x\0y",
        "n" * 1000,  # longer is refused unread (tests/watcher/test_mcp_budget.py)
        "",
        "   ",
    ],
)
def test_path_like_names_resolve_only_through_the_index(reader: Reader, name: str) -> None:
    for result in (
        reader.resolve(name),
        reader.read(name),
        reader.read(name, full=True),
        reader.section(name, "x"),
        reader.links(name),
        reader.infobox(name),
        reader.category(name),
        reader.source(name),
    ):
        within_budget(result)
        assert "SQLite format" not in result.text
        assert "[core]" not in result.text
        assert "root:" not in result.text
        assert result.data.get("stem") in (None, "Ripgrep")


STUB = (
    "# Beads\n\nBeads is an issue tracker for coding agents.[^1]\n\n{{stub}}\n\n"
    "## References\n\n[^1]: `conv:aaaa1111` (2026-03-01, claude-code) — a talk\n"
)


def test_a_stub_s_lead_is_shown_without_its_stub_mark(vault: Vault, ledger: Ledger) -> None:
    write(vault, "Beads", STUB)
    reader = Reader(vault, ledger)
    for shown in (reader.resolve("beads"), reader.search("issue tracker"), reader.takeoff("beads")):
        assert "issue tracker for coding agents" in shown.text
        assert "{{stub}}" not in shown.text
