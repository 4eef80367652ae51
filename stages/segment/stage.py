"""SEGMENT: one conversation into single-topic chunks, each a labelled message range.

Code proposes where a topic could change (a user turn after the assistant, whose
words are mostly new); the model judges each proposal with a constrained yes/no,
shown only the few messages around it, so a conversation of any length is read in
overlapping windows and never truncated. Code assembles the ranges (tiny ones merged,
over-long ones cut at a user turn) and repairs them to cover every message once; the
model then names each chunk in one constrained line, which code trims to the
Chunking page's word limits (asked once more when too short; a label from the
chunk's own words when still unusable). A model answer in the wrong shape fails
the unit and stores nothing, so the conversation is segmented again on the next run.
A conversation of one or two questions is one chunk with no boundary question, and a
one-chunk conversation with a title someone gave it is labelled by that title with
no call.

Topics_to_Ignore is not read here: a chunk is labelled for what it is about, and the
page's rule (a pattern matching a chunk's label, `segment_plan.ignored`) is applied
where chunks become articles, so an edited ignore list re-segments nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from functools import partial

from dreaming.ledger import chunks, conversations
from dreaming.ledger.chunks import Chunk
from dreaming.model import Choice, Constraint, Lines, ModelCallError, TextModel
from stages.prompts import segment as prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult
from stages.segment.plan import (
    CHARS_PER_TOKEN,
    Range,
    Rules,
    assemble,
    candidates,
    clean_label,
    excerpt,
    fallback_label,
    nothing_to_file,
    parse_rules,
    repair,
    split_long,
    window,
)

SEGMENTER_VERSION = "3"
"""Bumped when the code half changes what chunks a conversation gets."""
CONTEXT_TOKENS = 2048
"""The prompt budget of one question, well inside the default model's context."""
BEFORE = 3
"""Messages shown before a proposed boundary (the topic it may leave), besides the
message that opened that topic."""
LABEL_MESSAGES = 6
"""The first messages of a chunk its label is asked from: a topic is set at its start."""
LABEL_CHARS = 80
ONE_TOPIC_TURNS = 2
"""A conversation of this many questions or fewer is one chunk, asked nothing: a
question and its follow-up are one topic far more often than two."""
YES_NO = Choice(("yes", "no"))
ONE_LINE = Lines(max_lines=1, max_chars=LABEL_CHARS)


def input_hash(content_sha: str, chunking: str, model: str) -> str:
    h = hashlib.sha256()
    for part in (content_sha, chunking, prompt.PROMPT_VERSION, SEGMENTER_VERSION, model):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _given_title(title: str, rules: Rules) -> str | None:
    """A title someone gave the conversation (a ChatGPT title, a subagent's task), as a
    label; None for none, or for a first message cut short (it ends with "…")."""
    if not title or title.rstrip().endswith(("…", "...")):
        return None
    return clean_label(title, rules.label_min_words, rules.label_max_words)


def _per_message(system: str, shown: int) -> int:
    """Characters each shown message may take so one question fits CONTEXT_TOKENS."""
    room = CONTEXT_TOKENS * CHARS_PER_TOKEN - len(system) - 400
    return max(120, room // max(1, shown))


def _ask(model: TextModel, conv_id: str, system: str, user: str, shape: Constraint) -> str:
    """The model's answer, held to `shape` here too: a backend that let a wrong shape
    through fails the unit like any other unusable answer instead of crashing the run."""
    answer = model.complete("segment", system, user, unit=conv_id, constraint=shape).text
    try:
        return shape.accept(answer)
    except ValueError as e:
        raise ModelCallError(f"answer breaks its {type(shape).__name__} constraint: {e}") from None


class SegmentStage:
    name: StageName = "segment"
    policy: tuple[str, ...] = ("Chunking",)

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        chunking = ctx.policy.page("Chunking").checksum
        for conv in conversations.by_updated(ctx.ledger):
            if conv.id in ctx.waiting:
                # Left for a later round or night: the backlog goes in the person's order.
                continue
            yield Unit(
                key=conv.id,
                input_hash=input_hash(conv.content_sha, chunking, ctx.settings.model),
                label=conv.title or conv.id,
            )

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        stored = list(conversations.messages(ctx.ledger, unit.key))
        if not stored:
            return UnitResult("done", "no messages")
        roles = [m.role for m in stored]
        texts = [m.text for m in stored]
        empty = nothing_to_file(roles, texts)
        if empty is not None:
            return UnitResult("done", empty, settle=partial(_settle, ctx, unit.key, []))
        chunking = ctx.policy.text("Chunking")
        rules = parse_rules(chunking)
        try:
            ranges = self._ranges(ctx, unit.key, roles, texts, chunking, rules)
            given = _given_title(conversations.title(ctx.ledger, unit.key), rules)
            if len(ranges) == 1 and given is not None:
                # The conversation's own title names its one chunk: no call.
                labels = [given]
            else:
                labels = self._labels(ctx, unit.key, roles, texts, ranges, rules)
        except ModelCallError as e:
            return UnitResult("failed", str(e).splitlines()[0] if str(e) else "model answer")
        cut = [
            Chunk(unit.key, first, last, label, unit.input_hash, SEGMENTER_VERSION)
            for (first, last), label in zip(ranges, labels, strict=True)
        ]
        return UnitResult("done", settle=partial(_settle, ctx, unit.key, cut))

    def _ranges(
        self,
        ctx: StageContext,
        conv_id: str,
        roles: Sequence[str],
        texts: Sequence[str],
        chunking: str,
        rules: Rules,
    ) -> list[Range]:
        starts: list[int] = []
        if len(texts) >= rules.min_messages and roles.count("user") > ONE_TOPIC_TURNS:
            system = prompt.boundary_system(chunking)
            limit = _per_message(system, BEFORE + 2)
            model: TextModel | None = None
            for k in candidates(roles, texts):
                shown = [
                    prompt.line(roles[i], excerpt(texts[i], limit))
                    for i in window(roles, starts[-1] if starts else 0, k, BEFORE)
                ]
                user = prompt.boundary_user(shown[:-1], shown[-1])
                model = model or ctx.model()
                if _ask(model, conv_id, system, user, YES_NO) == "no":
                    starts.append(k)
        ranges = assemble(len(texts), starts, rules.min_messages)
        return repair(len(texts), split_long(ranges, rules.max_messages, roles))

    def _labels(
        self,
        ctx: StageContext,
        conv_id: str,
        roles: Sequence[str],
        texts: Sequence[str],
        ranges: Sequence[Range],
        rules: Rules,
    ) -> list[str]:
        system = prompt.label_system(ctx.policy.text("Chunking"))
        limit = _per_message(system, LABEL_MESSAGES)
        labels = []
        for first, last in ranges:
            shown = range(first, min(last + 1, first + LABEL_MESSAGES))
            lines = [prompt.line(roles[i], excerpt(texts[i], limit)) for i in shown]
            answer = _ask(ctx.model(), conv_id, system, prompt.label_user(lines), ONE_LINE)
            label = clean_label(answer, rules.label_min_words, rules.label_max_words)
            if label is None:
                again = prompt.label_again_user(lines, answer.strip())
                answer = _ask(ctx.model(), conv_id, system, again, ONE_LINE)
                label = clean_label(answer, rules.label_min_words, rules.label_max_words)
            if label is None:
                own = [texts[i] for i in range(first, last + 1) if roles[i] == "user"]
                label = fallback_label(own or [texts[first]], rules.label_max_words)
            labels.append(label)
        return labels


def _settle(ctx: StageContext, conv_id: str, cut: list[Chunk]) -> None:
    chunks.replace(ctx.ledger, conv_id, cut, ctx.now())
