"""CREATE's code half: proto-sections by word overlap, headings and drafts checked and
cleaned, and an article assembled so that every drafted paragraph carries its source's
marker whatever the model wrote."""

from __future__ import annotations

import json

import pytest

from dreaming.article import check, parse, problems
from dreaming.article.document import tail_rank
from dreaming.article.markup import markers
from dreaming.article.schematic import SLOTS
from dreaming.article.words import sentences
from dreaming.model import TextModel
from stages.prompts import create as prompt
from stages.synthesize import proto
from stages.synthesize.create import Created, create
from stages.synthesize.sources import Source
from tests.support import FIXTURES, Answer, ScriptedModelFactory, best_seconds
from tests.synth_support import KINDS, create_script

TITLE = "Thing A"


def source(n: int, label: str, text: str) -> Source:
    return Source(f"c{n}:0-1", label, text, f"{n:08x}", "2026-01-0" + str(n), "claude")


KETTLE = source(
    1,
    "descaling the kettle with vinegar",
    "user: thing A, the kettle, has scale\n\n"
    "assistant: boil vinegar and water in the kettle, then rinse",
)
KETTLE_AGAIN = source(
    2,
    "kettle scale comes back",
    "user: the scale came back in thing A, the kettle\n\n"
    "assistant: descale the kettle with vinegar",
)
SCRIPT = source(
    4,
    "descaling script",
    "user: a script to descale?\n\nassistant: Run this:\n```sh\ndescale --acid vinegar\n```",
)
GARDEN = source(
    3,
    "planting tomatoes in spring",
    "user: when to plant tomatoes\n\nassistant: plant tomatoes after the last frost in spring",
)


def excerpt(s: Source) -> proto.Excerpt:
    return proto.Excerpt(s.label, s.text)


def test_excerpts_that_share_words_share_a_proto_section_and_others_open_their_own() -> None:
    assert proto.group([excerpt(KETTLE), excerpt(GARDEN), excerpt(KETTLE_AGAIN)]) == [[0, 2], [1]]


def test_past_six_proto_sections_the_last_opened_merge_into_their_closest() -> None:
    names = ("apples", "bricks", "cellos", "drones", "eagles", "ferns", "gravel", "harps")
    distinct = [proto.Excerpt(w, f"{w} {w}") for w in names]
    groups = proto.group(distinct)
    assert len(groups) == proto.MAX_SECTIONS
    assert sorted(i for g in groups for i in g) == list(range(8))


@pytest.mark.parametrize(
    ("heading", "why"),
    [
        ("", "empty"),
        ("Sure, here is a heading for the section you asked for", "longer than a heading"),
        ("Sure here is one", "a sentence, not a heading"),
        ("Cleaning schedule.", "a sentence, not a heading"),
        ("## Cleaning", "markup or a placeholder"),
        ("<aspect> of it", "markup or a placeholder"),
        ("thing a", "the article's title"),
        ("See also", "a heading the article grammar reserves"),
        ("references", "a heading the article grammar reserves"),
        ("Descaling", "a heading already used"),
        ("x" * 61, "longer than a heading"),
    ],
)
def test_a_proposed_heading_that_is_no_heading_is_refused_with_its_reason(
    heading: str, why: str
) -> None:
    assert proto.heading_problem(heading, TITLE, ["descaling"]) == why


def test_a_plain_short_heading_is_accepted() -> None:
    assert proto.heading_problem("Descaling schedule", TITLE, ["Buying"]) is None


def test_a_heading_is_made_from_the_label_when_the_model_gives_none() -> None:
    picked = proto.pick_heading("Sure! A heading.", [KETTLE.label], TITLE, [], 1)
    assert picked == "Descaling the kettle with vinegar"


def test_when_no_label_gives_a_heading_the_section_is_numbered() -> None:
    assert proto.pick_heading(None, ["references"], TITLE, [], 3) == "Part 3"


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("The user chose vinegar.[^1] It worked.[3]", "The user chose vinegar. It worked."),
        ("## Descaling\n\n- The user chose [[vinegar]]", "The user chose vinegar."),
        ('"The user boiled vinegar."', "The user boiled vinegar."),
        ("1. The user rinsed it twice", "The user rinsed it twice."),
        ("One. Two. Three. Four. Five.", "One. Two. Three."),
        ("The user chose it. They then used a fixed value to fur", "The user chose it."),
        ("The user chose it", "The user chose it."),
        ("First paragraph.\n\nSecond paragraph.", "First paragraph."),
        ("The user ran `make test` twice.", "The user ran `make test` twice."),
        ("The user edited `index.html.", "The user edited index.html."),
        ("The user wrote <div> and a | b.", "The user wrote div and a / b."),
        ("The excerpt establishes that MD034 wraps URLs.", "MD034 wraps URLs."),
        ("This conversation shows, vinegar descales.", "Vinegar descales."),
        ("The notes suggest that the CSS fails in Chrome.", "The CSS fails in Chrome."),
        (
            "The excerpt says that `rb` fails in Chrome, and that ruby elements work.",
            "`rb` fails in Chrome, and ruby elements work.",
        ),
        ("Thing A boils, and that is why it works.", "Thing A boils, and that is why it works."),
        (
            "The notes say that it boils, and that is why it works.",
            "It boils, and that is why it works.",
        ),
        ("The most important fact about Thing A is that it boils.", "It boils."),
        ("Thing A is a pot. The key point is that it boils.", "Thing A is a pot. It boils."),
    ],
)
def test_a_draft_is_cleaned_to_plain_sentences(answer: str, kept: str) -> None:
    assert proto.clean_draft(answer) == kept


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   \n\n  ",
        "x" * 4000,
        "The user chose <Thing B> for <purpose>.",
        "See conv:HASH for details.",
        "Write one to three sentences for this section about what the user chose.",
        "[^1] [^2]",
    ],
    ids=["empty", "blank", "ramble", "slot", "token", "prompt-echo", "markers-only"],
)
def test_a_draft_that_cannot_be_cleaned_is_refused(answer: str) -> None:
    assert proto.clean_draft(answer, prompt.echoes(TITLE)) is None


def test_cleaning_a_draft_takes_time_linear_in_its_length() -> None:
    small = "The user [^1] chose [ it. " * 10
    large = small * 4
    ratio = best_seconds(sentences, large) / max(best_seconds(sentences, small), 1e-6)
    assert ratio < 12
    assert best_seconds(proto.clean_draft, "[" * 200_000) < 0.05


def test_a_lead_keeps_its_definition_and_drops_a_sentence_that_retells_the_body() -> None:
    body = ["The user chose vinegar to descale the kettle.", "The user descales monthly."]
    lead = "Thing A is a kettle. The user chose vinegar to descale the kettle. It is red."
    assert proto.lead_sentences(lead, body, 3) == "Thing A is a kettle. It is red."
    assert proto.lead_sentences(lead, body, 2) == "Thing A is a kettle."


def test_aliases_are_the_other_safe_names_the_sources_used() -> None:
    surfaces = ["Thing A", "thing-a", "the A, B", "[[A]]", "<Other name>", "thing-a", "TA"]
    assert proto.alias_list(TITLE, surfaces) == ["thing-a", "TA"]


def made(scripted_model: ScriptedModelFactory, answers: list[Answer], *sources: Source) -> Created:
    model: TextModel = scripted_model(answers)
    result = create(model, TITLE, list(sources), aliases=["TA"], kinds=KINDS, unit="u")
    assert isinstance(result, Created)
    return result


def test_every_drafted_paragraph_carries_its_own_source_s_marker_whatever_the_model_wrote(
    scripted_model: ScriptedModelFactory,
) -> None:
    drafts = ["The user boiled vinegar in it.[^9]", "Scale came back; descale with vinegar [2]."]
    answers = create_script(
        TITLE, [KETTLE, KETTLE_AGAIN], [("Descaling", [0, 1])], drafts, lead="Thing A is a kettle."
    )
    result = made(scripted_model, answers, KETTLE, KETTLE_AGAIN)
    body = parse(result.text).sections[0].body
    assert (
        body == "The user boiled vinegar in it.[^1]\n\nScale came back; descale with vinegar.[^2]"
    )
    assert (result.calls, result.paragraphs) == (5, 2)


def test_the_lead_cites_the_paragraphs_it_was_written_from_and_the_article_is_well_formed(
    scripted_model: ScriptedModelFactory,
) -> None:
    drafts = [
        "The kettle has scale and vinegar boiled in it removes it.",
        "Tomatoes are planted after the last frost.",
        "The scale came back and vinegar descales the kettle.",
    ]
    answers = create_script(
        TITLE, [KETTLE, GARDEN, KETTLE_AGAIN], [("Descaling", [0, 2]), ("Tomatoes", [1])],
        drafts, lead="Thing A is a kettle. The kettle has scale. More.",
    )  # fmt: skip
    result = made(scripted_model, answers, KETTLE, GARDEN, KETTLE_AGAIN)
    article = parse(result.text)
    assert article.lead.startswith("Thing A is a kettle.[^1][^2]")
    assert dict(article.infobox or ()) == {"kind": "thing", "aliases": "TA"}
    assert problems(article, stem="Thing_A") == []
    assert check(None, result.text, stem="Thing_A").ok
    assert all(markers(s.body) for s in article.sections if tail_rank(s) == 0)


def test_a_drafted_choice_the_person_never_made_is_not_written_and_is_counted(
    scripted_model: ScriptedModelFactory,
) -> None:
    drafts = ["Vinegar boiled in water descales a kettle.", "The user chose vinegar over lemon."]
    answers = create_script(
        TITLE, [KETTLE, KETTLE_AGAIN], [("Descaling", [0, 1])], drafts, lead="Thing A is a kettle."
    )
    result = made(scripted_model, answers, KETTLE, KETTLE_AGAIN)
    assert "chose" not in result.text
    assert result.left_out == [(KETTLE_AGAIN.chunk_id, "no usable paragraph drafted")]
    assert [why for _, why in result.dropped] == [
        "a frame the conversation does not state ('chose')"
    ]


def test_the_code_an_excerpt_ended_on_stands_whole_under_its_paragraph(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = create_script(
        TITLE, [SCRIPT], [("Descaling", [0])], ["A script descales it. It takes vinegar."],
        lead="Thing A is a kettle.",
    )  # fmt: skip
    result = made(scripted_model, answers, SCRIPT)
    article = parse(result.text)
    assert article.sections[0].body == (
        "A script descales it. It takes vinegar.[^1]\n\n```sh\ndescale --acid vinegar\n```"
    )
    assert problems(article, stem="Thing_A") == []
    assert check(None, result.text, stem="Thing_A").ok


def test_a_paragraph_drafted_in_another_language_than_the_wiki_s_is_left_out(
    scripted_model: ScriptedModelFactory,
) -> None:
    drafts = [
        "Vinegar boiled in water descales a kettle.",
        "De ketel is schoon en het water is niet meer kalkhoudend met de azijn.",
    ]
    answers = create_script(
        TITLE, [KETTLE, KETTLE_AGAIN], [("Descaling", [0, 1])], drafts, lead="Thing A is a kettle."
    )
    result = made(scripted_model, answers, KETTLE, KETTLE_AGAIN)
    assert "ketel" not in result.text
    assert result.left_out == [(KETTLE_AGAIN.chunk_id, "drafted in another language than English")]


NOTES = [
    "The user chose to use the Haiku model with Claude Code's `-p` flag for WebSearch "
    "and Task tools. They found it recommended for quick tasks.",
]


def test_a_lead_sentence_the_notes_hold_is_kept() -> None:
    lead = "Haiku is a model for quick tasks. It is a poem of three lines."
    assert proto.grounded_lead(lead, "Haiku", NOTES) == "Haiku is a model for quick tasks."


def test_a_lead_from_what_the_model_knows_of_the_word_gives_way_to_the_notes() -> None:
    lead = "Haiku is a three-line poem that expresses a moment of beauty, insight, or emotion."
    assert proto.grounded_lead(lead, "Haiku", NOTES) == (
        "The user chose to use the Haiku model with Claude Code's `-p` flag for WebSearch "
        "and Task tools."
    )


def test_with_no_note_sentence_naming_the_subject_the_first_note_sentence_leads() -> None:
    lead = "URLs are resource locators that identify web pages."
    notes = ["The user turned MD034 off. Angle brackets broke the MDX build."]
    assert proto.grounded_lead(lead, "URLs", notes) == "The user turned MD034 off."


LEADS = FIXTURES / "leads.jsonl"
"""The ten lead sentences the default model wrote on the corpus vault (docs/read-path.md),
each with the notes it was cited to, labelled by hand: `world` (what the model knows of
the word), `notes` (what the notes say) or `filler`."""


def test_on_the_corpus_vaults_leads_grounding_drops_the_models_knowledge_not_the_notes() -> None:
    rows = [json.loads(line) for line in LEADS.read_text(encoding="utf-8").splitlines()]
    kept = {
        r["sentence"]: proto.grounded_lead(r["sentence"], r["title"], r["notes"]) == r["sentence"]
        for r in rows
    }
    world = [r["sentence"] for r in rows if r["label"] == "world"]
    noted = [r["sentence"] for r in rows if r["label"] == "notes"]
    assert [kept[x] for x in world] == [False, False, False]
    # Measured: 5 of 6 kept; the one lost is a second sentence ("… to perform searches
    # efficiently") whose filler outweighs the notes' words.
    assert sum(kept[x] for x in noted) == 5
    assert len(noted) == 6


def test_a_kind_outside_the_declared_set_leaves_the_infobox_without_one(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = create_script(
        TITLE, [KETTLE], [("Descaling", [0])], ["The user descaled it."],
        lead="Thing A is a kettle.", kind="appliance",
    )  # fmt: skip
    result = made(scripted_model, answers, KETTLE)
    assert dict(parse(result.text).infobox or ()) == {"aliases": "TA"}


def kind_of(
    scripted_model: ScriptedModelFactory, title: str, said: str, human: str | None = None
) -> str | None:
    # The excerpt names the subject: a lead says what it is only of a name it holds.
    named = source(1, KETTLE.label, f"user: {title}: the kettle has scale\n\n{KETTLE.text}")
    answers = create_script(
        title, [named], [("Descaling", [0])], ["Vinegar descales the kettle."],
        lead=f"{title} is a kettle.", kind=said,
    )  # fmt: skip
    if human is not None:
        answers.append(Answer("synthesize", prompt.human(title), human, prompt.HUMAN_SYSTEM))
    model: TextModel = scripted_model(answers)
    result = create(model, title, [named], aliases=[], kinds=KINDS, unit="u")
    assert isinstance(result, Created)
    return dict(parse(result.text).infobox or ()).get("kind")


def test_a_tool_the_model_calls_a_person_is_a_thing_without_asking_again(
    scripted_model: ScriptedModelFactory,
) -> None:
    assert kind_of(scripted_model, "pytest-cov", "person") == "thing"


def test_a_name_that_looks_human_is_a_person_only_when_the_model_says_a_human_bears_it(
    scripted_model: ScriptedModelFactory,
) -> None:
    assert kind_of(scripted_model, "Claude Code", "person", human="yes") == "thing"
    assert kind_of(scripted_model, "Steve Yegge", "person", human="no") == "person"


def test_no_usable_draft_at_all_is_a_reason_not_an_article(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = [
        Answer("synthesize", prompt.heading(TITLE, [KETTLE.label]), "Descaling",
               prompt.HEADING_SYSTEM),
        Answer("synthesize", prompt.draft(TITLE, "Descaling", KETTLE.text), "## Nothing",
               prompt.DRAFT_SYSTEM),
    ]  # fmt: skip
    result = create(scripted_model(answers), TITLE, [KETTLE], aliases=[], kinds=KINDS, unit="u")
    assert result == "no excerpt gave a usable paragraph (1 tried)"


def test_a_stub_whose_lead_says_its_one_paragraph_is_the_lead_alone(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = create_script(
        TITLE, [KETTLE], [("Descaling", [0])], ["Vinegar boiled in the kettle removes scale."],
        lead="Thing A: vinegar boiled in the kettle removes scale.",
    )  # fmt: skip
    result = made(scripted_model, answers, KETTLE)
    article = parse(result.text)
    assert "removes scale.[^1]" in article.lead
    assert "## Descaling" not in result.text
    assert result.text.count("removes scale") == 1
    assert problems(article, stem="Thing_A") == []
    assert check(None, result.text, stem="Thing_A").ok


def test_a_stub_with_code_keeps_its_cited_paragraph_above_the_code(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = create_script(
        TITLE, [SCRIPT], [("Descaling", [0])], ["A script descales it."],
        lead="Thing A is a kettle.",
    )  # fmt: skip
    result = made(scripted_model, answers, SCRIPT)
    article = parse(result.text)
    assert article.sections[0].body == (
        "A script descales it.[^1]\n\n```sh\ndescale --acid vinegar\n```"
    )
    assert problems(article, stem="Thing_A") == []


def test_a_paragraph_the_lead_says_only_in_part_keeps_its_section(
    scripted_model: ScriptedModelFactory,
) -> None:
    answers = create_script(
        TITLE, [KETTLE], [("Descaling", [0])],
        ["Vinegar boiled in the kettle removes scale. Rinse the kettle after boiling."],
        lead="Thing A: vinegar boiled in the kettle removes scale.",
    )  # fmt: skip
    result = made(scripted_model, answers, KETTLE)
    assert "## Descaling" in result.text


def test_drafts_that_say_nothing_beyond_the_title_are_a_reason_not_an_article(
    scripted_model: ScriptedModelFactory,
) -> None:
    title = "Kettle Scale"
    answers = create_script(
        title, [KETTLE], [("Descaling", [0])], ["The kettle scale."], lead="Kettle scale."
    )
    result = create(scripted_model(answers), title, [KETTLE], aliases=[], kinds=KINDS, unit="u")
    assert result == "the drafts say nothing beyond the title"


def test_prompts_show_only_schematic_slots_and_say_not_to_copy_them() -> None:
    for system in (prompt.HEADING_SYSTEM, prompt.DRAFT_SYSTEM, prompt.LEAD_SYSTEM):
        assert prompt.NO_COPY in system
        slots = [f"<{piece.split('>')[0]}>" for piece in system.split("<")[1:]]
        assert slots
        assert all(slot in SLOTS for slot in slots)
