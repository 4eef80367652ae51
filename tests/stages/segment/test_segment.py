"""SEGMENT on real vaults and ledgers, with scripted model answers.

Each test first asks a rule (which prompt gets which answer) through `Recorder`, then
runs the stage again on a `scripted:` model holding exactly those answers, so the
prompts are shown to be deterministic and the answers reach the stage through the
model seam and its constraint checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dreaming.config import load_settings
from dreaming.ledger import Ledger, chunks, conversations
from dreaming.model import Completion, Constraint, TextModel, Usage, load
from dreaming.policy.pages import Policy
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from stages.runner.contract import StageContext, UnitResult
from stages.segment.stage import SegmentStage
from tests.fixtures.model.support import tiny_cache
from tests.support import Answer, Counting, ScriptedModelFactory, drop, raw_note, run_unit

__all__ = ["tiny_cache"]  # a fixture, imported for pytest

Rule = Callable[[str], str]
"""The answer to a prompt's user text."""

BREAD = (
    ("user", "How do I keep sourdough bread fresh for a whole week?"),
    ("assistant", "Wrap the loaf in a cloth and freeze slices you will not eat soon."),
    ("user", "Does freezing change the crust of the sourdough bread?"),
    ("assistant", "Reheat frozen slices in a hot oven and the crust crisps again."),
)
TWO_TOPICS = (
    ("user", "My tomato plants have yellow leaves at the bottom. What causes that?"),
    ("assistant", "Often overwatering; water only when the top soil is dry."),
    ("user", "Different question: convert a python list of dictionaries into a dataframe?"),
    ("assistant", "Pass it to the constructor: keys become columns."),
    ("user", "Can I choose the column order in that dataframe?"),
    ("assistant", "Yes, pass the column names in the order you want."),
)
NEW_SUBJECT = "Different question"


def same_topic_unless(marker: str) -> Rule:
    """Boundary questions: `no` (not the same topic) when the next message holds `marker`;
    label questions: a label naming the chunk's first words."""

    def answer(user: str) -> str:
        if user.startswith("Earlier messages:"):
            next_message = user.split("Next message:", 1)[1]
            return "no" if marker in next_message else "yes"
        first = user.splitlines()[1].split()[1:4]
        return "Topic of " + " ".join(first)

    return answer


@dataclass
class Recorder:
    """A model answering by rule, keeping every prompt it was asked."""

    rule: Rule
    asked: list[Answer] = field(default_factory=list)
    spec: str = "recorder"
    load_seconds: float | None = None

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        text = self.rule(user)
        self.asked.append(Answer(stage, user, text, system))
        return Completion(text, Usage())

    def unload(self) -> None:
        """Nothing is held."""


def context(vault: Vault, ledger: Ledger, model: TextModel) -> StageContext:
    return StageContext(
        vault=vault,
        ledger=ledger,
        settings=load_settings(vault.root),
        policy=Policy(vault),
        run_id="run-1",
        model=lambda: model,
        now=lambda: "2026-01-03T00:00:00Z",
    )


def store(vault: Vault, ledger: Ledger, name: str, turns: Iterable[tuple[str, str]]) -> str:
    path = drop(vault, f"{name}.md", raw_note(*turns))
    ingest(vault, ledger)
    return conversations.in_file(ledger, vault.rel(path))[0]


def segment(
    vault: Vault, ledger: Ledger, conv_id: str, model: TextModel
) -> tuple[UnitResult, list[chunks.Chunk]]:
    ctx = context(vault, ledger, model)
    stage = SegmentStage()
    unit = next(u for u in stage.units(ctx) if u.key == conv_id)
    return run_unit(stage, ctx, unit), chunks.of_conversation(ledger, conv_id)


def scripted(
    vault: Vault, ledger: Ledger, conv_id: str, rule: Rule, scripted_model: ScriptedModelFactory
) -> TextModel:
    """A scripted model holding the answers `rule` gives to this conversation's prompts."""
    recorder = Recorder(rule)
    with ledger.savepoint("record"):
        segment(vault, ledger, conv_id, recorder)
        ledger.db.execute("DELETE FROM chunks")
    return scripted_model(recorder.asked)


def ranges(found: list[chunks.Chunk]) -> list[tuple[int, int]]:
    return [(c.first_message, c.last_message) for c in found]


def test_a_one_topic_conversation_stays_one_chunk(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "bread", BREAD)
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    result, found = segment(vault, ledger, conv, model)
    assert result.status == "done"
    assert ranges(found) == [(0, 3)]
    assert found[0].label == "Topic of How do I"
    assert found[0].id == f"{conv}:0-3"


@pytest.mark.parametrize(
    "turns",
    [
        [("user", "hi"), ("assistant", "Hello! How can I help you today?")],
        [("user", "Can you analyse the files in this folder and tell me what is missing?")],
    ],
    ids=["a greeting", "a question nobody answered"],
)
def test_a_conversation_with_nothing_to_file_gives_no_chunk_and_costs_no_call(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, turns: list[tuple[str, str]]
) -> None:
    conv = store(vault, ledger, "greeting", turns)
    result, found = segment(vault, ledger, conv, scripted_model([]))
    assert result.status == "done"
    assert (result.detail or "").startswith("nothing to file")
    assert found == []


def test_a_one_chunk_conversation_with_a_given_title_is_labelled_by_it_with_no_call(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    path = drop(vault, "bread.md", raw_note(*BREAD, title="Keeping sourdough bread fresh"))
    ingest(vault, ledger)
    (conv,) = conversations.in_file(ledger, vault.rel(path))
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    asked = Counting(model)
    result, found = segment(vault, ledger, conv, asked)
    assert result.status == "done"
    assert [c.label for c in found] == ["Keeping sourdough bread fresh"]
    assert asked.calls == 0


def test_a_conversation_of_two_questions_is_one_chunk_with_no_boundary_question(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "two", TWO_TOPICS[:4])
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    asked = Counting(model)
    _, found = segment(vault, ledger, conv, asked)
    assert ranges(found) == [(0, 3)]
    assert asked.calls == 1  # the label


def test_a_title_cut_from_the_first_message_is_no_label(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    path = drop(vault, "bread.md", raw_note(*BREAD, title="How do I keep sourdough bread…"))
    ingest(vault, ledger)
    (conv,) = conversations.in_file(ledger, vault.rel(path))
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    result, found = segment(vault, ledger, conv, model)
    assert result.status == "done"
    assert [c.label for c in found] == ["Topic of How do I"]


def test_a_two_topic_conversation_splits_where_the_second_topic_starts(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "two", TWO_TOPICS)
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    result, found = segment(vault, ledger, conv, model)
    assert result.status == "done"
    assert ranges(found) == [(0, 1), (2, 5)]


def test_an_answer_in_the_wrong_shape_fails_the_unit_and_stores_no_chunks(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "two", TWO_TOPICS)

    def rambling(user: str) -> str:
        return "maybe" if user.startswith("Earlier messages:") else "A label of the topic"

    model = scripted(vault, ledger, conv, rambling, scripted_model)
    result, found = segment(vault, ledger, conv, model)
    assert result.status == "failed"
    assert "Choice" in (result.detail or "")
    assert found == []


def test_a_label_too_short_to_use_falls_back_to_the_chunks_own_words(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "bread", BREAD)

    def terse(user: str) -> str:
        return "yes" if user.startswith("Earlier messages:") else "Bread"

    model = scripted(vault, ledger, conv, terse, scripted_model)
    _, found = segment(vault, ledger, conv, model)
    assert found[0].label == "keep sourdough bread fresh whole week freezing change crust"


def test_a_label_too_short_is_asked_for_once_more(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "bread", BREAD)

    def terse_then_full(user: str) -> str:
        if user.startswith("Earlier messages:"):
            return "yes"
        return "Keeping sourdough bread fresh for a week" if "too few" in user else "Bread"

    model = scripted(vault, ledger, conv, terse_then_full, scripted_model)
    _, found = segment(vault, ledger, conv, model)
    assert found[0].label == "Keeping sourdough bread fresh for a week"


def test_a_long_conversation_on_one_topic_stays_one_chunk(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    turns = [
        (role, f"Step {n} of tuning the bicycle brake cables")
        for n in range(80)
        for role in ("user", "assistant")
    ]
    conv = store(vault, ledger, "long", turns)
    result, found = segment(vault, ledger, conv, Recorder(same_topic_unless("never said")))
    assert result.status == "done"
    assert [(c.first_message, c.last_message) for c in found] == [(0, 159)]


def test_a_long_conversation_is_read_in_windows_and_every_message_is_covered(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    subjects = ["gardening soil compost", "python dataframe columns", "bicycle brake cables"]
    turns: list[tuple[str, str]] = []
    for n in range(150):
        subject = subjects[n // 50]
        turns.append(("user", f"Question {n} about {subject} and detail{n} " + "x" * 3000))
        turns.append(("assistant", f"Answer {n} on {subject}."))
    conv = store(vault, ledger, "long", turns)
    recorder = Recorder(same_topic_unless("Question 50 about"))
    result, found = segment(vault, ledger, conv, recorder)
    assert result.status == "done"
    covered = [i for c in found for i in range(c.first_message, c.last_message + 1)]
    assert covered == list(range(300))
    assert 100 in {c.first_message for c in found}
    assert max(len(a.user) + len(a.system or "") for a in recorder.asked) < 2048 * 4


def test_segmenting_the_same_input_again_changes_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conv = store(vault, ledger, "two", TWO_TOPICS)
    model = scripted(vault, ledger, conv, same_topic_unless(NEW_SUBJECT), scripted_model)
    _, first = segment(vault, ledger, conv, model)
    rows = ledger.db.execute("SELECT * FROM chunks ORDER BY id").fetchall()
    _, second = segment(vault, ledger, conv, model)
    assert second == first
    assert ledger.db.execute("SELECT * FROM chunks ORDER BY id").fetchall() == rows


def test_the_input_hash_follows_the_conversation_the_policy_and_the_model(
    vault: Vault, ledger: Ledger
) -> None:
    conv = store(vault, ledger, "bread", BREAD)
    stage = SegmentStage()

    def unit_hash() -> str:
        ctx = context(vault, ledger, Recorder(same_topic_unless(NEW_SUBJECT)))
        return next(u.input_hash for u in stage.units(ctx) if u.key == conv)

    before = unit_hash()
    assert unit_hash() == before
    page = vault.meta / "Chunking.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert unit_hash() != before


def test_an_edited_ignore_list_segments_nothing_again(vault: Vault, ledger: Ledger) -> None:
    conv = store(vault, ledger, "bread", BREAD)
    ctx = context(vault, ledger, Recorder(same_topic_unless(NEW_SUBJECT)))
    before = next(u.input_hash for u in SegmentStage().units(ctx) if u.key == conv)
    page = vault.meta / "Topics_to_Ignore.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    ctx = context(vault, ledger, Recorder(same_topic_unless(NEW_SUBJECT)))
    assert next(u.input_hash for u in SegmentStage().units(ctx) if u.key == conv) == before


def test_units_come_least_recently_updated_first(vault: Vault, ledger: Ledger) -> None:
    later = store(vault, ledger, "later", BREAD)
    ledger.db.execute("UPDATE conversations SET updated_at = '2026-02-01' WHERE id = ?", (later,))
    earlier = store(vault, ledger, "earlier", TWO_TOPICS)
    ledger.db.execute("UPDATE conversations SET updated_at = '2026-01-01' WHERE id = ?", (earlier,))
    ctx = context(vault, ledger, Recorder(same_topic_unless(NEW_SUBJECT)))
    assert [u.key for u in SegmentStage().units(ctx)] == [earlier, later]


def test_a_conversation_the_night_s_round_leaves_waiting_is_not_listed(
    vault: Vault, ledger: Ledger
) -> None:
    later = store(vault, ledger, "later", BREAD)
    earlier = store(vault, ledger, "earlier", TWO_TOPICS)
    ctx = context(vault, ledger, Recorder(same_topic_unless(NEW_SUBJECT)))
    ctx.waiting = frozenset({earlier})
    assert [u.key for u in SegmentStage().units(ctx)] == [later]


@pytest.mark.model
@pytest.mark.timeout(600)
def test_the_tiny_real_model_gives_valid_covering_chunks_or_fails_cleanly(
    vault: Vault, ledger: Ledger, tiny_cache: Path
) -> None:
    conv = store(vault, ledger, "two", TWO_TOPICS)
    model = load("mlx:smollm2-135m", cache_dir=tiny_cache)
    result, found = segment(vault, ledger, conv, model)
    if result.status == "done":
        covered = [i for c in found for i in range(c.first_message, c.last_message + 1)]
        assert covered == list(range(len(TWO_TOPICS)))
        assert all(c.label for c in found)
    else:
        assert found == []
