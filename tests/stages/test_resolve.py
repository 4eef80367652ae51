"""RESOLVE on hand-made buckets: every subject a bucket's delta names ends with a home
(its own article, a fold into another, or captured), with a model call only for a
near miss, and nothing a subject is called ever becomes a path."""

from __future__ import annotations

import pytest

from dreaming.article.document import build
from dreaming.ledger import Ledger, buckets, subjects
from dreaming.query.reindex import reindex
from dreaming.subjects.names import canonical
from dreaming.vault import Vault
from stages.bucket import BucketStage
from stages.prompts import resolve as prompt
from stages.resolve import Homes, ResolveStage
from stages.runner.pipeline import run_stage
from tests.fixtures.bucket_resolve.gold import THINGS
from tests.story_support import RUN, context, conversation, names, run
from tests.support import Answer, Counting, ScriptedModelFactory, run_unit

LATER = "2026-03-09T03:00:00+00:00"


def resolve(vault: Vault, ledger: Ledger, model: Counting | None = None) -> None:
    run(BucketStage(), context(vault, ledger))
    run(ResolveStage(), context(vault, ledger, model))


def home(ledger: Ledger, name: str) -> tuple[str, str | None]:
    s = subjects.get(ledger, name)
    assert s is not None
    if s.status == "redirect":
        return s.status, subjects.redirects(ledger)[name]
    return s.status, s.article_stem


def captured(ledger: Ledger) -> set[str]:
    return set(buckets.delta(ledger, buckets.CAPTURED))


def article(vault: Vault, ledger: Ledger, title: str, aliases: str = "") -> None:
    infobox = {"kind": "thing", **({"aliases": aliases} if aliases else {})}
    text = build(title, lead="A thing.", sections=[], infobox=infobox)
    (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")
    reindex(vault, ledger)


def same_thing(name: str, context: str, title: str, said: str) -> Answer:
    """The scripted answer that says `said` to "same thing?" (asked as "different?")."""
    different = {"yes": "no", "no": "yes"}.get(said, said)
    return Answer("resolve", prompt.different_thing(name, context, title), different, prompt.SYSTEM)


def ignore(vault: Vault, pattern: str) -> None:
    page = vault.meta / "Topics_to_Ignore.md"
    text = page.read_text(encoding="utf-8").replace("```ignore\n", f"```ignore\n{pattern}\n")
    page.write_text(text, encoding="utf-8")


def test_a_subject_named_in_two_chunks_earns_an_article_with_no_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Pricking out the seedlings"])
    names(ledger, a, "Seed Tray")
    names(ledger, b, "Seed Tray")
    resolve(vault, ledger)
    assert home(ledger, "seed tray") == ("article", "Seed_Tray")


def test_the_main_subject_of_one_chunk_earns_an_article(vault: Vault, ledger: Ledger) -> None:
    (a,) = conversation(ledger, "c1", ["Sowing the seed trays"])
    names(ledger, a, "Seed Tray", main="Seed Tray")
    resolve(vault, ledger)
    assert home(ledger, "seed tray") == ("article", "Seed_Tray")


def test_a_subject_named_once_in_passing_is_captured_with_its_chunk(
    vault: Vault, ledger: Ledger
) -> None:
    (a,) = conversation(ledger, "c1", ["Sowing the seed trays"])
    names(ledger, a, "Seed Tray", "Watering Can", main="Seed Tray")
    resolve(vault, ledger)
    assert home(ledger, "watering can") == ("captured", None)
    assert captured(ledger) == {a}


def test_a_file_s_name_is_captured_never_its_own_article_even_as_the_main_subject(
    vault: Vault, ledger: Ledger
) -> None:
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Pricking out the seedlings"])
    names(ledger, a, "research-plan-mode.md", main="research-plan-mode.md")
    names(ledger, b, "research-plan-mode.md")
    resolve(vault, ledger)
    assert home(ledger, canonical("research-plan-mode.md")) == ("captured", None)


def test_a_chunk_naming_no_subject_is_kept_in_captured(vault: Vault, ledger: Ledger) -> None:
    (a,) = conversation(ledger, "c1", ["Saying thanks for the help"])
    resolve(vault, ledger)
    assert captured(ledger) == {a}


def test_an_article_title_or_infobox_alias_resolves_with_no_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    article(vault, ledger, "Seed Tray", aliases="plug tray")
    (a,) = conversation(ledger, "c1", ["Sowing the seed trays"])
    names(ledger, a, "seed tray", "Plug Tray")
    resolve(vault, ledger)
    assert home(ledger, "seed tray") == ("article", "Seed_Tray")
    assert home(ledger, "plug tray") == ("redirect", "Seed_Tray")


def test_a_near_miss_judged_the_same_thing_folds_into_that_article(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    article(vault, ledger, "Seed Tray")
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Cleaning the trays"])
    names(ledger, a, "Seed Trays")
    names(ledger, b, "Seed Trays")
    model = Counting(
        scripted_model([same_thing("Seed Trays", "Sowing the seed trays", "Seed Tray", "yes")])
    )
    resolve(vault, ledger, model)
    assert len(model.asked) == 1
    assert home(ledger, "seed trays") == ("redirect", "Seed_Tray")


def test_a_near_miss_judged_another_thing_gets_its_own_article(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    article(vault, ledger, "Seed Tray")
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Heating the trays"])
    names(ledger, a, "Seed Tray Heater")
    names(ledger, b, "Seed Tray Heater")
    model = Counting(
        scripted_model([same_thing("Seed Tray Heater", "Sowing the seed trays", "Seed Tray", "no")])
    )
    resolve(vault, ledger, model)
    assert len(model.asked) == 1
    assert home(ledger, "seed tray heater") == ("article", "Seed_Tray_Heater")


def test_a_second_run_makes_no_model_call_and_handles_no_unit(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    article(vault, ledger, "Seed Tray")
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Heating the trays"])
    names(ledger, a, "Seed Tray Heater", "Watering Can")
    names(ledger, b, "Seed Tray Heater")
    model = Counting(
        scripted_model([same_thing("Seed Tray Heater", "Sowing the seed trays", "Seed Tray", "no")])
    )
    resolve(vault, ledger, model)
    again = run_stage(ResolveStage(), context(vault, ledger))
    assert (again.attempted, again.failed) == (0, 0)


def test_a_wrong_shape_answer_fails_the_unit_and_stores_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    article(vault, ledger, "Seed Tray")
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "seed trays sowing"])
    names(ledger, a, "Seed Tray Heater", "Watering Can")
    names(ledger, b, "Seed Tray Heater")
    model = scripted_model(
        [same_thing("Seed Tray Heater", "Sowing the seed trays", "Seed Tray", "Yes, the")]
    )
    run(BucketStage(), context(vault, ledger))
    report = run_stage(ResolveStage(), context(vault, ledger, model))
    assert report.failed == 1
    assert home(ledger, "watering can") == ("candidate", None)
    assert captured(ledger) == set()


def test_a_subject_matching_topics_to_ignore_is_captured_and_the_run_says_so(
    vault: Vault, ledger: Ledger
) -> None:
    ignore(vault, "watering*")
    a, b = conversation(ledger, "c1", ["Watering the seedlings", "seedlings watering"])
    names(ledger, a, "Watering Can", main="Watering Can")
    names(ledger, b, "Watering Can")
    run(BucketStage(), context(vault, ledger))
    (unit,) = ResolveStage().units(context(vault, ledger))
    result = run_unit(ResolveStage(), context(vault, ledger), unit)
    assert home(ledger, "watering can") == ("captured", None)
    assert result.detail is not None
    assert "Topics_to_Ignore" in result.detail
    assert captured(ledger) == {a, b}


def test_a_captured_subject_that_recurs_later_graduates(vault: Vault, ledger: Ledger) -> None:
    (a,) = conversation(ledger, "c1", ["Sowing the seed trays"])
    names(ledger, a, "Seed Tray", "Watering Can", main="Seed Tray")
    resolve(vault, ledger)
    (story,) = [b for b in buckets.of_chunk(ledger, a) if b != buckets.CAPTURED]
    buckets.mark_synthesized(ledger, story, [a], RUN)
    (b,) = conversation(ledger, "c2", ["Filling the watering can"], updated=LATER)
    names(ledger, b, "Watering Can")
    resolve(vault, ledger)
    assert home(ledger, "watering can") == ("article", "Watering_Can")
    assert a in captured(ledger)


def test_the_captured_bucket_is_taken_up_again_when_a_subject_recurs(
    vault: Vault, ledger: Ledger
) -> None:
    (a,) = conversation(ledger, "c1", ["Sowing the seed trays"])
    names(ledger, a, "Watering Can")
    resolve(vault, ledger)
    assert home(ledger, "watering can") == ("captured", None)
    (story,) = [b for b in buckets.of_chunk(ledger, a) if b != buckets.CAPTURED]
    buckets.mark_synthesized(ledger, story, [a], RUN)
    names(ledger, a, "Watering Can", main="Watering Can")
    (unit,) = ResolveStage().units(context(vault, ledger))
    assert unit.key == str(buckets.CAPTURED)
    run(ResolveStage(), context(vault, ledger))
    assert home(ledger, "watering can") == ("article", "Watering_Can")


@pytest.mark.parametrize(
    "hostile",
    ["../../etc", "x" * 300, "bad\x07name", "..", "a/b\\c", "\u202eevil"],
    ids=["dotdot", "300", "control", "dots", "slashes", "bidi"],
)
def test_a_hostile_subject_name_is_captured_and_never_becomes_a_stem(
    vault: Vault, ledger: Ledger, hostile: str
) -> None:
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Heating the trays"])
    names(ledger, a, hostile, main=hostile)
    names(ledger, b, hostile)
    resolve(vault, ledger)
    (subject,) = subjects.every(ledger)
    assert (subject.status, subject.article_stem) == ("captured", None)
    assert captured(ledger) == {a, b}


def test_after_resolve_every_delta_subject_has_a_home(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    article(vault, ledger, "Seed Tray", aliases="plug tray")
    a, b = conversation(ledger, "c1", ["Sowing the seed trays", "Heating the trays"])
    (c,) = conversation(ledger, "c2", ["Saying thanks for the help"], updated=LATER)
    names(ledger, a, "Seed Tray", "Plug Tray", "Watering Can", "../x", main="Seed Tray")
    names(ledger, b, "Heat Mat", "../x")
    model = scripted_model([])
    resolve(vault, ledger, Counting(model))
    redirects = subjects.redirects(ledger)
    for bucket in buckets.with_delta(ledger):
        for chunk_id in buckets.delta(ledger, bucket.id):
            for m in subjects.mentions_in(ledger, chunk_id):
                s = subjects.get(ledger, m.subject)
                assert s is not None
                assert s.status in ("article", "redirect", "captured")
                assert (s.status == "article") == (s.article_stem is not None)
                assert (s.status == "redirect") == (s.name in redirects)
                if s.status == "captured":
                    assert chunk_id in captured(ledger)
    assert c in captured(ledger)


def test_the_near_miss_shortlist_holds_at_most_three_one_per_article() -> None:
    homes = Homes()
    for name, stem in [
        ("Seed Tray", "Seed_Tray"),
        ("seed trays", "Seed_Tray"),
        ("Seed Tray Lid", "Seed_Tray_Lid"),
        ("Seed Tray Heater", "Seed_Tray_Heater"),
        ("Seed Tray Rack", "Seed_Tray_Rack"),
        ("Watering Can", "Watering_Can"),
    ]:
        homes.add(name, stem, True)
    picked = homes.near_misses("seed tray x")
    assert [n.stem for n in picked] == ["Seed_Tray", "Seed_Tray_Lid", "Seed_Tray_Rack"]


def test_every_labelled_thing_pair_is_a_near_miss_the_model_is_asked_about() -> None:
    for pair in THINGS:
        homes = Homes()
        homes.add(pair.title, "Stem", True)
        assert [n.display for n in homes.near_misses(canonical(pair.name))] == [pair.title], pair
