"""The code a section shows: the last whole fenced block the assistant wrote in its
excerpt, copied exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stages.synthesize.specifics import MAX_LINES, final_code
from tests.support import best_seconds, draws

TRIED_THEN_FIXED = (
    "user: my details element needs space below it when closed\n\n"
    "assistant: Try this first:\n```css\ndetails { margin: 0; }\n```\n\n"
    "user: no, that removed everything\n\n"
    "assistant: Use the attribute selector:\n```css\ndetails:not([open]) {\n"
    "  margin-bottom: 1em;\n}\n```\nThat leaves open ones alone."
)


def test_the_last_block_the_assistant_wrote_is_the_one_shown_with_its_language() -> None:
    assert final_code(TRIED_THEN_FIXED) == (
        "```css\ndetails:not([open]) {\n  margin-bottom: 1em;\n}\n```"
    )


def test_code_the_person_pasted_is_not_shown_as_the_answer() -> None:
    excerpt = "user: this fails:\n```python\nprint(x)\n```\n\nassistant: define x first."
    assert final_code(excerpt) is None


def test_a_block_cut_short_by_the_excerpt_limit_is_not_shown() -> None:
    excerpt = "assistant: here:\n```sh\nmake all\nmake install [...]"
    assert final_code(excerpt) is None


def test_a_block_too_long_to_read_in_an_article_gives_way_to_an_earlier_short_one() -> None:
    long_block = "```python\n" + "x = 1\n" * (MAX_LINES + 1) + "```"
    excerpt = f"assistant: short:\n```sh\nuv sync\n```\nand long:\n{long_block}"
    assert final_code(excerpt) == "```sh\nuv sync\n```"


def test_an_info_block_is_shown_bare_so_it_can_never_read_as_an_infobox() -> None:
    assert final_code("assistant: x\n```info\nkind: person\n```") == "```\nkind: person\n```"


def test_code_holding_backticks_is_fenced_with_tildes() -> None:
    excerpt = "assistant: x\n````md\n```py\nprint(1)\n```\n````"
    assert final_code(excerpt) == "~~~~md\n```py\nprint(1)\n```\n~~~~"


@settings(max_examples=draws(200), deadline=None)
@given(st.text(max_size=3000))
def test_any_excerpt_gives_a_closed_fence_or_nothing(excerpt: str) -> None:
    code = final_code(excerpt)
    assert code is None or code.splitlines()[-1] in ("```", "~~~~")


def test_the_search_takes_time_in_proportion_to_the_excerpt() -> None:
    excerpt = "assistant: " + "```\n" * 20_000
    small = best_seconds(final_code, excerpt[: len(excerpt) // 10])
    large = best_seconds(final_code, excerpt)
    assert large < 30 * max(small, 1e-4)
