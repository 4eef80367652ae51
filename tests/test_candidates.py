"""The candidate proposer: what code offers the model to judge, from a chunk's text."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dreaming.candidates import MAX_CANDIDATES, propose
from dreaming.subjects import AliasIndex
from tests.support import best_seconds

NO_INDEX = AliasIndex()


def keys(text: str, index: AliasIndex = NO_INDEX, limit: int = 50) -> list[str]:
    return [c.key for c in propose(text, index, limit)]


def test_backticked_identifiers_are_candidates() -> None:
    found = keys("Call `frobnicate_widget()` and then `widgetlib.render`.")
    assert "frobnicate widget" in found
    assert "widgetlib render" in found


def test_flags_variables_and_expressions_in_backticks_are_not() -> None:
    assert keys("Pass `--verbose`, set `$HOME_DIR`, write `x = y + 1`.") == []


def test_installed_packages_are_candidates_without_versions_or_flags() -> None:
    found = keys("Run:\npip install -U widgetlib==2.1 gadgetkit[extra]\nnpm i @scope/thinger")
    assert {"widgetlib", "gadgetkit", "scope thinger"} <= set(found)
    assert not any(k.startswith("u") and len(k) == 1 for k in found)


def test_imported_modules_are_candidates_by_their_top_package() -> None:
    found = keys("import widgetlib.core as w\nfrom gadgetkit.sub import part\n")
    assert {"widgetlib", "gadgetkit"} <= set(found)


def test_capitalised_phrases_are_candidates() -> None:
    assert "thing alpha server" in keys("We tried the Thing Alpha Server yesterday.")


def test_a_capitalised_word_mid_sentence_is_a_candidate_a_sentence_start_is_not() -> None:
    found = keys("Mostly we used Gizmo for this.")
    assert "gizmo" in found
    assert "mostly" not in found


def test_mixed_case_words_are_candidates_even_at_a_sentence_start() -> None:
    assert "gizmoDB".casefold() in keys("GizmoDB stores it.")


def test_stop_words_and_generic_nouns_are_not_candidates() -> None:
    text = "The Platform. This Function is The Problem. `data` and `file`. Monday."
    assert keys(text) == []


def test_file_names_and_web_hosts_are_candidates() -> None:
    found = keys("Edit settings.toml and see https://www.example.org/docs for more.")
    assert "settings toml" in found
    assert "example org" in found


def test_known_names_are_found_in_any_spelling_and_ranked_first() -> None:
    index = AliasIndex.build([("tapp", "Thing Alpha")])
    found = propose("we like the tapp, Gizmo and Gadget Works do too", index)
    assert found[0].key == "thing alpha"
    assert found[0].display == "Thing Alpha"
    assert found[0].surface == "tapp"


def test_spellings_of_one_subject_are_one_candidate_counted_together() -> None:
    found = propose("Use `gizmo`. Then Gizmo again, and gizmo's docs.", NO_INDEX)
    gizmo = [c for c in found if c.key == "gizmo"]
    assert len(gizmo) == 1
    assert gizmo[0].count == 2


def test_frequent_candidates_rank_above_rare_ones() -> None:
    text = "We used Gadget once. " + "Then Gizmo. " * 5
    assert keys(text)[0] == "gizmo"


def test_candidates_are_capped() -> None:
    text = " ".join(f"use `widget_{i}`" for i in range(40))
    assert len(propose(text, NO_INDEX)) == MAX_CANDIDATES


N = 2000
FLOOR_S = 0.05
MAX_RATIO = 64.0
INDEX = AliasIndex.build([(f"alias {i}", f"Title {i}") for i in range(200)])
CASES: dict[str, Callable[[int], str]] = {
    "capitalised run": lambda n: "Aa " * n,
    "capitalised words no spaces": lambda n: "A" * n,
    "backticks unclosed": lambda n: "`a" * n,
    "install line": lambda n: "pip install " + "a " * n,
    "install repeated": lambda n: "pip install " * n,
    "imports": lambda n: "import a.b\n" * n,
    "url host": lambda n: "https://" + "a." * n,
    "file-ish": lambda n: "a-" * n + ".py",
    "apostrophes": lambda n: "A'" * n,
    "known words": lambda n: "alias 1 " * n,
    "sentence ends": lambda n: ". A" * n,
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_proposer_runs_in_linear_time(name: str) -> None:
    make = CASES[name]
    times = [best_seconds(lambda t: propose(t, INDEX), make(n)) for n in (N, 4 * N, 16 * N)]
    assert times[2] < FLOOR_S or times[2] < MAX_RATIO * max(times[0], 1e-4), times
