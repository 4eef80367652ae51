"""SYNTHESIZE UPDATE: an existing article revised with a whole delta, one section at a time.

The model here answers UPDATE's questions by rules (which part it is asked about, which
question it is), through the same constraint check a replay passes, so each test names
the answers that matter to it and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from dreaming.article import LEAD, build, check, normalize, parse
from dreaming.article.cited import sentences
from dreaming.article.markup import Footnote
from dreaming.article.sections import extract_section
from dreaming.model import Completion, ModelCallError, Usage
from dreaming.model.base import constrained
from dreaming.model.constraint import Constraint
from stages.prompts import create as create_prompt
from stages.prompts import update as prompt
from stages.synthesize.sources import Source
from stages.synthesize.update import NothingNew, Revision, revise
from stages.synthesize.update_text import opening, relabel, top_label, usable
from tests.support import best_seconds

TITLE = "Shelf Bracket"
CHOICE_BODY = "The person chose a steel bracket.[^1] It carries heavy books.[^1]"
MOUNTING_BODY = "The bracket is mounted with two screws.[^2]"
OLD = build(
    TITLE,
    lead="A shelf bracket holds a shelf to a wall.[^1]",
    sections=[("Choice", CHOICE_BODY), ("Mounting", MOUNTING_BODY)],
    footnotes=[
        Footnote(1, "aaaaaaaa", "2026-01-01", "claude", "choosing a bracket"),
        Footnote(2, "bbbbbbbb", "2026-01-05", "claude", "mounting the bracket"),
    ],
    categories=["Tools"],
)
PAINT = Source(
    chunk_id="cccc:0-1",
    label="painting the shelf bracket black",
    text="user: I painted the bracket black.\n\nassistant: Black suits it.",
    hash8="cccccccc",
    day="2026-02-01",
    source="claude",
)
SCREWS = Source(
    chunk_id="dddd:0-1",
    label="screws for mounting the bracket",
    text="user: It needs four screws, not two.\n\nassistant: Four it is.",
    hash8="dddddddd",
    day="2026-02-03",
    source="claude",
)
PAINT_DEF = "[^3]: `conv:cccccccc` (2026-02-01, claude) — painting the shelf bracket black"
SCREWS_DEF_3 = "[^3]: `conv:dddddddd` (2026-02-03, claude) — screws for mounting the bracket"
_PART = re.compile(r'(?:the section |Topic: )"([^"]*)"|^Section: (.*)$', re.MULTILINE)


@dataclass
class Editor:
    """Answers by rule: `route` names the sections that the delta updates; `drafts` the
    paragraph drafted for a section from each excerpt (a list: one answer an excerpt, in
    order), `corrections` the replacement of a section a mistake is corrected in; the
    rest answer every part alike."""

    route: set[str] = field(default_factory=set)
    drafts: Mapping[str, str | list[str]] = field(default_factory=dict)
    corrections: Mapping[str, str] = field(default_factory=dict)
    substantive: str = "no"
    conflict: str = "no"
    """Whether the delta contradicts the part; asked as "does it agree?"."""
    kind: str = "changed"
    failing_drafts: set[str] = field(default_factory=set)
    asked: list[tuple[str, str]] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)

    spec = "rules:update"
    load_seconds = None

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        m = _PART.search(user)
        part = (m.group(1) or m.group(2)) if m else LEAD
        question = {
            prompt.ROUTE_SYSTEM: "route",
            prompt.SUBSTANTIVE_SYSTEM: "substantive",
            prompt.CONFLICT_SYSTEM: "conflict",
            prompt.KIND_SYSTEM: "kind",
            prompt.DRAFT_SYSTEM: "correct",
            create_prompt.DRAFT_SYSTEM: "draft",
        }[system or ""]
        self.asked.append((question, part))
        self.prompts.append(user)
        if question in ("draft", "correct") and part in self.failing_drafts:
            raise ModelCallError("runaway answer")
        text = {
            "route": "yes" if part in self.route else "no",
            "substantive": self.substantive,
            "conflict": "no" if self.conflict == "yes" else "yes",
            "kind": self.kind,
            "draft": self._draft(part),
            "correct": self.corrections.get(part, ""),
        }[question]
        return constrained(stage, Completion(text, Usage()), constraint)

    def _draft(self, part: str) -> str:
        said = self.drafts.get(part, "")
        if isinstance(said, str):
            return said
        n = sum(1 for q, p in self.asked if (q, p) == ("draft", part))
        return said[n - 1] if n <= len(said) else ""

    def unload(self) -> None:
        pass


def _revise(editor: Editor, *sources: Source, text: str = OLD) -> Revision | None:
    """`revise` where the model does not judge the delta to add nothing."""
    r = _judged(editor, *sources, text=text)
    assert not isinstance(r, NothingNew), "the model judged the delta adds nothing"
    return r


def _judged(editor: Editor, *sources: Source, text: str = OLD) -> Revision | NothingNew | None:
    return revise(editor, text, TITLE, sources or (PAINT,), unit="bucket-1:Shelf_Bracket")


def _passes_gate(old: str, revision: Revision) -> bool:
    new = normalize(revision.text, stem="Shelf_Bracket")
    return check(
        old,
        new,
        touched=revision.touched,
        allow_dropped=revision.allow_dropped,
        stem="Shelf_Bracket",
    ).ok


def test_a_section_the_delta_updates_gets_its_paragraph_and_every_other_byte_stays() -> None:
    r = _revise(Editor(route={"Choice"}, drafts={"Choice": "The bracket is painted black."}))
    assert r is not None
    new_body = CHOICE_BODY + "\n\nThe bracket is painted black.[^3]"
    last_def = "[^2]: `conv:bbbbbbbb` (2026-01-05, claude) — mounting the bracket"
    expected = OLD.replace(CHOICE_BODY, new_body).replace(last_def, f"{last_def}\n{PAINT_DEF}")
    assert r.text == expected
    assert r.touched == ("Choice",)
    assert r.allow_dropped == ()
    assert _passes_gate(OLD, r)


def test_a_drafted_paragraph_is_cited_to_its_excerpt_by_code() -> None:
    r = _revise(Editor(route={"Choice"}, drafts={"Choice": "The bracket is black now.[7]"}))
    assert r is not None
    assert "The bracket is black now.[^3]" in r.text


def test_a_drafted_sentence_saying_nothing_the_section_does_not_is_left_out() -> None:
    drafted = "The person chose a steel bracket. The bracket is black now."
    r = _revise(Editor(route={"Choice"}, drafts={"Choice": drafted}))
    assert r is not None
    assert (
        extract_section(r.text, "Choice")
        == f"## Choice\n\n{CHOICE_BODY}\n\nThe bracket is black now.[^3]"
    )


def test_a_drafted_paragraph_that_never_names_the_subject_is_left_out() -> None:
    drafted = "The paint is black and dries in an hour."
    assert _revise(Editor(route={"Choice"}, drafts={"Choice": drafted})) is None


def test_a_paragraph_naming_the_subject_only_inside_a_longer_name_is_left_out() -> None:
    drafted = "The person painted the black shelf bracket."
    editor = Editor(route={"Choice"}, drafts={"Choice": drafted})
    assert revise(editor, OLD, TITLE, (PAINT,), unit="u", longer=["Black Shelf Bracket"]) is None
    assert _revise(Editor(route={"Choice"}, drafts={"Choice": drafted})) is not None


def test_a_drafted_sentence_its_excerpt_does_not_hold_is_left_out() -> None:
    drafted = "The bracket is painted black. The bracket cost forty euros."
    r = _revise(Editor(route={"Choice"}, drafts={"Choice": drafted}))
    assert r is not None
    assert "forty" not in r.text
    assert "The bracket is painted black.[^3]" in r.text


def mistaken(part: str, corrected: str) -> Editor:
    return Editor(route={part}, corrections={part: corrected}, conflict="yes", kind="mistake")


def test_sentences_a_correction_kept_without_their_markers_get_them_back() -> None:
    drafted = (
        "The person chose a steel bracket. It carries heavy books, mostly.\n"
        "They painted it black. It looks better."
    )
    r = _revise(mistaken("Choice", drafted))
    assert r is not None
    assert extract_section(r.text, "Choice") == (
        "## Choice\n\nThe person chose a steel bracket.[^1] It carries heavy books, mostly.[^1]"
        "\n\nThey painted it black. It looks better.[^3]"
    )
    assert _passes_gate(OLD, r)


def test_a_run_of_new_sentences_is_cited_before_the_old_sentence_after_it() -> None:
    drafted = "They painted it black. The person chose a steel bracket. It carries heavy books."
    r = _revise(mistaken("Choice", drafted))
    assert r is not None
    assert (
        "They painted it black.[^3] The person chose a steel bracket.[^1] "
        "It carries heavy books.[^1]\n"
    ) in r.text


def test_a_sentence_ends_after_its_punctuation_and_its_markers() -> None:
    assert sentences('He said "yes." Then.[^1][^2] v1.2 is out? Tail') == [
        ('He said "yes."', ""),
        ("Then.", "[^1][^2]"),
        ("v1.2 is out?", ""),
        ("Tail", ""),
    ]


def test_a_delta_of_two_sources_adds_a_paragraph_each_cited_to_its_own() -> None:
    drafted = ["The bracket is painted black.", "The bracket needs four screws."]
    r = _revise(Editor(route={"Choice"}, drafts={"Choice": drafted}), PAINT, SCREWS)
    assert r is not None
    assert "The bracket is painted black.[^3]\n\nThe bracket needs four screws.[^4]" in r.text
    assert "[^4]: `conv:dddddddd`" in r.text
    assert _passes_gate(OLD, r)


def test_the_lead_is_never_routed() -> None:
    editor = Editor()
    _judged(editor)
    assert ("route", LEAD) not in editor.asked


def test_a_stub_with_no_section_grows_a_new_one() -> None:
    old = build(
        TITLE,
        lead="A shelf bracket holds a shelf to a wall.[^1]\n\n{{stub}}",
        sections=[("References", "[^1]: `conv:aaaaaaaa` (2026-01-01, claude) — a bracket")],
    )
    drafts = {"Painting the shelf bracket black": "The bracket is painted black."}
    r = _revise(Editor(substantive="yes", drafts=drafts), text=old)
    assert r is not None
    assert parse(r.text).lead == "A shelf bracket holds a shelf to a wall.[^1]\n\n{{stub}}"
    assert "## Painting the shelf bracket black\n\nThe bracket is painted black.[^2]" in r.text


def test_subsections_and_code_after_a_sections_prose_stay_as_they_were() -> None:
    tail = "```sh\ndrill --size 6\n```\n\n### Wall plugs\n\nUse plugs.[^2]"
    old = OLD.replace(MOUNTING_BODY, f"{MOUNTING_BODY}\n\n{tail}")
    drafts: dict[str, str | list[str]] = {"Mounting": "The bracket is black too."}
    r = _revise(Editor(route={"Mounting"}, drafts=drafts), text=old)
    assert r is not None
    assert f"The bracket is black too.[^3]\n\n{tail}\n" in r.text
    assert _passes_gate(old, r)


def test_no_section_updated_and_a_substantive_delta_makes_a_new_named_section() -> None:
    drafted = "The person painted the bracket black.[1]"
    r = _revise(Editor(substantive="yes", drafts={"Painting the shelf bracket black": drafted}))
    assert r is not None
    section = extract_section(r.text, "Painting the shelf bracket black")
    assert (
        section
        == "## Painting the shelf bracket black\n\nThe person painted the bracket black.[^3]"
    )
    assert r.text.index("## Painting") < r.text.index("## References")
    assert r.touched == ("Painting the shelf bracket black",)
    assert _passes_gate(OLD, r)


def test_no_section_updated_and_nothing_substantive_changes_nothing() -> None:
    editor = Editor(substantive="no")
    assert _judged(editor) == NothingNew()
    assert editor.asked == [
        ("route", "Choice"),
        ("route", "Mounting"),
        ("substantive", LEAD),
    ]


def test_a_new_section_is_never_named_like_one_the_article_has() -> None:
    taken = Source(
        "eeee:0-1", "choice", "user: more on the choice", "eeeeeeee", "2026-02-05", "claude"
    )
    drafts = {"Painting the shelf bracket black": "The person painted the bracket black.[2]"}
    r = _revise(Editor(substantive="yes", drafts=drafts), taken, PAINT)
    assert r is not None
    assert [s.heading for s in parse(r.text).sections][:3] == [
        "Choice",
        "Mounting",
        "Painting the shelf bracket black",
    ]


def test_a_changed_position_dates_the_sections_present_tense_sentences_before_the_new_one() -> None:
    editor = Editor(
        route={"Choice"},
        drafts={"Choice": "The bracket is painted black."},
        conflict="yes",
        kind="changed",
    )
    r = _revise(editor)
    assert r is not None
    assert extract_section(r.text, "Choice") == (
        "## Choice\n\nThe person chose a steel bracket.[^1] As of January 2026, it carries "
        "heavy books.[^1]\n\nThe bracket is painted black.[^3]"
    )
    assert parse(r.text).section("History") is None
    assert r.touched == ("Choice",)
    assert _passes_gate(OLD, r)


def test_the_history_section_is_never_routed() -> None:
    old = OLD.replace(
        "## References", "## History\n\nIt was first bought plain.[^2]\n\n## References"
    )
    editor = Editor()
    _judged(editor, text=old)
    assert ("route", "History") not in editor.asked


def test_a_section_with_no_name_is_never_routed() -> None:
    # `## [^2]` names nothing: addressed by its heading it is the lead, so a paragraph
    # meant for it would land in the lead.
    old = OLD.replace("## References", "## [^2]\n\nIt was first bought plain.[^2]\n\n## References")
    editor = Editor(route={"[^2]"}, drafts={"[^2]": "The bracket is painted black."})
    r = _judged(editor, text=old)
    assert ("route", "[^2]") not in editor.asked
    assert not isinstance(r, Revision) or parse(r.text).lead == parse(old).lead


def test_unsure_whether_changed_or_mistaken_is_taken_as_changed() -> None:
    drafted = "The person uses a black bracket now."
    editor = Editor(route={"Choice"}, drafts={"Choice": drafted}, conflict="yes", kind="unsure")
    r = _revise(editor)
    assert r is not None
    assert "As of January 2026, it carries heavy books.[^1]" in r.text


def test_a_mistake_is_corrected_silently_and_its_citation_may_go() -> None:
    r = _revise(mistaken("Mounting", "The bracket is mounted with four screws.[2]"), SCREWS)
    assert r is not None
    assert (
        extract_section(r.text, "Mounting")
        == "## Mounting\n\nThe bracket is mounted with four screws.[^3]"
    )
    assert parse(r.text).section("History") is None
    assert r.allow_dropped == ("bbbbbbbb",)
    assert "conv:bbbbbbbb" not in r.text
    assert SCREWS_DEF_3 in r.text
    assert _passes_gate(OLD, r)


def test_an_unusable_correction_adds_the_new_paragraph_instead() -> None:
    editor = mistaken("Mounting", "## Screws\nFour.")
    editor.drafts = {"Mounting": "The bracket needs four screws."}
    r = _revise(editor, SCREWS)
    assert r is not None
    assert extract_section(r.text, "Mounting") == (
        f"## Mounting\n\n{MOUNTING_BODY}\n\nThe bracket needs four screws.[^3]"
    )


MOUNTED = "The bracket is mounted with two screws.[1]"
PAINTED = "They painted it black.[2]"


def test_a_clean_correction_of_the_garbage_cases_is_taken() -> None:
    r = _revise(mistaken("Mounting", f"{MOUNTED}\n{PAINTED}"))
    assert r is not None
    assert "They painted it black.[^3]" in r.text


GARBAGE = [
    "",
    f"## Colour\n{MOUNTED}\n{PAINTED}",
    f"{MOUNTED}\n{PAINTED}\n[2]: conv:cccccccc",
    f"{MOUNTED}\n{PAINTED}\n[^2]: see above",
    f"{MOUNTED}\nThey painted it black.[9]",
    f"{MOUNTED}\nThey painted it black, see [[Paint]].[2]",
    f"{MOUNTED}\nThey painted it <b>black</b>.[2]",
    f"{MOUNTED}\n```sh\nblack\n```",
    f"{MOUNTED}\n{PAINTED}\n[^a]: see above",
    f"{MOUNTED}\nuser: I painted the bracket black.",
    f"{MOUNTED}\n{PAINTED}\n{PAINTED}",
    f"{MOUNTED}\nThey chose the colour YYYY-MM-DD.[2]",
    f"{MOUNTED}\nThey painted it black.[N]",
    f"{MOUNTED}\n" + " ".join(["black"] * 400) + ".[2]",
    f"{MOUNTED}\nThey painted it black.[2] [tool: Read — paint.css]",
    f"{MOUNTED}\nThey painted it black, see [the notes](notes.md).[2]",
    f"{MOUNTED}\nI'll paint it black.[2]",
    f"{MOUNTED}\nLet me read the file first.[2]",
    f"{MOUNTED}\nThey painted it black and then the",
]


def _case(g: str) -> str:
    return g.replace(MOUNTED, "")[:24] or "empty"


@pytest.mark.parametrize("garbage", GARBAGE, ids=_case)
def test_a_garbage_answer_is_no_section_prose(garbage: str) -> None:
    assert usable(garbage, 2, 200) is None


@pytest.mark.parametrize("garbage", GARBAGE, ids=_case)
def test_a_garbage_correction_leaves_the_section_and_with_nothing_else_changes_nothing(
    garbage: str,
) -> None:
    assert _revise(mistaken("Mounting", garbage)) is None


def test_a_persons_uncited_paragraph_kept_as_it_was_is_not_cited_to_the_delta() -> None:
    old = OLD.replace(MOUNTING_BODY, f"{MOUNTING_BODY}\n\nI like it level.")
    drafts: dict[str, str | list[str]] = {"Mounting": "The bracket is painted black."}
    r = _revise(Editor(route={"Mounting"}, drafts=drafts), text=old)
    assert r is not None
    assert "\n\nI like it level.\n\nThe bracket is painted black.[^3]\n" in r.text


def test_a_garbage_draft_costs_only_its_own_section() -> None:
    drafts: dict[str, str | list[str]] = {
        "Choice": "The bracket is black now.",
        "Mounting": "## Screws\n",
    }
    r = _revise(Editor(route={"Choice", "Mounting"}, drafts=drafts))
    assert r is not None
    assert r.touched == ("Choice",)
    assert extract_section(r.text, "Mounting") == extract_section(OLD, "Mounting")


def test_a_runaway_draft_costs_only_its_own_section() -> None:
    drafts: dict[str, str | list[str]] = {"Choice": "The bracket is black now."}
    editor = Editor(route={"Choice", "Mounting"}, drafts=drafts, failing_drafts={"Mounting"})
    r = _revise(editor)
    assert r is not None
    assert r.touched == ("Choice",)


def test_a_draft_that_shrinks_a_section_below_the_word_floor_is_left_out() -> None:
    old = OLD.replace(
        MOUNTING_BODY, MOUNTING_BODY + " It sits level and holds a long shelf of books.[^2]"
    )
    assert _revise(mistaken("Mounting", "Mounted.[1] Black.[2]"), text=old) is None


def test_a_yes_no_answer_the_seam_cannot_give_raises() -> None:
    with pytest.raises(ModelCallError):
        _revise(Editor(substantive="Probably, yes."))


def test_no_sources_no_calls() -> None:
    editor = Editor()
    assert revise(editor, OLD, TITLE, (), unit="u") is None
    assert editor.asked == []


def test_calls_per_update_one_route_a_section_then_a_draft_an_excerpt_of_each_yes_one() -> None:
    editor = Editor(route={"Choice"}, drafts={"Choice": "The bracket is black now."})
    _revise(editor)
    assert [q for q, _ in editor.asked] == ["route", "route", "conflict", "draft"]


def test_a_routing_question_shows_a_sections_opening_not_the_whole_section() -> None:
    long_body = "First point here.[^1] Second point here. Third point is private detail."
    editor = Editor()
    _judged(editor, text=OLD.replace(CHOICE_BODY, long_body))
    [asked] = [
        u for (_, part), u in zip(editor.asked, editor.prompts, strict=True) if part == "Choice"
    ]
    assert "(First point here. Second point here.)\n" in asked
    assert "Third point" not in asked
    assert "painting the shelf bracket black: user: I painted the bracket black." in asked


def test_new_footnotes_are_numbered_after_the_articles_highest() -> None:
    assert top_label(OLD) == 2
    assert top_label("x[^7]\n\n[^12]: `conv:aaaaaaaa` (2026-01-01, c) — d\n") == 12
    assert top_label("x[^²][^3]\n\n[^٣]: `conv:aaaaaaaa` (2026-01-01, c) — d\n") == 3


def test_model_numbers_become_footnote_labels() -> None:
    paras = usable("One.[1] Two.[2, 3]", 3, 100)
    assert paras is not None
    assert relabel(paras, {1: "4", 2: "7", 3: "8"}, ["7"], "") == "One.[^4] Two.[^7][^8]"


@pytest.mark.slow  # real timing against input size
def test_reading_a_draft_takes_time_linear_in_its_size() -> None:
    def read(text: str) -> object:
        return usable(text, 3, 10**9), opening(text), sentences(text)

    hostile = "[1, " * 2000 + "[^" * 2000 + "a. " * 2000 + "<" * 2000 + ".[^1]" * 2000 + "." * 2000
    small = best_seconds(read, hostile)
    large = best_seconds(read, hostile * 8)
    assert large < small * 8 * 3


def test_the_first_citation_of_an_article_adds_its_references_section() -> None:
    old = build(
        TITLE, lead="A shelf bracket holds a shelf to a wall.", sections=[("Choice", "Steel.")]
    )
    drafts: dict[str, str | list[str]] = {"Choice": "The bracket is painted black."}
    r = _revise(Editor(route={"Choice"}, drafts=drafts), text=old)
    assert r is not None
    assert r.text.endswith(f"## References\n\n{PAINT_DEF.replace('[^3]', '[^1]')}\n")
    choice = extract_section(r.text, "Choice")
    assert choice == "## Choice\n\nSteel.\n\nThe bracket is painted black.[^1]"
    assert _passes_gate(old, r)


@pytest.mark.parametrize("conflict", ["no", "yes"])
def test_an_article_with_crlf_line_endings_keeps_them_in_every_part_written(conflict: str) -> None:
    old = OLD.replace("\n", "\r\n")
    drafts: dict[str, str | list[str]] = {"Choice": "The bracket is black now."}
    r = _revise(Editor(route={"Choice"}, drafts=drafts, conflict=conflict), text=old)
    assert r is not None
    assert "\n" not in r.text.replace("\r\n", "")
    assert _passes_gate(old, r)


def test_a_new_section_in_a_crlf_article_keeps_its_line_endings() -> None:
    old = OLD.replace("\n", "\r\n")
    drafts = {"Painting the shelf bracket black": "The person painted the bracket black.[1]"}
    r = _revise(Editor(substantive="yes", drafts=drafts), text=old)
    assert r is not None
    assert "\n" not in r.text.replace("\r\n", "")
