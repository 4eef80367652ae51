"""The wiki's one language: named on the Article_Conventions page, and a drafted text
in another one told apart by script and function words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dreaming import languages
from dreaming.languages import ENGLISH, named, of_conventions, written_in
from dreaming.policy.checks import check_page
from dreaming.resources import data_dir

DUTCH = "De gesprekken gaan over het voorbereiden van een sollicitatie en dat is niet makkelijk."
ENGLISH_TEXT = "The fix was to disable the rule in the config file, and it is working now."
RUSSIAN = "Переключатель языков добавлен в правый верхний угол страницы."


def shipped(name: str) -> str:
    return (data_dir("meta_templates") / f"{name}.md").read_text(encoding="utf-8")


def test_english_text_is_english() -> None:
    assert written_in(ENGLISH_TEXT, ENGLISH)


def test_a_dutch_paragraph_is_not_english() -> None:
    assert not written_in(DUTCH, ENGLISH)


def test_a_dutch_paragraph_is_dutch() -> None:
    dutch = named("Dutch")
    assert dutch is not None
    assert written_in(DUTCH, dutch)


def test_cyrillic_text_is_not_english_and_english_is_not_russian() -> None:
    russian = named("ru")
    assert russian is not None
    assert not written_in(RUSSIAN, ENGLISH)
    assert not written_in(ENGLISH_TEXT, russian)


def test_an_english_sentence_naming_a_foreign_subject_stays_english() -> None:
    assert written_in("The Dutch word sollicitatiegesprek means a job interview.", ENGLISH)


def test_the_shipped_page_names_english_and_is_in_force() -> None:
    page = shipped("Article_Conventions")
    assert of_conventions(page) == ENGLISH
    assert check_page("Article_Conventions", page.encode()) == []


def test_a_page_naming_another_language_puts_it_in_force() -> None:
    page = shipped("Article_Conventions").replace("```language\nEnglish", "```language\nnl")
    assert of_conventions(page).name == "Dutch"
    assert check_page("Article_Conventions", page.encode()) == []


def test_an_unknown_language_is_a_problem_that_names_the_ones_dreaming_writes() -> None:
    page = shipped("Article_Conventions").replace("```language\nEnglish", "```language\nKlingon")
    (problem,) = check_page("Article_Conventions", page.encode())
    assert "'Klingon' is not one dreaming writes; use one of English, Dutch" in problem


def test_a_page_from_before_the_language_block_is_in_force_and_english() -> None:
    page = shipped("Article_Conventions").replace("```language\nEnglish\n```\n", "")
    assert check_page("Article_Conventions", page.encode()) == []
    assert of_conventions(page) == ENGLISH


@given(st.text(max_size=500), st.sampled_from(languages.LANGUAGES))
def test_the_check_never_raises(text: str, lang: languages.Language) -> None:
    written_in(text, lang)
