"""EXTRACT on seeded chunks: code proposes, the (scripted) model judges each candidate,
and the ones judged yes become subjects with a mention of the chunk."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.article.document import build
from dreaming.config import Settings
from dreaming.ledger import Ledger, chunks, conversations, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.subjects import Mention
from dreaming.model import TextModel, load
from dreaming.policy.pages import Policy
from dreaming.query.reindex import reindex
from dreaming.subjects.candidates import propose
from dreaming.subjects.names import AliasIndex
from dreaming.transcript import Message
from dreaming.vault import Vault
from stages.extract import KEPT, ExtractStage, chunk_text, full_text
from stages.prompts import extract as prompt
from stages.runner.contract import StageContext, Unit
from tests.fixtures.extract.gold import SYNTHETIC, GoldChunk
from tests.fixtures.model.support import TINY, tiny_cache
from tests.support import Answer, ScriptedModelFactory, run_unit

__all__ = ["tiny_cache"]  # a fixture, imported for pytest

NOW = "2026-03-02T03:00:00+00:00"
BREAD = SYNTHETIC[0]
GARDEN = next(g for g in SYNTHETIC if g.name == "garden")


def seed(ledger: Ledger, gold: GoldChunk, conv_id: str = "conv", updated: str = NOW) -> str:
    msgs = [Message(role, text) for role, text in gold.messages]  # type: ignore[arg-type]
    conversations.put(
        ledger,
        NewConversation(conv_id, conv_id, "raw", "Raw/a.md", None, None, None, updated,
                        len(msgs), "sha"),
        NOW,
    )  # fmt: skip
    conversations.add_messages(ledger, conv_id, 0, msgs)
    chunk = Chunk(conv_id, 0, len(msgs) - 1, gold.name, "h", "seg-1")
    chunks.replace(ledger, conv_id, [chunk], NOW)
    return chunk.id


def context(vault: Vault, ledger: Ledger, model: TextModel | None = None) -> StageContext:
    def no_model() -> TextModel:
        raise AssertionError("this run should call no model")

    return StageContext(
        vault=vault,
        ledger=ledger,
        settings=Settings(vault=vault.root, model="scripted:test"),
        policy=Policy(vault),
        run_id="n1",
        model=(lambda: model) if model is not None else no_model,
        now=lambda: NOW,
    )


def the_text(gold: GoldChunk) -> str:
    return full_text([conversations.StoredMessage(r, t, None) for r, t in gold.messages])  # type: ignore[arg-type]


def answers(
    gold: GoldChunk, yes: Iterable[str], main: str = "yes", default: str = "no"
) -> list[Answer]:
    """A script that says yes to the candidates in `yes` and `default` to the others."""
    text = chunk_text([conversations.StoredMessage(r, t, None) for r, t in gold.messages])  # type: ignore[arg-type]
    yes = set(yes)
    out = []
    for c in propose(the_text(gold), AliasIndex()):
        said = "yes" if c.key in yes else default
        out.append(Answer("extract", prompt.about(text, c.display), said, prompt.SYSTEM))
        out.append(Answer("extract", prompt.main(text, c.display), main, prompt.SYSTEM))
    return out


def only_unit(ctx: StageContext) -> Unit:
    (unit,) = ExtractStage().units(ctx)
    return unit


def test_subjects_judged_yes_are_stored_with_their_mentions(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    model = scripted_model(answers(GARDEN, {"tomato", "companion planting"}))
    ctx = context(vault, ledger, model)
    result = run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert result.status == "done"
    assert subjects.mentions_in(ledger, chunk_id) == [
        Mention(chunk_id, "tomato", "Tomato", True),
        Mention(chunk_id, "companion planting", "Companion Planting", False),
    ]
    stored = subjects.get(ledger, "companion planting")
    assert stored is not None
    assert (stored.display, stored.status) == ("Companion Planting", "candidate")


def test_a_chunk_keeps_only_the_subjects_the_model_was_surest_of(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    many = GoldChunk(
        "many",
        (
            ("user", "Compare Gizmo Pro, Gadget Works, Widget Hub, Sprocket Lab, Cog Forge "
             "and Bolt Yard."),
            ("assistant", "Gizmo Pro is fast; Gadget Works is cheap; Widget Hub, Sprocket Lab, "
             "Cog Forge and Bolt Yard are older."),
        ),
        frozenset(),
    )  # fmt: skip
    chunk_id = seed(ledger, many)
    text = chunk_text([conversations.StoredMessage(r, t, None) for r, t in many.messages])  # type: ignore[arg-type]
    found = propose(the_text(many), AliasIndex())
    assert len(found) > KEPT
    # Yes to every candidate, sure only of the last ones the code proposed.
    surest = found[-KEPT:]
    script = [
        Answer("extract", prompt.about(text, c.display), "yes", prompt.SYSTEM, sure)
        for c in found
        for sure in [0.99 if c in surest else 0.01]
    ]
    script += [Answer("extract", prompt.main(text, c.display), "yes", prompt.SYSTEM) for c in found]
    ctx = context(vault, ledger, scripted_model(script))
    run_unit(ExtractStage(), ctx, only_unit(ctx))
    kept = [m.subject for m in subjects.mentions_in(ledger, chunk_id)]
    assert sorted(kept) == sorted(c.key for c in surest)


def test_the_main_subject_is_the_first_yes_only_when_the_model_says_so(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    ctx = context(vault, ledger, scripted_model(answers(GARDEN, {"companion planting"}, main="no")))
    run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert subjects.mentions_in(ledger, chunk_id) == [
        Mention(chunk_id, "companion planting", "Companion Planting", False)
    ]


def test_a_name_the_assistant_wrote_in_passing_is_never_asked_about(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    passing = GoldChunk(
        "gizmo",
        (
            ("user", "Why does my Gizmo overheat?"),
            ("assistant", "Key Findings: the Gizmo fan is clogged. Clean the Gizmo fan."),
        ),
        frozenset({"Gizmo"}),
    )
    chunk_id = seed(ledger, passing)
    text = chunk_text([conversations.StoredMessage(r, t, None) for r, t in passing.messages])  # type: ignore[arg-type]
    # Scripted for Gizmo alone: a question about "Key Findings" would fail the unit.
    model = scripted_model(
        [
            Answer("extract", prompt.about(text, "Gizmo"), "yes", prompt.SYSTEM),
            Answer("extract", prompt.main(text, "Gizmo"), "yes", prompt.SYSTEM),
        ]
    )
    ctx = context(vault, ledger, model)
    assert run_unit(ExtractStage(), ctx, only_unit(ctx)).status == "done"
    assert [m.subject for m in subjects.mentions_in(ledger, chunk_id)] == ["gizmo"]


def test_all_no_is_a_done_unit_with_no_subject(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    ctx = context(vault, ledger, scripted_model(answers(GARDEN, set())))
    assert run_unit(ExtractStage(), ctx, only_unit(ctx)).status == "done"
    assert subjects.mentions_in(ledger, chunk_id) == []


def test_a_chunk_with_no_candidate_is_done_without_a_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    thanks = next(g for g in SYNTHETIC if g.name == "thank you")
    seed(ledger, thanks)
    ctx = context(vault, ledger)
    assert run_unit(ExtractStage(), ctx, only_unit(ctx)).status == "done"


def test_a_wrong_shape_answer_fails_the_unit_and_stores_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    script = answers(GARDEN, {"tomato", "companion planting"})
    script[2] = Answer("extract", script[2].user, "Mostly, yes.", prompt.SYSTEM)
    ctx = context(vault, ledger, scripted_model(script))
    result = run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert result.status == "failed"
    assert result.detail
    assert subjects.mentions_in(ledger, chunk_id) == []
    assert subjects.get(ledger, "tomato") is None


def test_running_again_on_the_same_input_changes_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    ctx = context(vault, ledger, scripted_model(answers(GARDEN, {"tomato", "companion planting"})))
    first_unit = only_unit(ctx)
    run_unit(ExtractStage(), ctx, first_unit)
    before = subjects.mentions_in(ledger, chunk_id)
    run_unit(ExtractStage(), ctx, first_unit)
    assert subjects.mentions_in(ledger, chunk_id) == before
    assert only_unit(ctx) == first_unit


def test_a_judged_again_chunk_keeps_only_its_new_subjects(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk_id = seed(ledger, GARDEN)
    ctx = context(vault, ledger, scripted_model(answers(GARDEN, {"tomato", "companion planting"})))
    run_unit(ExtractStage(), ctx, only_unit(ctx))
    ctx = context(vault, ledger, scripted_model(answers(GARDEN, {"companion planting"})))
    run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert [m.subject for m in subjects.mentions_in(ledger, chunk_id)] == ["companion planting"]


def test_units_are_chunks_oldest_conversation_first(vault: Vault, ledger: Ledger) -> None:
    seed(ledger, SYNTHETIC[1], "newer", "2026-03-02T00:00:00+00:00")
    seed(ledger, SYNTHETIC[0], "older", "2026-03-01T00:00:00+00:00")
    ctx = context(vault, ledger)
    assert [u.key for u in ExtractStage().units(ctx)] == ["older:0-1", "newer:0-2"]


def test_a_chunk_whose_topic_is_ignored_names_no_subject_and_calls_no_model(
    vault: Vault, ledger: Ledger
) -> None:
    chunk_id = seed(ledger, GARDEN)
    page = vault.meta / "Topics_to_Ignore.md"
    text = page.read_text(encoding="utf-8").replace("```ignore\n", f"```ignore\n{GARDEN.name}\n")
    page.write_text(text, encoding="utf-8")
    ctx = context(vault, ledger)
    result = run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert (result.status, result.detail) == ("done", "its topic is in Meta/Topics_to_Ignore.md")
    assert subjects.mentions_in(ledger, chunk_id) == []


def ignore(vault: Vault, pattern: str) -> None:
    page = vault.meta / "Topics_to_Ignore.md"
    text = page.read_text(encoding="utf-8").replace("```ignore\n", f"```ignore\n{pattern}\n")
    page.write_text(text, encoding="utf-8")


def test_an_ignore_pattern_that_matches_the_chunk_makes_the_unit_new(
    vault: Vault, ledger: Ledger
) -> None:
    seed(ledger, BREAD)
    before = only_unit(context(vault, ledger))
    ignore(vault, BREAD.name.split()[0])
    assert only_unit(context(vault, ledger)).input_hash != before.input_hash


def test_an_ignore_pattern_for_another_topic_leaves_the_unit_done(
    vault: Vault, ledger: Ledger
) -> None:
    seed(ledger, BREAD)
    before = only_unit(context(vault, ledger))
    ignore(vault, "a topic no chunk has")
    assert only_unit(context(vault, ledger)).input_hash == before.input_hash


def test_an_edited_entities_page_makes_the_unit_new(vault: Vault, ledger: Ledger) -> None:
    seed(ledger, BREAD)
    before = only_unit(context(vault, ledger))
    page = vault.meta / "Entities.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nta => Thing Alpha\n", encoding="utf-8")
    assert only_unit(context(vault, ledger)).input_hash != before.input_hash


def test_a_different_model_makes_the_unit_new(vault: Vault, ledger: Ledger) -> None:
    seed(ledger, BREAD)
    ctx = context(vault, ledger)
    other = StageContext(**{**ctx.__dict__, "settings": Settings(vault=vault.root, model="x:y")})
    assert only_unit(other).input_hash != only_unit(ctx).input_hash


def test_a_declared_alias_names_the_subject_by_its_title(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    page = vault.meta / "Entities.md"
    text = page.read_text(encoding="utf-8").replace(
        "# <Other name> => <Canonical Title>\n",
        "# <Other name> => <Canonical Title>\nrye flour => Rye\n",
    )
    page.write_text(text, encoding="utf-8")
    chunk_id = seed(ledger, BREAD)
    body = chunk_text([conversations.StoredMessage(r, t, None) for r, t in BREAD.messages])  # type: ignore[arg-type]
    index = AliasIndex.build([("rye flour", "Rye")])
    script = [
        Answer(
            "extract",
            prompt.about(body, c.display),
            "yes" if c.key == "rye" else "no",
            prompt.SYSTEM,
        )
        for c in propose(the_text(BREAD), index)
    ] + [Answer("extract", prompt.main(body, "Rye"), "yes", prompt.SYSTEM)]
    ctx = context(vault, ledger, scripted_model(script))
    run_unit(ExtractStage(), ctx, only_unit(ctx))
    assert subjects.mentions_in(ledger, chunk_id) == [Mention(chunk_id, "rye", "Rye Flour", True)]


def test_a_long_chunk_keeps_its_head_and_tail() -> None:
    msgs = [
        conversations.StoredMessage("user", f"message {i} " + "x" * 1400, None) for i in range(20)
    ]
    text = chunk_text(msgs)
    assert "message 0 " in text
    assert "message 19 " in text
    assert "message 10 " not in text
    assert "characters left out" in text


def test_a_long_message_is_cut(tmp_path: Path) -> None:
    text = chunk_text([conversations.StoredMessage("user", "y" * 5000, None)])
    assert len(text) < 1600


@pytest.mark.model
@pytest.mark.timeout(600)
def test_the_tiny_real_model_completes_the_stage(
    vault: Vault, ledger: Ledger, tiny_cache: Path
) -> None:
    chunk_id = seed(ledger, BREAD)
    model = load(f"mlx:{TINY}", cache_dir=tiny_cache)
    ctx = context(vault, ledger, model)
    assert run_unit(ExtractStage(), ctx, only_unit(ctx)).status == "done"
    assert all(m.chunk_id == chunk_id for m in subjects.mentions_in(ledger, chunk_id))


def test_an_article_alias_names_the_subject_by_the_article_title(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    infobox = {"kind": "thing", "aliases": "love apple"}
    article = build("Tomato Plant", lead="A plant.", sections=[], infobox=infobox)
    (vault.articles / "Tomato_Plant.md").write_text(article, encoding="utf-8")
    reindex(vault, ledger)
    gold = GoldChunk("apples", (("user", "My love apple seedlings are leggy."),), frozenset())
    chunk_id = seed(ledger, gold)
    body = chunk_text([conversations.StoredMessage("user", gold.messages[0][1], None)])
    script = [
        Answer("extract", prompt.about(body, "Tomato Plant"), "yes", prompt.SYSTEM),
        Answer("extract", prompt.main(body, "Tomato Plant"), "yes", prompt.SYSTEM),
    ]
    ctx = context(vault, ledger, scripted_model(script))
    assert run_unit(ExtractStage(), ctx, only_unit(ctx)).status == "done"
    assert subjects.mentions_in(ledger, chunk_id) == [
        Mention(chunk_id, "tomato plant", "love apple", True)
    ]


def test_an_alias_from_an_article_written_after_an_earlier_run_is_known_the_next_run(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    stage = ExtractStage()
    gold = GoldChunk("apples", (("user", "My love apple seedlings are leggy."),), frozenset())
    chunk_id = seed(ledger, gold)
    earlier = context(vault, ledger)
    run_unit(stage, earlier, only_unit(earlier))
    infobox = {"kind": "thing", "aliases": "love apple"}
    article = build("Tomato Plant", lead="A plant.", sections=[], infobox=infobox)
    (vault.articles / "Tomato_Plant.md").write_text(article, encoding="utf-8")
    reindex(vault, ledger)
    body = chunk_text([conversations.StoredMessage("user", gold.messages[0][1], None)])
    script = [
        Answer("extract", prompt.about(body, "Tomato Plant"), "yes", prompt.SYSTEM),
        Answer("extract", prompt.main(body, "Tomato Plant"), "yes", prompt.SYSTEM),
    ]
    later = replace(context(vault, ledger, scripted_model(script)), run_id="n2")
    assert run_unit(stage, later, only_unit(later)).status == "done"
    assert [m.subject for m in subjects.mentions_in(ledger, chunk_id)] == ["tomato plant"]
