"""BUCKET on hand-made chunks: equal label keys join with no model call, a near miss is
one yes/no, anything else is a new story; every chunk lands in exactly one story."""

from __future__ import annotations

import string
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreaming.article.words import STOPWORDS
from dreaming.ledger import Ledger, buckets
from dreaming.vault import Vault
from stages.bucket import BucketStage, differences, near_misses
from stages.lexical import label_key
from stages.prompts import bucket as prompt
from stages.runner.pipeline import run_stage
from tests.fixtures.bucket_resolve.gold import STORIES
from tests.story_support import context, conversation, run
from tests.support import REPO, Answer, Counting, ScriptedModelFactory, best_seconds

LATER = "2026-03-09T03:00:00+00:00"
MUCH_LATER = "2026-09-09T03:00:00+00:00"

WORD = st.text(alphabet=string.ascii_lowercase, min_size=4, max_size=9).filter(
    lambda w: w not in STOPWORDS and not w.endswith("s")
)


def story_of(ledger: Ledger, chunk_id: str) -> str:
    (story,) = [b for b in buckets.of_chunk(ledger, chunk_id) if b != buckets.CAPTURED]
    found = next(b for b in buckets.stories_since(ledger, None) if b.id == story)
    return found.label


BUCKETING = (REPO / "meta_templates" / "Bucketing.md").read_text("utf-8")


def same_story(story: list[str], label: str, said: str) -> Answer:
    user = prompt.same_story(story, label, *differences(story, label))
    return Answer("bucket", user, said, prompt.system(BUCKETING))


@given(st.lists(WORD, min_size=1, max_size=6))
def test_the_label_key_ignores_word_order_case_stop_words_and_plural_s(words: list[str]) -> None:
    plain = " ".join(words)
    shuffled = " ".join(reversed(words)).upper()
    padded = "the " + " and ".join(f"{w}s" for w in words) + " for you"
    assert label_key(plain) == label_key(shuffled) == label_key(padded)


@given(st.text(max_size=120))
def test_the_label_key_is_idempotent_and_never_names_captured(label: str) -> None:
    key = label_key(label)
    assert key
    assert label_key(key) == key
    assert key != "_captured"


def test_different_content_words_give_different_keys() -> None:
    assert label_key("Planning the garden beds") == label_key("garden bed planning")
    assert label_key("planning the garden beds") != label_key("planning the kitchen shelves")


@pytest.mark.parametrize(
    "make",
    [lambda n: "word " * n, lambda n: " ".join(f"w{i}" for i in range(n)), lambda n: "s" * n],
    ids=["repeated", "distinct", "one-long-word"],
)
def test_the_label_key_takes_time_linear_in_the_label(make: Callable[[int], str]) -> None:
    small = best_seconds(label_key, make(500))
    large = best_seconds(label_key, make(8_000))
    # 16x the input (a label is 80 characters); under the floor, the ratio is noise.
    assert large < 0.05 or large < small * 64


def test_chunks_with_equal_label_keys_join_one_bucket_without_a_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    first = conversation(ledger, "c1", ["Planning the garden beds"])
    second = conversation(ledger, "c2", ["garden bed planning"], updated=LATER)
    run(BucketStage(), context(vault, ledger))
    assert story_of(ledger, first[0]) == story_of(ledger, second[0]) == "Planning the garden beds"


def reserve(vault: Vault, name: str) -> None:
    page = vault.meta / "Buckets.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("_captured\n```", f"_captured\n{name}\n```"), encoding="utf-8")


def test_a_label_keyed_like_a_reserved_bucket_makes_a_story_under_another_key(
    vault: Vault, ledger: Ledger
) -> None:
    reserve(vault, "__")
    (chunk,) = conversation(ledger, "c1", ["__"])
    run(BucketStage(), context(vault, ledger))
    story = buckets.by_key(ledger, "story __")
    assert story is not None
    assert story.id in buckets.of_chunk(ledger, chunk)
    assert buckets.by_key(ledger, "__") is None


def test_a_label_sharing_no_words_makes_a_new_bucket_without_a_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    ids = conversation(ledger, "c1", ["Planning the garden beds", "Fixing the kitchen shelf"])
    run(BucketStage(), context(vault, ledger))
    assert [story_of(ledger, c) for c in ids] == [
        "Planning the garden beds",
        "Fixing the kitchen shelf",
    ]


def test_a_near_miss_is_one_yes_no_and_a_yes_joins_that_story(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    first = conversation(ledger, "c1", ["Planning the raised garden beds"])
    second = conversation(ledger, "c2", ["Raised garden beds soil mix"], updated=LATER)
    asked = [same_story(["Planning the raised garden beds"], "Raised garden beds soil mix", "yes")]
    model = Counting(scripted_model(asked))
    run(BucketStage(), context(vault, ledger, model))
    assert len(model.asked) == 1
    assert story_of(ledger, second[0]) == story_of(ledger, first[0])


def test_a_near_miss_judged_no_makes_a_new_story_named_by_the_chunk(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conversation(ledger, "c1", ["Planning the raised garden beds"])
    second = conversation(ledger, "c2", ["Raised garden beds soil mix"], updated=LATER)
    asked = [same_story(["Planning the raised garden beds"], "Raised garden beds soil mix", "no")]
    run(BucketStage(), context(vault, ledger, scripted_model(asked)))
    assert story_of(ledger, second[0]) == "Raised garden beds soil mix"


def test_a_story_not_seen_for_months_is_no_near_miss(vault: Vault, ledger: Ledger) -> None:
    conversation(ledger, "c1", ["Planning the raised garden beds"])
    late = conversation(ledger, "c2", ["Raised garden beds soil mix"], updated=MUCH_LATER)
    run(BucketStage(), context(vault, ledger))
    assert story_of(ledger, late[0]) == "Raised garden beds soil mix"


def test_a_second_run_makes_no_model_call(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conversation(ledger, "c1", ["Planning the raised garden beds"])
    conversation(ledger, "c2", ["Raised garden beds soil mix"], updated=LATER)
    asked = [same_story(["Planning the raised garden beds"], "Raised garden beds soil mix", "no")]
    run(BucketStage(), context(vault, ledger, scripted_model(asked)))
    again = run(BucketStage(), context(vault, ledger))
    assert (again.done, again.attempted) == (0, 0)


def test_a_wrong_shape_answer_fails_the_unit_and_leaves_the_chunk_loose(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    conversation(ledger, "c1", ["Planning the raised garden beds"])
    run(BucketStage(), context(vault, ledger))
    second = conversation(ledger, "c2", ["Raised garden beds soil mix"], updated=LATER)
    label = "Raised garden beds soil mix"
    asked = [same_story(["Planning the raised garden beds"], label, "Yes, the")]
    report = run_stage(BucketStage(), context(vault, ledger, scripted_model(asked)))
    assert report.failed == 1
    assert buckets.of_chunk(ledger, second[0]) == []


def test_every_chunk_is_in_exactly_one_story_bucket(vault: Vault, ledger: Ledger) -> None:
    ids = conversation(ledger, "c1", ["Planning the garden beds", "Fixing the kitchen shelf"])
    ids += conversation(ledger, "c2", ["garden bed planning", "Tuning the bicycle gears"], LATER)
    run(BucketStage(), context(vault, ledger))
    for c in ids:
        assert len([b for b in buckets.of_chunk(ledger, c) if b != buckets.CAPTURED]) == 1


def test_the_shortlist_holds_at_most_three_most_alike_first() -> None:
    stories = [
        buckets.Bucket(i, label, label_key(label))
        for i, label in enumerate(
            [
                "garden beds soil",
                "garden beds soil mix compost",
                "garden beds soil mix",
                "garden beds soil compost",
                "garden watering",
            ],
            start=1,
        )
    ]
    picked = near_misses(label_key("garden beds soil mix"), [s for s in stories if s.id != 3])
    assert [b.id for b in picked] == [2, 1, 4]


def test_every_labelled_story_pair_is_a_near_miss_the_model_is_asked_about() -> None:
    for pair in STORIES:
        story = buckets.Bucket(1, pair.story[0], label_key(pair.story[0]))
        assert near_misses(label_key(pair.label), [story]) == [story], pair


def test_the_question_names_the_words_that_set_a_new_label_apart() -> None:
    assert differences(["Planning the raised garden beds"], "Raised garden beds soil mix") == (
        ["planning"],
        ["mix", "soil"],
    )
