"""What a pipeline stage is: a name, the units it could work on, and how to do one.

The runner (stages/runner/pipeline.py) owns everything around a unit: it asks a stage
for its units in chronological order, skips a unit whose `work` row is `done`
with the same input hash (so a night with nothing new makes no model call),
records how each unit went, stops at a unit boundary when the model budget is
spent, and shows progress. A stage only says what its units are and does one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from dreaming.config import Settings
from dreaming.errors import RefusedFileError, UnsafePathError
from dreaming.ledger import Ledger
from dreaming.model import TextModel
from dreaming.policy.pages import Policy
from dreaming.vault import Vault
from dreaming.vault.files import read_page
from stages.runner.write import Outcome, Writer, resolve

StageName = Literal[
    "segment", "extract", "bucket", "resolve", "synthesize", "reconcile", "link", "editorial"
]
"""The stages, in the order a night runs them (INGEST runs before them)."""

UnitStatus = Literal["done", "failed", "rejected"]
"""As the ledger's `work.status`: done (output stored), failed (an error stopped it,
retried next run), rejected (the gate refused its edit, retried next run)."""


@dataclass(frozen=True, slots=True)
class Unit:
    key: str
    """The unit's id within its stage (a conversation id, a chunk id, a bucket id…)."""
    input_hash: str
    """A digest of everything the unit's output depends on: its text, the policy pages
    and prompt it reads, the model spec. A changed hash makes the unit new again."""
    label: str = ""
    """What progress, the run report and the commit message call it."""
    conversation: str = ""
    """The title of the one conversation the unit reads, where it reads one and its label
    does not name it (a chunk's label is its topic): progress shows it too."""


@dataclass(frozen=True, slots=True)
class UnitResult:
    status: UnitStatus
    detail: str | None = None
    """Why it failed or was rejected: one line, for the run report."""
    settle: Callable[[], None] | None = None
    """The ledger rows the unit proposes (its chunks, subjects, buckets, homes, or what
    its writes hold): the runner applies them after committing the unit's writes, in
    the transaction that records the unit, so a run killed in between never leaves the
    ledger claiming what history lacks, nor a unit half stored."""
    unresolved: tuple[str, ...] = ()
    """What a done unit found and could not settle, each one line with its citations:
    the run report lists them for the person."""
    held: str | None = None
    """Why a done unit wrote no article for its subject yet (nothing true to say yet):
    the run report lists it, so a night that made no article says why."""
    stuck: bool = False
    """The unit's article is one no edit can pass the write gate on (dreaming.article.stuck):
    the runner records nothing, so the unit waits, asking no model, until the person fixes
    the article (the run that found it says what to fix), and is never given up."""


def read_article(vault: Vault, stem: str) -> tuple[bytes, str] | UnitResult:
    """The unit's article as (bytes, text), or what the unit comes to without it: failed
    (a path or file refused, in one line) or done (gone since the units were listed)."""
    try:
        page = read_page(vault, resolve(vault, stem).path, what="an article")
    except (UnsafePathError, RefusedFileError) as e:
        return UnitResult("failed", str(e))
    if page is None:
        return UnitResult("done", "gone since the units were listed")
    return page


def writable_article(ctx: StageContext, stem: str) -> tuple[Writer, bytes, str] | UnitResult:
    """The run's writer and the unit's article, or what the unit comes to without them
    (a dry run writes nothing; see `read_article` and `stuck`)."""
    found = editable_article(ctx, stem)
    if isinstance(found, UnitResult):
        return found
    writer, data, text = found
    return stuck(writer, stem, data, text) or found


def editable_article(ctx: StageContext, stem: str) -> tuple[Writer, bytes, str] | UnitResult:
    """`writable_article` without asking first whether the article is stuck: for a stage
    that asks no model, the write door says so (`noop_stuck`) if its edit is refused."""
    if ctx.writer is None:
        return UnitResult("failed", "a dry run writes nothing")
    page = read_article(ctx.vault, stem)
    if isinstance(page, UnitResult):
        return page
    return (ctx.writer, *page)


def stuck(writer: Writer, stem: str, data: bytes, text: str) -> UnitResult | None:
    """What a unit comes to whose article no edit can pass the gate on, before it asks
    the model anything; None when an edit can pass."""
    why = writer.stuck(stem, data, text)
    return None if why is None else UnitResult("rejected", why, stuck=True)


def unwritten(outcome: Outcome) -> UnitResult | None:
    """What a unit whose edit the write door did not take comes to (the gate or a
    person's edit refused it: rejected, retried; anything else: failed), or None when
    the edit stands written."""
    if outcome.status == "noop_stuck":
        return UnitResult("rejected", outcome.detail, stuck=True)
    if outcome.status in ("noop_rejected", "noop_conflict"):
        return UnitResult("rejected", outcome.detail)
    if outcome.status not in ("written", "unchanged"):
        return UnitResult("failed", outcome.detail or outcome.status)
    return None


@dataclass
class StageContext:
    """What one run hands every stage (built by the runner from the app context)."""

    vault: Vault
    ledger: Ledger
    settings: Settings
    policy: Policy
    run_id: str
    model: Callable[[], TextModel]
    """The run's model, loaded on first call (a stage with nothing to do never loads it)."""
    now: Callable[[], str]
    """The current time as ISO 8601 UTC (injected so tests are deterministic)."""
    writer: Writer | None = None
    """The run's one door to disk (None in a dry run); the runner commits what a unit
    wrote right after it (after every `commit_every` units, for a stage that sets it), before
    recording the unit done."""
    waiting: frozenset[str] = frozenset()
    """Conversations of the backlog this round of the night leaves for a later one
    (stages/runner/rounds.py): SEGMENT lists none of them, so no later stage meets them."""


class Stage(Protocol):
    name: StageName
    policy: tuple[str, ...]
    """The Meta pages the stage reads (through `ctx.policy`): the runner records each one's
    checksum for every unit done, and `--since-policy PAGE` runs the stages naming PAGE."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        """Every unit this stage could work on now, oldest first (conversations by
        updated time, chunks by position). The runner skips the ones already done."""
        ...

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        """Do one unit: call the model (constrained where the answer has a shape),
        validate in code, and propose: the ledger rows it means go in `settle`, which the
        runner applies with the unit's record (synthesis also writes through
        stages/runner/write.py, committed before it). A model answer in the wrong shape is
        `failed`, never an exception; `BudgetExhausted` propagates so the runner stops
        cleanly."""
        ...
