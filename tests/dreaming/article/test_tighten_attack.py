"""Hostile articles for tighten, each from an attack that once broke it: what it must never
cut, lose, move or take quadratic time over."""

from __future__ import annotations

import random

import pytest

from dreaming.article import parse
from dreaming.article.gate import check
from dreaming.article.markup import markers
from dreaming.article.tighten import repeats, without
from tests.support import best_seconds

REFS = (
    "## References\n\n[^1]: `conv:aaaa1111` (2026-03-01, claude-code) — a talk\n"
    "[^2]: `conv:bbbb2222` (2026-04-01, claude-code) — another\n"
)
LEAD = "Beads is an issue tracker for coding agents.[^1]"


def article(lead: str, *sections: tuple[str, str]) -> str:
    body = "".join(f"## {h}\n\n{b}\n\n" for h, b in sections)
    return f"# Beads\n\n```info\nkind: thing\n```\n\n{lead}\n\n{body}{REFS}"


def tightened(text: str) -> tuple[str, tuple[str, ...]]:
    return without(text, repeats(parse(text)), "Beads")


# ---------------------------------------------------------------- promise 1


def test_a_sentence_naming_a_two_letter_language_is_no_repeat_of_one_naming_another() -> None:
    text = article(
        LEAD,
        ("Design", "Beads stores issues in Rust code.[^1]"),
        ("Use", "Agents claim work.[^1] Beads stores issues in Go code.[^2]"),
    )
    assert " Go " in tightened(text)[0]


def test_a_sentence_with_short_inline_code_is_no_repeat_of_one_with_other_code() -> None:
    text = article(
        LEAD,
        ("Design", "Run `br` to list ready work.[^1]"),
        ("Use", "Agents claim work.[^1] Run `bd` to list ready work.[^2]"),
    )
    assert "`bd`" in tightened(text)[0]


def test_a_sentence_holding_a_wikilink_keeps_its_link() -> None:
    text = article(
        LEAD,
        ("Design", "Beads stores issues in Dolt.[^1]"),
        ("Use", "Agents claim work.[^1] Beads stores issues in [[Dolt (database)|Dolt]].[^2]"),
    )
    assert "[[Dolt (database)|Dolt]]" in tightened(text)[0]


def test_a_date_whose_numbers_stand_in_another_order_is_no_repeat() -> None:
    text = article(
        LEAD,
        ("Design", "Beads shipped on 3/4/2026 after tests.[^1]"),
        ("Use", "Agents claim work.[^1] Beads shipped on 4/3/2026.[^2]"),
    )
    assert "4/3/2026" in tightened(text)[0]


def test_a_dropped_sentence_keeps_its_mid_sentence_marker() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Agents claim work.[^1] Beads[^2] uses hash ids."),
    )
    out, changed = tightened(text)
    assert "2" in markers(out)
    assert check(text, out, touched=changed, floor=0.0).ok


def test_an_abbreviation_inside_a_sentence_never_leaves_half_of_it() -> None:
    text = article(
        LEAD,
        ("Design", "Agents claim ready work.[^1]"),
        ("Use", "Beads keeps one queue, e.g. agents claim ready work.[^1]"),
    )
    assert "Beads keeps one queue, e.g. agents claim ready work.[^1]" in tightened(text)[0]


def test_a_comment_line_is_never_cut_into_visible_text() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Agents claim work.[^1]\n\n<!-- Beads uses hash ids. -->"),
    )
    assert "<!-- Beads uses hash ids. -->" in tightened(text)[0]


def test_sections_whose_headings_differ_only_in_case_keep_their_own_bodies() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1] Beads stores 40 tables.[^1]"),
        ("design", "Agents claim work.[^1] Beads uses hash ids.[^1]"),
    )
    assert "Beads stores 40 tables.[^1]" in tightened(text)[0]


# ---------------------------------------------------------------- promise 2


def test_a_marker_never_moves_into_a_comment() -> None:
    text = article(
        LEAD,
        ("Design", "Agents claim work.[^1]\n\n<!-- Beads uses hash ids. -->"),
        ("Use", "Agents close issues daily.[^1]\n\nBeads uses hash ids.[^2]"),
    )
    out, changed = tightened(text)
    assert check(text, out, touched=changed, floor=0.0).ok


# ---------------------------------------------------------------- promise 3


def test_a_sentence_renamed_from_it_is_already_tightened() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses ids.[^1]"),
        ("Use", "Beads is an issue tracker for coding agents. It uses ids. Agents claim work.[^1]"),
    )
    out = tightened(text)[0]
    assert tightened(out)[0] == out


# ---------------------------------------------------------------- promise 4


def test_a_section_headed_underscore_never_replaces_the_lead() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("_", "Agents claim work.[^1] Beads uses hash ids.[^1]"),
    )
    assert parse(tightened(text)[0]).lead == LEAD


def test_a_table_row_without_outer_pipes_is_never_cut() -> None:
    table = "Tool | Note\n--- | ---\nBeads uses hash ids. | yes"
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", f"Agents claim work.[^1]\n\n{table}"),
    )
    assert table in tightened(text)[0]


def test_a_lazy_continuation_line_of_a_quote_is_never_cut() -> None:
    quote = "> The docs say:\nBeads uses hash ids."
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", f"Agents claim work.[^1]\n\n{quote}"),
    )
    assert quote in tightened(text)[0]


def test_a_setext_heading_is_never_cut() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Agents claim work.[^1]\n\nBeads uses hash ids.\n---\n\nMore words here.[^1]"),
    )
    assert "Beads uses hash ids.\n---" in tightened(text)[0]


# ---------------------------------------------------------------- promise 5


def test_a_section_keeps_a_citation_marker_outside_code() -> None:
    text = article(
        LEAD,
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Type `[^1]` to cite a talk.\n\nBeads uses hash ids.[^2]"),
    )
    out = tightened(text)[0]
    use = next(s for s in parse(out).sections if s.heading == "Use")
    assert markers(use.body)


# ---------------------------------------------------------------- promise 7


def _long(n: int) -> str:
    rnd = random.Random(1)
    vocab = [f"w{i}x" for i in range(5000)]
    sections = []
    for s in range(n):
        said = [" ".join(rnd.choice(vocab) for _ in range(8)).capitalize() + "." for _ in range(12)]
        paragraphs = [" ".join(said[k : k + 4]) + "[^1]" for k in range(0, 12, 4)]
        paragraphs.append("Beads uses hash ids.[^1]")
        sections.append((f"Part {s}", "\n\n".join(paragraphs)))
    return article(LEAD, *sections)


@pytest.mark.slow  # timing
def test_tighten_time_grows_about_linearly_with_the_article() -> None:
    small, large = _long(6), _long(48)
    once = best_seconds(tightened, small)
    assert best_seconds(tightened, large) < 24 * once  # 8x the text: 8x the time


def _one_long_word(n: int) -> str:
    said = "Beads tracks issues for coding agents in " + "a" * n + ".[^1]"
    return article(LEAD, ("Use", f"{said}\n\n{said}"))


@pytest.mark.slow  # timing
def test_a_sentence_holding_one_huge_word_is_read_in_linear_time() -> None:
    small, large = _one_long_word(25_000), _one_long_word(100_000)
    once = best_seconds(tightened, small)
    assert best_seconds(tightened, large) < 8 * once + 0.05
