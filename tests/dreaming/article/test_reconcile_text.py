"""RECONCILE's pure half: what a cited sentence proposes for an infobox field, how a
superseded sentence is dated, and how judged proposals settle an article."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article import Article, build, parse
from dreaming.article.cited import Cited, cited_sentences
from dreaming.article.fields import Proposal, propose
from dreaming.article.history import as_of, month, with_trace
from dreaming.article.markup import markers
from dreaming.article.reconcile import date_block, settle
from dreaming.policy.schemas import schema_fields
from dreaming.resources import data_dir
from tests.support import best_seconds

PROJECT = (("type", "text"), ("status", "text"), ("uses", "link"), ("used_for", "text"))


def cited(sentence: str, date: str = "2026-03-01", label: str = "1") -> Cited:
    return Cited("", sentence, (label,), date)


def proposed(
    sentence: str, others: dict[str, tuple[str, ...]] | None = None
) -> set[tuple[str, str]]:
    found = propose([cited(sentence)], ("Garden Shed",), PROJECT, others or {})
    return {(p.field, p.value) for p in found}


def test_a_kind_after_the_subjects_name_proposes_a_type() -> None:
    assert proposed("Garden Shed is a small wooden building.") == {
        ("type", "small wooden building")
    }


def test_a_kind_of_something_else_proposes_no_type() -> None:
    assert proposed("The shed door is a sliding door.") == set()


def test_a_kind_cut_at_a_comma_is_no_type() -> None:
    assert proposed("Garden Shed is a wooden, insulated building.") == set()


def test_a_long_kind_is_no_type() -> None:
    assert proposed("Garden Shed is a very small green and wooden storage building.") == set()


def test_a_status_word_proposes_that_position() -> None:
    assert proposed("The shed was finished in June.") == {("status", "finished")}


def test_a_status_word_in_a_sentence_about_something_else_proposes_nothing() -> None:
    assert proposed("The fence was finished in June.") == set()


def test_a_relationship_names_only_an_article_after_its_cue() -> None:
    others = {"Cedar": ("cedar wood",), "Oak": ()}
    said = proposed("Oak trees shade the shed, which uses cedar wood.", others)
    assert said == {("uses", "[[Cedar]]")}


def test_a_name_inside_a_longer_ones_mention_proposes_only_the_longer() -> None:
    others: dict[str, tuple[str, ...]] = {"Rust": (), "Rust Belt": ()}
    assert proposed("The shed uses Rust Belt steel.", others) == {("uses", "[[Rust Belt]]")}


def test_used_for_copies_the_words_up_to_the_clause_end() -> None:
    assert ("used_for", "storing bikes") in proposed(
        "The shed is used for storing bikes and tools."
    )


def test_month_reads_only_a_real_month() -> None:
    assert (month("2026-03-14"), month("2026-13-01"), month("soon")) == ("March 2026", "", "")


def test_as_of_dates_a_present_tense_sentence_and_lowers_only_a_non_name() -> None:
    assert as_of("The shed is planned.", "2026-03-01") == "As of March 2026, the shed is planned."
    assert as_of("Anna plans to paint it.", "2026-03-01", {"Anna"}) == (
        "As of March 2026, Anna plans to paint it."
    )


def test_as_of_keeps_the_capital_of_i_and_of_a_word_with_digits() -> None:
    assert as_of("I plan to paint it.", "2026-03-01") == "As of March 2026, I plan to paint it."
    assert as_of("X11 is planned.", "2026-03-01") == "As of March 2026, X11 is planned."


def test_as_of_leaves_a_past_or_dated_sentence() -> None:
    assert as_of("The shed was planned.", "2026-03-01") == "The shed was planned."
    dated = "As of May 2026, the shed is planned."
    assert as_of(dated, "2026-03-01") == dated


def test_the_trace_replaces_only_its_own_lines() -> None:
    body = "It was first drawn on a napkin.[^4]\n\n- March 2026: planned.[^1]"
    assert with_trace(body, ["- May 2026: finished.[^2]"]) == (
        "It was first drawn on a napkin.[^4]\n\n- May 2026: finished.[^2]"
    )


def test_cited_sentences_carry_their_newest_sources_date() -> None:
    text = build(
        "Shed",
        lead="The shed is done.[^1][^2]",
        sections=[
            (
                "References",
                "[^1]: `conv:aaaa1111` (2026-01-01, chatgpt) — a\n"
                "[^2]: `conv:bbbb2222` (2026-02-01, chatgpt) — b",
            )
        ],
    )
    assert cited_sentences(parse(text)) == [
        Cited("", "The shed is done.", ("1", "2"), "2026-02-01")
    ]


def test_a_paragraphs_closing_marker_cites_the_sentences_before_it() -> None:
    refs = "[^1]: `conv:aaaa1111` (2026-01-01, chatgpt) — a"
    text = build(
        "Shed",
        lead="x",
        sections=[("S", "One is here. Two is too.[^1] Three."), ("References", refs)],
    )
    said = [(c.sentence, c.labels) for c in cited_sentences(parse(text))]
    assert said == [("One is here.", ("1",)), ("Two is too.", ("1",))]


def test_the_shipped_schema_page_gives_each_kind_its_fields() -> None:
    page = (data_dir("meta_templates") / "Infobox_Schemas.md").read_text(encoding="utf-8")
    fields = schema_fields(page)
    assert set(fields) == {"thing", "person", "domain", "project", "standard"}
    assert ("made_by", "link") in fields["thing"]


def test_a_list_field_only_grows() -> None:
    box = {"kind": "project", "uses": "[[Pine]]"}
    article = parse(build("Shed", lead="x", sections=[], infobox=box))
    oak = Proposal("uses", "[[Oak]]", cited("The shed uses Oak."))
    out = settle(article, PROJECT, [oak], {"uses": {"[[Oak]]"}})
    assert dict(parse(out.text).infobox or ())["uses"] == "[[Pine]], [[Oak]]"


def test_one_source_saying_planned_and_started_says_started() -> None:
    article = parse(build("Shed", lead="x", sections=[], infobox={"kind": "project"}))
    planned = Proposal("status", "planned", cited("The shed is planned."))
    started = Proposal("status", "in progress", cited("Work on the shed started."))
    out = settle(article, PROJECT, [started, planned], {"status": {"planned", "in progress"}})
    assert (dict(parse(out.text).infobox or ())["status"], out.unresolved) == ("in progress", ())


def test_two_sources_of_one_date_saying_planned_and_started_are_unresolved() -> None:
    article = parse(build("Shed", lead="x", sections=[], infobox={"kind": "project"}))
    planned = Proposal("status", "planned", cited("The shed is planned.", label="1"))
    started = Proposal("status", "in progress", cited("Work on the shed started.", label="2"))
    out = settle(article, PROJECT, [planned, started], {"status": {"planned", "in progress"}})
    assert len(out.unresolved) == 1


def test_the_lead_trades_an_older_positions_copied_sentence_for_the_latest() -> None:
    refs = (
        "[^1]: `conv:aaaa1111` (2026-04-01, chatgpt) — a\n"
        "[^2]: `conv:bbbb2222` (2026-05-01, chatgpt) — b"
    )
    text = build(
        "Shed",
        lead="Shed is a hut.[^1] Work on the shed started.[^1]",
        sections=[
            ("Story", "Work on the shed started. It had a roof.[^1] The shed was finished.[^2]"),
            ("References", refs),
        ],
        infobox={"kind": "project", "status": "in progress"},
    )
    article = parse(text)
    found = propose(cited_sentences(article), ("Shed",), PROJECT, {})
    out = settle(article, PROJECT, found, {"status": {"in progress", "finished"}})
    assert parse(out.text).lead == "Shed is a hut.[^1] The shed was finished.[^2]"


def test_the_trace_gives_a_date_one_line() -> None:
    article = parse(build("Shed", lead="x", sections=[], infobox={"kind": "project"}))
    said = [
        Proposal("status", "planned", cited("The shed is planned.", "2026-03-01")),
        Proposal("status", "in progress", cited("Work on the shed started.", "2026-04-01", "2")),
        Proposal("status", "planned", cited("The shed is planned with cedar.", "2026-04-01", "2")),
        Proposal("status", "finished", cited("The shed was finished.", "2026-05-01", "3")),
    ]
    out = settle(article, PROJECT, said, {"status": {"planned", "in progress", "finished"}})
    history = parse(out.text).section("History")
    assert history is not None
    assert history.body.splitlines() == [
        "- March 2026: planned.[^1]",
        "- April 2026: in progress.[^2]",
        "- May 2026: finished.[^3]",
    ]


def test_an_article_without_an_infobox_is_left_as_it_is() -> None:
    text = build("Shed", lead="The shed is done.[^1]", sections=[])
    done = Proposal("status", "finished", cited("The shed is done."))
    assert settle(parse(text), PROJECT, [done], {"status": {"finished"}}).text == text


_SENTENCE = st.sampled_from(
    [
        "The shed is planned for spring.",
        "Work on the shed started in May.",
        "The shed was finished in June.",
        "The shed is on hold.",
        "Anna gave up on the shed.",
        "The shed is used for storing bikes.",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(_SENTENCE, st.integers(1, 12)), min_size=1, max_size=5),
    st.booleans(),
)
def test_settling_keeps_every_marker_and_every_word_it_did_not_date(
    said: list[tuple[str, int]], yes: bool
) -> None:
    lines = [f"{s}[^{i + 1}]" for i, (s, _) in enumerate(said)]
    refs = "\n".join(
        f"[^{i + 1}]: `conv:{i + 1:08x}` (2026-{m:02d}-01, chatgpt) — t"
        for i, (_, m) in enumerate(said)
    )
    text = build(
        "Shed",
        lead="Shed is a hut.[^1]",
        sections=[("Story", " ".join(lines)), ("References", refs)],
        infobox={"kind": "project"},
    )
    article = parse(text)
    found = propose(cited_sentences(article), ("Shed",), PROJECT, {})
    derivable: dict[str, set[str]] = {name: set() for name, _ in PROJECT}
    for p in found:
        derivable[p.field].add(p.value)
    out = settle(article, PROJECT, found if yes else [], derivable).text
    assert sorted(set(markers(out))) == sorted(set(markers(text)))
    story = parse(out).section("Story")
    assert story is not None
    undated = re.sub(r"As of \w+ \d{4}, (\w)", lambda m: m.group(1), story.body)
    assert undated.casefold() == " ".join(lines).casefold()


def test_settling_a_long_article_takes_time_in_proportion() -> None:
    def timed(n: int) -> float:
        body = " ".join(f"The shed is planned for week {i}.[^1]" for i in range(n))
        refs = "[^1]: `conv:aaaa1111` (2026-01-01, chatgpt) — t"
        article = parse(
            build(
                "Shed",
                lead="x",
                sections=[("S", body), ("References", refs)],
                infobox={"kind": "project"},
            )
        )
        found = propose(cited_sentences(article), ("Shed",), PROJECT, {})
        return best_seconds(lambda _: settle(article, PROJECT, found, {"status": {"planned"}}), "")

    assert timed(800) < 20 * timed(100) + 0.05


def settled_story(story: str) -> Article:
    """A Shed project whose Story cites March and May, after settling."""
    refs = (
        "[^1]: `conv:aaaa1111` (2026-03-01, chatgpt) — a\n"
        "[^2]: `conv:bbbb2222` (2026-05-01, chatgpt) — b"
    )
    text = build(
        "Shed",
        lead="Shed is a hut.[^1]",
        sections=[("Story", story), ("References", refs)],
        infobox={"kind": "project"},
    )
    article = parse(text)
    found = propose(cited_sentences(article), ("Shed",), PROJECT, {})
    return parse(settle(article, PROJECT, found, {"status": {"planned", "finished"}}).text)


def story_of(article: Article) -> str:
    section = article.section("Story")
    assert section is not None
    return section.body


def test_a_superseded_sentence_inside_a_longer_one_dates_the_whole_sentence_only() -> None:
    story = "The Shed is planned.[^2] Shed is planned.[^1] The shed was finished.[^2]"
    assert story_of(settled_story(story)) == (
        "The Shed is planned.[^2] As of March 2026, Shed is planned.[^1] The shed was finished.[^2]"
    )


def test_dating_a_block_dates_each_sentence_where_it_stands() -> None:
    block = "The Shed is planned.[^1] Shed is planned.[^1]"
    assert date_block(block, {"1": "2026-03-01"}, {"Shed"}) == (
        "As of March 2026, the Shed is planned.[^1] As of March 2026, Shed is planned.[^1]"
    )


def test_a_list_items_or_quotes_sentence_is_read_without_its_bullet() -> None:
    refs = "[^1]: `conv:aaaa1111` (2026-01-01, chatgpt) — a"
    story = "- The shed is planned.\n- Work started.[^1]\n\n> The roof is done.[^1]"
    text = build("Shed", lead="x", sections=[("S", story), ("References", refs)])
    said = [(c.sentence, c.labels) for c in cited_sentences(parse(text))]
    assert said == [("Work started.", ("1",)), ("The roof is done.", ("1",))]


def test_a_superseded_list_item_is_dated_inside_its_item() -> None:
    out = settled_story("- The shed is planned.[^1]\n- The shed was finished.[^2]")
    assert story_of(out) == (
        "- As of March 2026, the shed is planned.[^1]\n- The shed was finished.[^2]"
    )
    assert out.lead == "Shed is a hut.[^1] The shed was finished.[^2]"
