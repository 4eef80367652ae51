"""Hand-made ledger rows for BUCKET and RESOLVE tests: conversations cut into labelled
chunks, the subjects EXTRACT would have found in them, and a model that counts calls."""

from __future__ import annotations

from collections.abc import Sequence

from dreaming.ledger import Ledger, chunks, conversations, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.subjects import Mention
from dreaming.model import TextModel
from dreaming.subjects.names import canonical
from dreaming.transcript import Message
from dreaming.vault import Vault
from stages.runner.contract import Stage, StageContext
from stages.runner.pipeline import run_stage
from stages.runner.report import StageReport
from tests.support import stage_context

NOW = "2026-03-02T03:00:00+00:00"
RUN = "n1"


def conversation(
    ledger: Ledger, conv_id: str, labels: Sequence[str], updated: str = NOW
) -> list[str]:
    """A conversation of two messages per label, cut into one chunk per label; its chunk ids."""
    msgs = [
        Message(role, f"{role} turn {i}")
        for i in range(len(labels))
        for role in ("user", "assistant")
    ]
    conversations.put(
        ledger,
        NewConversation(conv_id, conv_id, "raw", f"Raw/{conv_id}.md", None, None, None, updated,
                        len(msgs), f"sha-{conv_id}"),
        NOW,
    )  # fmt: skip
    conversations.add_messages(ledger, conv_id, 0, msgs)
    cut = [Chunk(conv_id, 2 * i, 2 * i + 1, label, "h", "seg-1") for i, label in enumerate(labels)]
    chunks.replace(ledger, conv_id, cut, NOW)
    return [c.id for c in cut]


def names(ledger: Ledger, chunk_id: str, *displays: str, main: str | None = None) -> None:
    """EXTRACT's finding: the chunk is about these subjects (`main` its main one)."""
    for display in displays:
        key = canonical(display)
        subjects.add(ledger, key, display, NOW)
        subjects.mention(ledger, Mention(chunk_id, key, display, display == main))


def context(vault: Vault, ledger: Ledger, model: TextModel | None = None) -> StageContext:
    """A run's context, on `model` or on none at all."""
    return stage_context(vault, ledger, model, run_id=RUN, now=NOW)


def run(stage: Stage, ctx: StageContext) -> StageReport:
    """The stage's units not done yet, through the runner (which records them done)."""
    report = run_stage(stage, ctx)
    assert report.failed == 0, report.failures
    return report
