"""Subject names: one key for the spellings of one name, different keys for different
names, and aliases only where a person or an article declared them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreaming.subjects.names import AliasIndex, canonical, declared_aliases, display
from dreaming.vault import Vault


@given(st.text(max_size=60))
def test_a_key_is_its_own_key(name: str) -> None:
    assert canonical(canonical(name)) == canonical(name)


@given(st.text(max_size=60).filter(lambda s: any(ch.isalnum() for ch in s)))
def test_a_name_with_letters_or_digits_has_a_key(name: str) -> None:
    assert canonical(name).strip()


@pytest.mark.parametrize(
    "variant",
    ["Thing Alpha", "thing alpha", "THING ALPHA", "The Thing Alpha", "thing alpha's",
     "Thing Alpha\u2019s", "  Thing   Alpha ", "thing-alpha", "Thing_Alpha", "a thing alpha",
     "Thing, Alpha."],
)  # fmt: skip
def test_spellings_of_one_name_share_a_key(variant: str) -> None:
    assert canonical(variant) == "thing alpha"


@pytest.mark.parametrize(
    ("one", "other"),
    [("Go", "Google"), ("C", "C++"), ("C", "C#"), ("C++", "C#"), ("Rust", "Rusty"),
     ("Thing", "Things Alpha"), ("Node", "Node.js")],
)  # fmt: skip
def test_different_names_keep_different_keys(one: str, other: str) -> None:
    assert canonical(one) != canonical(other)


def test_an_article_alone_is_a_name() -> None:
    assert canonical("The") == "the"
    assert canonical("A") == "a"


def test_a_plural_possessive_keeps_its_plural() -> None:
    assert canonical("Makers'") == "makers"


def test_the_entities_page_declares_aliases_in_its_block() -> None:
    page = (
        "# Entities\n\nprose => Not An Alias\n\n```aliases\n# a comment => Nothing\n"
        "<Other name> => <Canonical Title>\nthing a => Thing Alpha\nno arrow here\n```\n"
    )
    assert declared_aliases(page) == [("thing a", "Thing Alpha")]


def test_the_entities_page_of_a_new_vault_declares_no_alias(vault: Vault) -> None:
    assert declared_aliases((vault.meta / "Entities.md").read_text(encoding="utf-8")) == []


def test_a_declared_alias_resolves_to_its_title() -> None:
    index = AliasIndex.build([("ta", "Thing Alpha")])
    assert index.resolve("TA") == ("thing alpha", "Thing Alpha")
    assert index.resolve("the thing alpha") == ("thing alpha", "Thing Alpha")


def test_an_unknown_name_is_its_own_subject() -> None:
    index = AliasIndex.build([("ta", "Thing Alpha")])
    assert index.resolve("The Thing Beta") == ("thing beta", "Thing Beta")


def test_a_person_s_alias_wins_over_an_article_s() -> None:
    index = AliasIndex.build([("tb", "Thing Beta")], [("tb", "Thing Alpha")])
    assert index.resolve("tb") == ("thing beta", "Thing Beta")


def test_an_article_title_is_known_by_its_own_name() -> None:
    index = AliasIndex.build(articles=[("Thing A", "Thing Alpha")])
    assert index.resolve("Thing Alpha") == ("thing alpha", "Thing Alpha")
    assert index.resolve("thing a") == ("thing alpha", "Thing Alpha")


@pytest.mark.parametrize(
    ("surface", "shown"),
    [("Thing A's", "Thing A"), ("Thing A\u2019s", "Thing A"), ("the Things'", "Things")],
)
def test_a_name_is_shown_without_its_possessive(surface: str, shown: str) -> None:
    assert display(surface) == shown


def test_an_article_before_punctuation_only_is_the_name() -> None:
    assert display("A :") == "A :"
    assert canonical(display("A :")) == canonical("A :")


@given(st.text(max_size=40))
def test_a_shown_name_keeps_its_key(name: str) -> None:
    assert canonical(display(name)) == canonical(name)
