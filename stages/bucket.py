"""BUCKET: each chunk into the one story bucket it continues, or a new one.

A chunk's story is its SEGMENT label. Code compares labels first: a chunk whose
label key (`lexical.label_key`) is a bucket's joins it with no model call. Else
the few story buckets seen lately whose keys share enough words are near misses,
and the model judges each with one constrained yes/no "same story?"; the first
yes joins that bucket, and no yes makes a new bucket named by the chunk's label.
A chunk goes into exactly one story bucket and is never dropped; a chunk already
in one is no unit, so a night with no new chunk asks nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from functools import partial

from dreaming.ledger import buckets
from dreaming.ledger.buckets import Bucket, Loose
from dreaming.model import ModelCallError, TextModel
from dreaming.policy.buckets import BUCKETS_PAGE, reserved_buckets, story_key
from stages.judge import says_yes
from stages.lexical import SHORTLIST, jaccard, key_words, label_key, shortlist
from stages.prompts import bucket as prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult

KEY_VERSION = "1"
"""Bumped when `label_key` changes what labels compare equal."""
NEAR = 0.3
"""The share of words two label keys must have in common to be asked about."""
RECENT = timedelta(days=30)
"""A story is short-lived: only buckets with a chunk this close to the new one's
conversation are near misses (older ones still match on an equal key)."""
STORY_LABELS = 3
"""How many of a bucket's labels the question shows."""


def input_hash(chunk_id: str, label: str, bucketing: str, model: str) -> str:
    h = hashlib.sha256()
    for part in (chunk_id, label, bucketing, model, prompt.VERSION, KEY_VERSION):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def near_misses(key: str, stories: list[Bucket]) -> list[Bucket]:
    """The story buckets whose keys share at least `NEAR` of their words with `key`,
    most alike first, at most `SHORTLIST`."""
    own = key_words(key)
    scored = []
    for b in stories:
        score = jaccard(own, key_words(b.label_key))
        if score >= NEAR:
            scored.append((score, f"{b.id:012d}", b))
    return shortlist(scored, SHORTLIST)


def differences(story: Sequence[str], label: str) -> tuple[list[str], list[str]]:
    """The compared words only the story's labels have, and those only the new label has."""
    theirs = set().union(*(key_words(label_key(line)) for line in story))
    own = key_words(label_key(label))
    return sorted(theirs - own), sorted(own - theirs)


def continues(model: TextModel, system: str, story: Sequence[str], label: str, unit: str) -> bool:
    """The model's judgement: does the part labelled `label` continue the story whose
    parts were labelled `story`?"""
    user = prompt.same_story(story, label, *differences(story, label))
    return says_yes(model, "bucket", system, user, unit)


def since(seen: str | None) -> str | None:
    """The earliest conversation time a near-miss bucket may be last seen at."""
    if seen is None:
        return None
    try:
        return (datetime.fromisoformat(seen) - RECENT).isoformat(timespec="seconds")
    except ValueError:
        return None


class BucketStage:
    name: StageName = "bucket"
    policy: tuple[str, ...] = ("Bucketing", BUCKETS_PAGE)

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        pages = ctx.policy.page("Bucketing").checksum + ctx.policy.page(BUCKETS_PAGE).checksum
        for loose in buckets.loose_chunks(ctx.ledger):
            digest = input_hash(loose.chunk_id, loose.label, pages, ctx.settings.model)
            yield Unit(loose.chunk_id, digest, loose.label, conversation=loose.title)

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        loose = buckets.loose_chunk(ctx.ledger, unit.key)
        if loose is None:
            return UnitResult("done", "already in a story bucket")
        key = story_key(label_key(loose.label), reserved_buckets(ctx.policy.text(BUCKETS_PAGE)))
        bucket = buckets.by_key(ctx.ledger, key)
        if bucket is None:
            try:
                bucket = self._judged(ctx, loose, key)
            except ModelCallError as e:
                return UnitResult("failed", str(e).splitlines()[0] if str(e) else "model answer")
        return UnitResult("done", settle=partial(_settle, ctx, loose, key, bucket))

    def _judged(self, ctx: StageContext, loose: Loose, key: str) -> Bucket | None:
        """The first near-miss bucket the model says this chunk continues, if any."""
        model: TextModel | None = None
        system = prompt.system(ctx.policy.text("Bucketing"))
        for candidate in near_misses(key, buckets.stories_since(ctx.ledger, since(loose.seen))):
            labels = [
                candidate.label,
                *buckets.chunk_labels(ctx.ledger, candidate.id, STORY_LABELS),
            ]
            story = list(dict.fromkeys(labels))[:STORY_LABELS]
            model = model or ctx.model()
            if continues(model, system, story, loose.label, loose.chunk_id):
                return candidate
        return None


def _settle(ctx: StageContext, loose: Loose, key: str, bucket: Bucket | None) -> None:
    """The chunk into the story it continues, or a story of its own."""
    if bucket is None:
        bucket = buckets.for_label(ctx.ledger, loose.label, key, ctx.now())
    buckets.add_chunk(ctx.ledger, bucket.id, loose.chunk_id, ctx.now())
