"""Hand-made ledger rows for SYNTHESIZE's tests (as BUCKET and RESOLVE leave them), and
the scripted answers a CREATE of them asks for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article import claims
from dreaming.article.words import sentences
from dreaming.ledger import Ledger, buckets, chunks, conversations, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.subjects import Mention
from dreaming.model import TextModel
from dreaming.transcript import Message
from dreaming.vault import Vault
from stages.prompts import create as prompt
from stages.runner.contract import StageContext
from stages.synthesize import proto
from stages.synthesize.sources import Source
from tests.support import Answer, stage_context

NOW = "2026-03-02T03:00:00+00:00"
RUN = "run00000001"


@dataclass(frozen=True)
class Talk:
    """One conversation, segmented as one chunk."""

    hash8: str
    label: str
    turns: tuple[tuple[str, str], ...]
    updated: str = "2026-02-01T10:00:00+00:00"


def seed(ledger: Ledger, talk: Talk) -> str:
    """The conversation and its one chunk; the chunk's id."""
    msgs = [Message(role, text) for role, text in talk.turns]  # type: ignore[arg-type]
    with ledger.transaction():
        conversations.put(
            ledger,
            NewConversation(talk.hash8, talk.hash8, "claude", "Raw/a.md", None, None, None,
                            talk.updated, len(msgs), "sha"),
            NOW,
        )  # fmt: skip
        conversations.add_messages(ledger, talk.hash8, 0, msgs)
        chunk = Chunk(talk.hash8, 0, len(msgs) - 1, talk.label, "h", "seg-1")
        chunks.replace(ledger, talk.hash8, [chunk], NOW)
    return chunk.id


def story(ledger: Ledger, label: str, chunk_ids: Sequence[str]) -> int:
    """A bucket holding these chunks, as BUCKET leaves it."""
    with ledger.transaction():
        bucket = buckets.for_label(ledger, label, label.casefold(), NOW)
        for c in chunk_ids:
            buckets.add_chunk(ledger, bucket.id, c, NOW)
    return bucket.id


def article_subject(
    ledger: Ledger, name: str, stem: str, chunk_ids: Sequence[str], surface: str = ""
) -> None:
    """A subject RESOLVE gave its own article, named by these chunks."""
    with ledger.transaction():
        subjects.add(ledger, name, surface or name, NOW)
        subjects.set_status(ledger, name, "article", stem)
        for c in chunk_ids:
            subjects.mention(ledger, Mention(c, name, surface or name, True))


def redirected_subject(
    ledger: Ledger, name: str, stem: str, chunk_ids: Sequence[str], surface: str
) -> None:
    """A subject RESOLVE folded into another's article."""
    with ledger.transaction():
        subjects.add(ledger, name, surface, NOW)
        subjects.set_status(ledger, name, "redirect")
        subjects.redirect(ledger, name, stem, "folded", NOW)
        for c in chunk_ids:
            subjects.mention(ledger, Mention(c, name, surface, False))


def captured_subject(ledger: Ledger, name: str, chunk_ids: Sequence[str]) -> None:
    with ledger.transaction():
        subjects.add(ledger, name, name, NOW)
        subjects.set_status(ledger, name, "captured")
        for c in chunk_ids:
            subjects.mention(ledger, Mention(c, name, name, True))


def context(
    vault: Vault, ledger: Ledger, model: TextModel | None, *, dry_run: bool = False
) -> StageContext:
    return stage_context(vault, ledger, model, run_id=RUN, now=NOW, write=not dry_run)


KINDS = ("thing", "person", "domain", "project", "standard")


def create_script(
    title: str,
    sources: Sequence[Source],
    sections: Sequence[tuple[str, Sequence[int]]],
    drafts: Sequence[str],
    *,
    lead: str,
    kind: str = "thing",
    heading_answers: Sequence[str] | None = None,
) -> list[Answer]:
    """What CREATE asks about `sources` and what the model says: `sections` are the
    (heading, source indexes) code will group and head; `drafts` one answer a source."""
    out: list[Answer] = []
    said = heading_answers or [h for h, _ in sections]
    notes = []
    for (heading, members), answer in zip(sections, said, strict=True):
        labels = [sources[i].label for i in members]
        out.append(
            Answer("synthesize", prompt.heading(title, labels), answer, prompt.HEADING_SYSTEM)
        )
        for i in members:
            user = prompt.draft(title, heading, sources[i].text)
            out.append(Answer("synthesize", user, drafts[i], prompt.DRAFT_SYSTEM))
        kept = [
            k.text
            for i in members
            if (d := proto.clean_draft(drafts[i])) is not None
            and (k := claims.keep_supported(sentences(d), sources[i].text, title)).text
        ]
        notes.extend(kept[:1])
    out.append(Answer("synthesize", prompt.lead(title, notes[:3]), lead, prompt.LEAD_SYSTEM))
    labels = [s.label for s in sources][:6]
    out.append(Answer("synthesize", prompt.kind(title, KINDS, labels), kind, prompt.KIND_SYSTEM))
    return out
