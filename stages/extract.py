"""EXTRACT: one chunk -> the subjects it is about.

Code proposes candidates from the chunk's full text (dreaming/subjects/candidates.py), the
model judges each with one constrained yes/no over the chunk text, and the ones
judged yes become subjects with a mention of the chunk; the first of them (the
best-ranked) is asked once more whether it is the main subject. A chunk with no
candidate judged yes is done with no subject: that is an answer, not a failure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from functools import partial

from dreaming.ledger import article_index, chunks, conversations, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import StoredMessage
from dreaming.ledger.subjects import Mention
from dreaming.model import Choice, Completion, ModelCallError, TextModel
from dreaming.subjects.candidates import VERSION as CANDIDATES_VERSION
from dreaming.subjects.candidates import Candidate, propose
from dreaming.subjects.names import AliasIndex, declared_aliases
from stages.prompts import extract as prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult
from stages.segment.plan import ignore_patterns, ignored

MESSAGE_CHARS = 1500
"""One message's share of the judged text: a pasted log or file says little more
after its first screenful."""
TOTAL_CHARS = 6000
"""The judged text: about 1.5k tokens, so a small model on a CPU reads it in seconds
and its prefix cache holds it across the chunk's questions."""
YES_NO = Choice(("yes", "no"))


def chunk_text(messages: Sequence[StoredMessage], limit: int = TOTAL_CHARS) -> str:
    """The messages as the model reads them, each cut at `MESSAGE_CHARS`; past
    `limit`, the head and the tail are kept: a chunk says what it is about at its
    start and what came of it at its end, and its middle is mostly the work between."""
    parts = []
    for m in messages:
        body = m.text.strip()
        if len(body) > MESSAGE_CHARS:
            body = body[:MESSAGE_CHARS] + " [...]"
        parts.append(f"{m.role}: {body}")
    text = "\n\n".join(parts)
    if len(text) <= limit:
        return text
    half = limit // 2
    return (
        f"{text[:half]}\n\n[... {len(text) - 2 * half} characters left out ...]\n\n{text[-half:]}"
    )


def full_text(messages: Sequence[StoredMessage]) -> str:
    return "\n\n".join(m.text for m in messages)


def candidates_of(
    messages: Sequence[StoredMessage], index: AliasIndex, title: str
) -> list[Candidate]:
    """What EXTRACT asks the model about for a chunk of these messages."""
    person = full_text([m for m in messages if m.role == "user"])
    return propose(full_text(messages), index, title=title, person=person)


class ExtractStage:
    name: StageName = "extract"
    policy: tuple[str, ...] = ("Entities", "Topics_to_Ignore")

    def __init__(self) -> None:
        # Built once a run: articles written by earlier runs bring their aliases.
        self._index: tuple[str, AliasIndex] | None = None

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        entities = ctx.policy.page("Entities").checksum
        patterns = ignore_patterns(ctx.policy.text("Topics_to_Ignore"))
        for chunk, messages in chunks.in_order_with_messages(ctx.ledger):
            text = full_text(messages)
            title = conversations.title(ctx.ledger, chunk.conv_id)
            # What the ignore list means for this chunk, not the whole page: a pattern
            # added for one topic redoes only the chunks it matches.
            ignore = "ignored" if ignored(chunk.label, patterns) else "kept"
            digest = hashlib.sha256(
                "\x00".join(
                    (
                        text,
                        title,
                        entities,
                        ignore,
                        prompt.VERSION,
                        CANDIDATES_VERSION,
                        ctx.settings.model,
                        str(TOTAL_CHARS),
                    )
                ).encode("utf-8")
            ).hexdigest()
            yield Unit(chunk.id, digest, chunk.label, conversation=title)

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        chunk = _chunk(ctx, unit.key)
        if chunk is None:
            return UnitResult("failed", f"chunk {unit.key} is gone; segment again")
        if ignored(chunk.label, ignore_patterns(ctx.policy.text("Topics_to_Ignore"))):
            # Kept, never dropped; it just names nothing that could become an article.
            return UnitResult(
                "done",
                "its topic is in Meta/Topics_to_Ignore.md",
                settle=partial(_settle, ctx, chunk.id, []),
            )
        messages = _messages(ctx, chunk)
        title = conversations.title(ctx.ledger, chunk.conv_id)
        candidates = candidates_of(messages, self._alias_index(ctx), title)
        text = chunk_text(messages)
        try:
            # No candidate, no question: the model is not even loaded.
            judged = judge(ctx.model(), text, candidates, unit.key) if candidates else []
        except ModelCallError as e:
            return UnitResult("failed", str(e))
        return UnitResult("done", settle=partial(_settle, ctx, chunk.id, judged))

    def _alias_index(self, ctx: StageContext) -> AliasIndex:
        if self._index is None or self._index[0] != ctx.run_id:
            index = AliasIndex.build(
                declared_aliases(ctx.policy.text("Entities")),
                article_index.alias_titles(ctx.ledger),
            )
            self._index = (ctx.run_id, index)
        return self._index[1]


def _settle(ctx: StageContext, chunk_id: str, judged: list[tuple[Candidate, bool]]) -> None:
    """What the chunk names, judged again: its earlier mentions replaced."""
    subjects.forget_mentions(ctx.ledger, chunk_id)
    for candidate, is_main in judged:
        subjects.add(ctx.ledger, candidate.key, candidate.display, ctx.now())
        subjects.mention(ctx.ledger, Mention(chunk_id, candidate.key, candidate.surface, is_main))


KEPT = 3
"""Subjects one chunk is filed under at most: a careful reader files 1-4 a
conversation, and the model, asked of each candidate, says yes to nearly all."""
SURE_WEIGHT = 40
"""How much the model's certainty of its yes counts against the code's own rank
(`Candidate.score`, about 4-18): on the tune half of the gold set, ranking by both
kept 33 gold subjects in the top three, by the score alone 29, by certainty alone 28."""


def judge(
    model: TextModel, text: str, candidates: Sequence[Candidate], unit: str
) -> list[tuple[Candidate, bool]]:
    """The candidates the model judges `text` to be about, at most `KEPT`, best first,
    each with whether it is the main subject (asked of the first one only: one more
    call, not one per subject)."""
    sure: list[tuple[Candidate, float]] = []
    for c in candidates:
        answer = _ask(model, prompt.about(text, c.display), unit)
        if answer.text.strip() == "yes":
            sure.append((c, 1.0 if answer.confidence is None else answer.confidence))
    ranked = sorted(sure, key=lambda cs: -(cs[0].score + SURE_WEIGHT * cs[1]))
    yes = [c for c, _ in ranked[:KEPT]]
    if not yes:
        return []
    main = _ask(model, prompt.main(text, yes[0].display), unit).text.strip() == "yes"
    return [(c, main and i == 0) for i, c in enumerate(yes)]


def _ask(model: TextModel, user: str, unit: str) -> Completion:
    # The seam holds the answer to the constraint, or raises ModelCallError.
    return model.complete("extract", prompt.SYSTEM, user, unit=unit, constraint=YES_NO)


def _chunk(ctx: StageContext, chunk_key: str) -> Chunk | None:
    conv_id = chunk_key.rpartition(":")[0]
    return next((c for c in chunks.of_conversation(ctx.ledger, conv_id) if c.id == chunk_key), None)


def _messages(ctx: StageContext, chunk: Chunk) -> list[StoredMessage]:
    return conversations.message_range(
        ctx.ledger, chunk.conv_id, chunk.first_message, chunk.last_message
    )
