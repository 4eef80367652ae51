"""Tighten's text half: a body sentence that repeats an earlier one goes, its citation
kept; nothing is reworded, so no number, name or code can be lost."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article import parse
from dreaming.article.gate import check
from dreaming.article.tighten import repeats, without

REFS = "## References\n\n[^1]: `conv:aaaa1111` (2026-03-01, claude-code) — a talk\n"
REFS2 = REFS + "[^2]: `conv:bbbb2222` (2026-04-01, claude-code) — another\n"


def article(lead: str, *sections: tuple[str, str], refs: str = REFS) -> str:
    body = "".join(f"## {h}\n\n{b}\n\n" for h, b in sections)
    return f"# Beads\n\n```info\nkind: thing\n```\n\n{lead}\n\n{body}{refs}"


def tightened(text: str, *, near: bool = False) -> str:
    found = [r for r in repeats(parse(text)) if r.sure or near]
    return without(text, found, "Beads")[0]


def test_a_section_opening_with_the_lead_sentence_loses_it_and_the_next_names_the_subject() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads is an issue tracker for coding agents. It uses hash ids.[^1]"),
    )
    out = tightened(text)
    assert "## Design\n\nBeads uses hash ids.[^1]\n" in out
    assert check(text, out, touched=["Design"], floor=0.0).ok


def test_a_repeat_citing_what_the_earlier_sentence_does_not_gives_it_that_citation() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Agents claim work. Beads uses hash ids.[^2]"),
        refs=REFS2,
    )
    out, changed = without(text, repeats(parse(text)), "Beads")
    assert "## Design\n\nBeads uses hash ids.[^1]\n" in out
    assert "## Use\n\nAgents claim work.[^2]\n" in out
    assert set(changed) == {"Use"}
    assert check(text, out, touched=changed, floor=0.0).ok


def test_a_sentence_only_repeating_gives_its_citation_to_the_one_it_repeats() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads uses hash ids.[^1]"),
        ("Use", "Agents claim work.[^1]\n\nBeads uses hash ids.[^2]"),
        refs=REFS2,
    )
    out, changed = without(text, repeats(parse(text)), "Beads")
    assert "## Design\n\nBeads uses hash ids.[^1][^2]\n" in out
    assert set(changed) == {"Use", "Design"}
    assert check(text, out, touched=changed, floor=0.0).ok


def test_a_dropped_sentence_hands_its_marker_to_the_unmarked_sentence_before_it() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads uses hash ids.[^1] Agents claim work. Beads uses hash ids.[^1]"),
    )
    assert "## Design\n\nBeads uses hash ids.[^1] Agents claim work.[^1]\n" in tightened(text)


def test_a_lead_sentence_said_again_inside_a_section_is_no_repeat() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads uses hash ids. Beads is an issue tracker for coding agents.[^1]"),
    )
    assert repeats(parse(text)) == []


def test_a_sentence_with_a_number_the_earlier_lacks_stays() -> None:
    text = article(
        "The shed needs pine boards.[^1]", ("Plan", "The shed needs 40 pine boards.[^1]")
    )
    assert repeats(parse(text)) == []


def test_a_sentence_that_negates_the_earlier_one_stays() -> None:
    text = article(
        "The user runs Docker for deployment.[^1]",
        ("Later", "The user never runs Docker for deployment.[^1]"),
    )
    assert repeats(parse(text)) == []


def test_a_near_repeat_is_for_the_model_not_dropped_by_code() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads is an issue tracker for coding agents on laptops.[^1]"),
    )
    (r,) = repeats(parse(text))
    assert not r.sure
    assert tightened(text) == text


def test_a_section_left_with_nothing_keeps_its_sentence() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads is an issue tracker for coding agents.[^1]"),
    )
    assert tightened(text) == text


def test_a_section_left_with_only_its_code_keeps_its_sentence() -> None:
    code = "```sh\nbd ready\n```"
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Use", f"Beads is an issue tracker for coding agents.[^1]\n\n{code}"),
    )
    assert tightened(text) == text


def test_a_section_left_with_no_citation_keeps_its_sentences() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Use", "Beads uses hash ids.\n\nBeads is an issue tracker for coding agents.[^1]"),
    )
    assert tightened(text) == text


def test_lists_quotes_history_and_see_also_are_never_touched() -> None:
    lead = "Beads is an issue tracker for coding agents.[^1]"
    text = article(
        lead,
        ("Items", f"- {lead}\n\n> {lead}"),
        ("History", "- March 2026: planned.[^1]"),
        ("See also", "- [[Dolt]]"),
    )
    assert repeats(parse(text)) == []


def test_the_lead_is_never_cut() -> None:
    text = article(
        "Beads is an issue tracker. Beads is an issue tracker.[^1]", ("Use", "It has ids.[^1]")
    )
    assert repeats(parse(text)) == []


_WORDS = st.sampled_from(
    ["Beads", "tracks", "issues", "agents", "with", "hash", "ids", "40", "not", "Dolt", "`bd`"]
)
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=8).map(lambda w: " ".join(w) + ".")
_PARAGRAPH = st.lists(
    st.tuples(_SENTENCE, st.sampled_from(["", "[^1]", "[^2]"])), min_size=1, max_size=4
).map(lambda xs: " ".join(s + m for s, m in xs) + "[^1]")


@settings(max_examples=200, deadline=None)
@given(_PARAGRAPH, st.lists(_PARAGRAPH, min_size=1, max_size=4))
def test_a_tighten_keeps_every_number_citation_and_code_block_and_is_its_own_result(
    lead: str, paragraphs: list[str]
) -> None:
    body = "\n\n".join(paragraphs) + "\n\n```sh\nbd 40\n```"
    text = article(lead, ("Body", body), refs=REFS2)
    out, changed = without(text, repeats(parse(text)), "Beads")
    assert sorted(set(re.findall(r"\d+", out))) == sorted(set(re.findall(r"\d+", text)))
    assert check(text, out, touched=changed, floor=0.0).ok
    assert "```sh\nbd 40\n```" in out
    assert without(out, repeats(parse(out)), "Beads")[0] == out


def repeated_in_use(earlier: str, later: str) -> list[str]:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", f"{earlier}[^1]"),
        ("Use", f"Agents claim work.[^1] {later}[^2]"),
        refs=REFS2,
    )
    return [r.sentence for r in repeats(parse(text))]


def test_a_sentence_naming_another_short_name_is_no_repeat() -> None:
    assert (
        repeated_in_use("Beads stores issues in Rust code.", "Beads stores issues in Go code.")
        == []
    )


def test_a_sentence_with_another_code_span_is_no_repeat() -> None:
    assert repeated_in_use("Run `br` to list ready work.", "Run `bd` to list ready work.") == []


def test_a_sentence_with_another_date_is_no_repeat() -> None:
    assert repeated_in_use("Beads shipped on 2026-03-04.", "Beads shipped on 2026-04-03.") == []
    assert repeated_in_use("Beads shipped on 3/4/2026.", "Beads shipped on 4/3/2026.") == []


def test_a_sentence_holding_a_link_the_earlier_lacks_is_no_repeat() -> None:
    later = "Beads stores issues in [[Dolt (database)|Dolt]]."
    assert repeated_in_use("Beads stores issues in Dolt.", later) == []


def test_a_sentence_with_a_marker_inside_it_is_never_cut() -> None:
    assert repeated_in_use("Beads uses hash ids.", "Beads[^2] uses hash ids.") == []


def test_it_s_after_a_dropped_sentence_is_left_as_written() -> None:
    text = article(
        "Beads is an issue tracker for coding agents.[^1]",
        ("Design", "Beads is an issue tracker for coding agents. It's fast.[^1]"),
    )
    assert "## Design\n\nIt's fast.[^1]\n" in tightened(text)


def test_a_negation_with_a_curly_apostrophe_is_a_negation() -> None:
    curly = "Beads doesn\u2019t keep issues in Dolt for coding agents."
    same = article(
        "Beads is an issue tracker.[^1]",
        ("Design", "Beads doesn't keep issues in Dolt for coding agents.[^1]"),
        ("Use", f"{curly}[^1]"),
    )
    assert [r.sentence for r in repeats(parse(same))] == [curly]
    other = article(
        "Beads is an issue tracker.[^1]",
        ("Design", "Beads does keep issues in Dolt for coding agents.[^1]"),
        ("Use", f"{curly}[^1]"),
    )
    assert repeats(parse(other)) == []
