"""SYNTHESIZE on hand-made bucket and subject rows: one unit per (bucket, article) with a
delta, CREATE through the run's Writer, progress per (chunk, article), and every way a
unit can go wrong ending as a NO-OP, never as a crash or a write outside articles/."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.article import build, check, parse, problems
from dreaming.checks.audit import audit
from dreaming.ledger import Ledger, buckets, runs, subjects, woven
from dreaming.model import BudgetExhausted
from dreaming.vault import Vault, checksum
from stages.prompts import create as prompt
from stages.runner.pipeline import run_stage
from stages.synthesize import update
from stages.synthesize.sources import Source, load
from stages.synthesize.stage import SynthesizeStage
from stages.synthesize.update import Revision
from tests.support import Answer, Counting, ScriptedModelFactory
from tests.synth_support import (
    Talk,
    article_subject,
    captured_subject,
    context,
    create_script,
    redirected_subject,
    seed,
    story,
)

STARTER = Talk(
    "aaaaaaaa",
    "choosing rye flour for a sourdough starter",
    (
        ("user", "Which flour should I feed my sourdough starter with?"),
        ("assistant", "Whole rye flour ferments quickly because it carries more wild yeast."),
        ("user", "Then I will feed it whole rye flour twice a day."),
    ),
    "2026-01-05T09:00:00+00:00",
)
LOAF = Talk(
    "bbbbbbbb",
    "baking schedule for a rye loaf",
    (
        ("user", "How long should a rye loaf proof before baking?"),
        ("assistant", "A rye loaf proofs for about two hours, then bakes hot for an hour."),
        ("user", "I decided to bake it on Sunday mornings."),
    ),
    "2026-02-07T09:00:00+00:00",
)
DRAFTS = (
    "Whole rye flour ferments quickly in the starter because it carries more wild yeast.",
    "The user decided to proof the rye loaf for two hours and bake it on Sundays.",
)
LEAD = "Rye flour is a flour milled from rye grain. The user bakes with it."
TITLE = "Rye Flour"


def two_talks(ledger: Ledger) -> tuple[list[str], list[Source]]:
    ids = [seed(ledger, STARTER), seed(ledger, LOAF)]
    story(ledger, "baking rye bread", ids)
    article_subject(ledger, "rye flour", "Rye_Flour", ids, "Rye Flour")
    return ids, load(ledger, ids)


def script(sources: list[Source], **kw: object) -> list[Answer]:
    sections = [("Feeding the starter", [0]), ("Baking schedule", [1])]
    drafts = kw.pop("drafts", DRAFTS)
    return create_script(TITLE, sources, sections, drafts, lead=LEAD, **kw)  # type: ignore[arg-type]


def article(vault: Vault, stem: str = "Rye_Flour") -> Path:
    return vault.articles / f"{stem}.md"


def test_an_article_created_from_two_chunks_cites_both_conversations_and_passes_the_audit(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    ids, sources = two_talks(ledger)
    ctx = context(vault, ledger, scripted_model(script(sources)))
    report = run_stage(SynthesizeStage(), ctx)
    assert (report.done, report.commits) == (1, 1)
    text = article(vault).read_text(encoding="utf-8")
    assert "`conv:aaaaaaaa` (2026-01-05, claude)" in text
    assert "`conv:bbbbbbbb` (2026-02-07, claude)" in text
    assert f"{DRAFTS[0]}[^1]" in text
    assert f"{DRAFTS[1]}[^2]" in text
    assert "## Feeding the starter" in text
    assert "## Baking schedule" in text
    assert "kind: thing" in text
    assert problems(parse(text), stem="Rye_Flour") == []
    assert check(None, text, stem="Rye_Flour").ok
    assert audit(vault, ledger).violations == []
    assert woven.into(ledger, ids) == {(ids[0], "Rye_Flour"), (ids[1], "Rye_Flour")}
    assert buckets.with_delta(ledger) == []


def test_a_second_run_makes_no_model_call_and_no_commit(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    _, sources = two_talks(ledger)
    model = Counting(scripted_model(script(sources)))
    run_stage(SynthesizeStage(), context(vault, ledger, model))
    first = model.calls
    again = run_stage(SynthesizeStage(), context(vault, ledger, model))
    assert first == 6
    assert (model.calls - first, again.commits, again.attempted) == (0, 0, 0)


def test_a_heading_answered_with_prose_gives_way_to_one_made_from_the_label(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    _, sources = two_talks(ledger)
    prose = "Sure! Here is a good heading for this section of the article."
    sections = [("Choosing rye flour for a sourdough starter", [0]), ("Baking schedule", [1])]
    answers = create_script(
        TITLE, sources, sections, DRAFTS, lead=LEAD, heading_answers=[prose, "Baking schedule"]
    )
    run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    text = article(vault).read_text(encoding="utf-8")
    assert "## Choosing rye flour for a sourdough starter" in text
    assert "Sure" not in text


@pytest.mark.parametrize(
    "garbage",
    ["x" * 4000, "", "## Heading\n\n- a list [^1]", "Write one to three sentences for this."],
    ids=["ramble", "empty", "markup-only", "prompt-echo"],
)
def test_a_garbage_draft_writes_nothing_and_leaves_the_subject_captured(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, garbage: str
) -> None:
    chunk = _one_talk_garbage(ledger)
    answers = _garbage_answers(ledger, chunk, garbage)
    report = run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    assert (report.done, report.failed, report.commits) == (1, 0, 0)
    assert not article(vault).exists()
    assert woven.into(ledger, [chunk]) == set()
    rye = subjects.get(ledger, "rye flour")
    assert rye is not None
    assert (rye.status, rye.article_stem) == ("captured", None)
    assert audit(vault, ledger).violations == []


def _one_talk_garbage(ledger: Ledger) -> str:
    (chunk,) = [seed(ledger, STARTER)]
    story(ledger, "baking rye bread", [chunk])
    article_subject(ledger, "rye flour", "Rye_Flour", [chunk])
    return chunk


def _garbage_answers(ledger: Ledger, chunk: str, garbage: str) -> list[Answer]:
    (source,) = load(ledger, [chunk])
    return [
        Answer("synthesize", prompt.heading(TITLE, [source.label]), "Feeding the starter",
               prompt.HEADING_SYSTEM),
        Answer("synthesize", prompt.draft(TITLE, "Feeding the starter", source.text), garbage,
               prompt.DRAFT_SYSTEM),
    ]  # fmt: skip


def test_a_subject_with_nothing_to_say_is_not_asked_again_on_the_same_excerpts(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk = _one_talk_garbage(ledger)
    model = Counting(scripted_model(_garbage_answers(ledger, chunk, "x" * 4000)))
    run_stage(SynthesizeStage(), context(vault, ledger, model))
    first = model.calls
    again = run_stage(SynthesizeStage(), context(vault, ledger, model))
    assert first > 0
    assert (model.calls - first, again.attempted, again.commits) == (0, 0, 0)


def test_a_garbage_lead_writes_nothing_and_leaves_the_subject_captured(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    _, sources = two_talks(ledger)
    answers = [a for a in script(sources) if a.system != prompt.LEAD_SYSTEM]
    user = prompt.lead(TITLE, list(DRAFTS))
    answers.append(Answer("synthesize", user, "<Title> is a <kind>.", prompt.LEAD_SYSTEM))
    report = run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    assert (report.done, report.failed) == (1, 0)
    assert not article(vault).exists()
    assert audit(vault, ledger).violations == []


def test_an_excerpt_whose_draft_is_refused_waits_for_the_next_run_while_the_rest_is_written(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    ids, sources = two_talks(ledger)
    answers = create_script(
        TITLE, sources, [("Feeding the starter", [0]), ("Baking schedule", [1])],
        [DRAFTS[0], "x" * 4000], lead=LEAD,
    )  # fmt: skip
    run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    text = article(vault).read_text(encoding="utf-8")
    assert "conv:aaaaaaaa" in text
    assert "conv:bbbbbbbb" not in text
    assert "## Baking schedule" not in text
    assert woven.into(ledger, ids) == {(ids[0], "Rye_Flour")}
    assert buckets.delta(ledger, buckets.with_delta(ledger)[0].id) == [ids[1]]


def test_a_spent_budget_mid_article_stops_at_the_unit_boundary_and_writes_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    ids, sources = two_talks(ledger)

    def spent(system: object) -> None:
        if system == prompt.LEAD_SYSTEM:
            raise BudgetExhausted("the night's model budget is spent")

    model = Counting(scripted_model(script(sources)), during=spent)
    report = run_stage(SynthesizeStage(), context(vault, ledger, model))
    assert (report.budget_spent, report.left, report.commits) == (
        "the night's model budget is spent",
        1,
        0,
    )
    assert not article(vault).exists()
    assert woven.into(ledger, ids) == set()


@pytest.mark.parametrize("stem", ["../../outside", "Log/x", "..", "a\nb", "CON", "x" * 300])
def test_a_hostile_stem_is_never_written_and_calls_no_model(
    vault: Vault, ledger: Ledger, stem: str
) -> None:
    chunk = seed(ledger, STARTER)
    story(ledger, "baking rye bread", [chunk])
    article_subject(ledger, "evil", stem, [chunk])
    before = sorted(p for p in vault.root.parent.rglob("*") if ".git" not in p.parts)
    report = run_stage(SynthesizeStage(), context(vault, ledger, None))
    assert (report.failed, report.commits) == (1, 0)
    assert "internal error" not in report.failures[0][1]
    after = sorted(p for p in vault.root.parent.rglob("*") if ".git" not in p.parts)
    assert [p for p in after if p not in before and p.suffix != ".sqlite-wal"] == []


def test_a_person_creating_the_article_while_it_is_drafted_wins_and_the_unit_is_retried(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    ids, sources = two_talks(ledger)
    mine = "# Rye Flour\n\nMy own notes.\n"

    def person(system: object) -> None:
        if system == prompt.LEAD_SYSTEM:
            article(vault).write_text(mine, encoding="utf-8")

    model = Counting(scripted_model(script(sources)), during=person)
    report = run_stage(SynthesizeStage(), context(vault, ledger, model))
    assert (report.rejected, report.commits) == (1, 0)
    assert article(vault).read_text(encoding="utf-8") == mine
    assert woven.into(ledger, ids) == set()


def test_a_person_editing_the_article_while_it_is_revised_wins_and_the_unit_is_retried(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, _ = two_talks(ledger)
    article(vault).write_text("# Rye Flour\n\nA flour.\n", encoding="utf-8")
    mine = "# Rye Flour\n\nA flour I like.\n"

    def revise(model: object, text: str, title: str, sources: object, **_: object) -> Revision:
        article(vault).write_text(mine, encoding="utf-8")
        return Revision(text.replace("A flour.", "A flour, revised."), ("",))

    monkeypatch.setattr(update, "revise", revise)
    report = run_stage(SynthesizeStage(), context(vault, ledger, Counting(None)))
    assert report.rejected == 1
    assert article(vault).read_text(encoding="utf-8") == mine
    assert woven.into(ledger, ids) == set()


def test_an_existing_article_goes_to_update_with_its_checksum_as_the_base(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, _ = two_talks(ledger)
    base = "# Rye Flour\n\nA flour.\n"
    article(vault).write_text(base, encoding="utf-8")
    seen: list[tuple[str, list[str]]] = []

    def revise(model: object, text: str, title: str, sources: list[Source], **_: object) -> None:
        seen.append((title, [s.chunk_id for s in sources]))

    monkeypatch.setattr(update, "revise", revise)
    report = run_stage(SynthesizeStage(), context(vault, ledger, Counting(None)))
    assert seen == [("Rye Flour", ids)]
    # Nothing usable: done for this input, its excerpts left unwoven for a later delta.
    assert (report.done, report.failed) == (1, 0)
    assert woven.into(ledger, ids) == set()
    assert article(vault).read_text(encoding="utf-8") == base
    assert checksum(base.encode()) == checksum(article(vault).read_bytes())


def test_an_article_that_already_cites_the_delta_is_woven_with_no_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    """A run stopped between its write and its ledger record does not write twice."""
    ids, sources = two_talks(ledger)
    landed = build(
        TITLE,
        lead=f"{LEAD}[^1]",
        sections=[("Feeding the starter", f"{DRAFTS[0]}[^1]"), ("Baking", f"{DRAFTS[1]}[^2]")],
        footnotes=[s.footnote(n) for n, s in enumerate(sources, 1)],
        stub=True,
    )
    article(vault).write_text(landed, encoding="utf-8")
    report = run_stage(SynthesizeStage(), context(vault, ledger, None))
    assert report.done == 1
    assert article(vault).read_text(encoding="utf-8") == landed
    assert woven.into(ledger, ids) == {(ids[0], "Rye_Flour"), (ids[1], "Rye_Flour")}
    assert buckets.with_delta(ledger) == []


def test_captured_only_chunks_stay_in_the_delta_and_make_no_unit(
    vault: Vault, ledger: Ledger
) -> None:
    chunk = seed(ledger, STARTER)
    bucket = story(ledger, "baking rye bread", [chunk])
    captured_subject(ledger, "wild yeast", [chunk])
    assert list(SynthesizeStage().units(context(vault, ledger, None))) == []
    assert buckets.delta(ledger, bucket) == [chunk]


def test_a_chunk_in_its_open_story_and_in_captured_is_woven_by_its_story_alone(
    vault: Vault, ledger: Ledger
) -> None:
    chunk = seed(ledger, STARTER)
    bucket = story(ledger, "baking rye bread", [chunk])
    article_subject(ledger, "rye flour", "Rye_Flour", [chunk])
    captured_subject(ledger, "wild yeast", [chunk])
    with ledger.transaction():
        buckets.add_chunk(ledger, buckets.CAPTURED, chunk, "2026-01-01T00:00:00+00:00")
    keys = [u.key for u in SynthesizeStage().units(context(vault, ledger, None))]
    assert keys == [f"{bucket}/Rye_Flour"]


def test_a_captured_chunk_whose_story_is_done_reaches_a_subject_that_graduated(
    vault: Vault, ledger: Ledger
) -> None:
    chunk = seed(ledger, STARTER)
    bucket = story(ledger, "baking rye bread", [chunk])
    earlier = runs.Run("earlier", "night", "2026-01-01T00:00:00+00:00", None, "running")
    with ledger.transaction():
        runs.put(ledger, earlier)
        buckets.add_chunk(ledger, buckets.CAPTURED, chunk, "2026-01-01T00:00:00+00:00")
        buckets.mark_synthesized(ledger, bucket, [chunk], earlier.id)
    article_subject(ledger, "wild yeast", "Wild_Yeast", [chunk])
    keys = [u.key for u in SynthesizeStage().units(context(vault, ledger, None))]
    assert keys == [f"{buckets.CAPTURED}/Wild_Yeast"]


def test_a_redirected_subject_s_chunk_lands_in_its_target_and_its_name_becomes_an_alias(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk = seed(ledger, STARTER)
    story(ledger, "baking rye bread", [chunk])
    redirected_subject(ledger, "whole rye", "Rye_Flour", [chunk], "whole rye")
    sources = load(ledger, [chunk])
    answers = create_script(TITLE, sources, [("Feeding the starter", [0])], DRAFTS[:1], lead=LEAD)
    run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    text = article(vault).read_text(encoding="utf-8")
    assert "aliases: whole rye" in text


def test_a_chunk_naming_a_subject_and_its_redirect_is_one_excerpt_of_one_unit(
    vault: Vault, ledger: Ledger
) -> None:
    chunk = seed(ledger, STARTER)
    story(ledger, "baking rye bread", [chunk])
    article_subject(ledger, "rye flour", "Rye_Flour", [chunk])
    redirected_subject(ledger, "whole rye", "Rye_Flour", [chunk], "whole rye")
    (unit,) = SynthesizeStage().units(context(vault, ledger, None))
    assert unit.label == "create Rye Flour (1 from baking rye bread)"


def test_units_are_one_per_bucket_and_article_in_bucket_then_delta_order(
    vault: Vault, ledger: Ledger
) -> None:
    first, second = seed(ledger, STARTER), seed(ledger, LOAF)
    early = story(ledger, "feeding a starter", [first])
    late = story(ledger, "baking loaves", [second, first])
    article_subject(ledger, "rye flour", "Rye_Flour", [first, second])
    article_subject(ledger, "sourdough", "Sourdough", [second])
    keys = [u.key for u in SynthesizeStage().units(context(vault, ledger, None))]
    assert keys == [f"{early}/Rye_Flour", f"{late}/Rye_Flour", f"{late}/Sourdough"]


def test_a_chunk_is_synthesized_only_once_woven_into_every_article_it_concerns(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    chunk = seed(ledger, STARTER)
    bucket = story(ledger, "baking rye bread", [chunk])
    article_subject(ledger, "rye flour", "Rye_Flour", [chunk])
    article_subject(ledger, "sourdough", "Sourdough", [chunk])
    sources = load(ledger, [chunk])
    answers = create_script(TITLE, sources, [("Feeding the starter", [0])], DRAFTS[:1], lead=LEAD)
    report = run_stage(SynthesizeStage(), context(vault, ledger, scripted_model(answers)))
    assert (report.done, report.failed) == (1, 1)
    assert woven.into(ledger, [chunk]) == {(chunk, "Rye_Flour")}
    assert buckets.delta(ledger, bucket) == [chunk]


def test_a_dry_run_plans_creates_and_updates_with_no_model_call_and_no_write(
    vault: Vault, ledger: Ledger
) -> None:
    two_talks(ledger)
    article_subject(ledger, "sourdough", "Sourdough", [f"{LOAF.hash8}:0-2"])
    (vault.articles / "Sourdough.md").write_text("# Sourdough\n\nA bread.\n", encoding="utf-8")
    ctx = context(vault, ledger, None, dry_run=True)
    labels = [u.label for u in SynthesizeStage().units(ctx)]
    assert labels == [
        "create Rye Flour (2 from baking rye bread)",
        "update Sourdough (1 from baking rye bread)",
    ]
    report = run_stage(SynthesizeStage(), ctx, dry_run=True)
    assert (report.planned, report.attempted) == (2, 0)
    assert not article(vault).exists()


def test_the_input_hash_changes_with_the_model(vault: Vault, ledger: Ledger) -> None:
    two_talks(ledger)
    ctx = context(vault, ledger, None)
    (one,) = SynthesizeStage().units(ctx)
    ctx.settings = replace(ctx.settings, model="scripted:other")
    (two,) = SynthesizeStage().units(ctx)
    assert one.key == two.key
    assert one.input_hash != two.input_hash
