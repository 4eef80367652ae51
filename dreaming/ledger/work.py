"""`work`: one row per (stage, unit) a stage has handled, keyed by a digest of its input.

A stage hashes everything a unit's output depends on (its text, the policy
pages and prompt it reads, the model); a unit is done when a `done` row holds
that same hash. So "nothing new" is one query and zero model calls, and a unit
whose input changed, that failed, or whose edit the gate rejected is simply
not done and is taken up again on the next run, up to `MAX_ATTEMPTS` times
with one input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from dreaming.ledger.connection import Ledger

WorkStatus = Literal["done", "failed", "rejected"]
"""done: output stored; failed: an error stopped it; rejected: the gate refused its edit."""
WORK_STATUSES: tuple[WorkStatus, ...] = get_args(WorkStatus)


@dataclass(frozen=True, slots=True)
class WorkItem:
    stage: str
    unit: str
    input_hash: str
    status: WorkStatus
    attempts: int
    """Tries with this input: a changed input starts again at 1."""
    last_error: str | None
    run_id: str | None
    updated_at: str


def record(
    ledger: Ledger,
    stage: str,
    unit: str,
    input_hash: str,
    status: WorkStatus,
    *,
    run_id: str | None,
    now: str,
    error: str | None = None,
) -> None:
    """Record how handling `unit` with this input went."""
    ledger.db.execute(
        "INSERT INTO work(stage, unit, input_hash, status, attempts, last_error, run_id, "
        "updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?) "
        "ON CONFLICT(stage, unit) DO UPDATE SET "
        "attempts = CASE WHEN work.input_hash = excluded.input_hash "
        "THEN work.attempts + 1 ELSE 1 END, "
        "input_hash = excluded.input_hash, status = excluded.status, "
        "last_error = excluded.last_error, run_id = excluded.run_id, "
        "updated_at = excluded.updated_at",
        (stage, unit, input_hash, status, error, run_id, now),
    )


def outcomes(ledger: Ledger, stages: Sequence[str]) -> dict[str, tuple[int, int]]:
    """For each of `stages`: (units done, units the write gate or a person's edit
    refused), as the ledger holds them now."""
    marks = ",".join("?" for _ in stages)
    rows = ledger.db.execute(
        f"SELECT stage, status, COUNT(*) FROM work WHERE stage IN ({marks}) "
        "AND status IN ('done', 'rejected') GROUP BY stage, status",
        tuple(stages),
    ).fetchall()
    counts = {(stage, status): n for stage, status, n in rows}
    return {s: (counts.get((s, "done"), 0), counts.get((s, "rejected"), 0)) for s in stages}


MAX_ATTEMPTS = 3
"""Tries a unit gets with one input. A model answers the same input the same way, so a
unit that failed this often waits for its input to change (a new chunk, a changed
policy page or prompt, another model) instead of costing calls every night."""


def todo(ledger: Ledger, stage: str, inputs: Mapping[str, str]) -> list[str]:
    """The units of `inputs` (unit -> input hash) to do: not done with that input, and
    not failed `MAX_ATTEMPTS` times with it. In the order of `inputs`."""
    settled = dict(
        ledger.db.execute(
            "SELECT unit, input_hash FROM work WHERE stage = ? "
            "AND (status = 'done' OR attempts >= ?)",
            (stage, MAX_ATTEMPTS),
        ).fetchall()
    )
    return [unit for unit, digest in inputs.items() if settled.get(unit) != digest]


def given_up(ledger: Ledger, stage: str, inputs: Mapping[str, str]) -> list[str]:
    """The units of `inputs` that failed `MAX_ATTEMPTS` times with that same input."""
    spent = dict(
        ledger.db.execute(
            "SELECT unit, input_hash FROM work WHERE stage = ? "
            "AND status != 'done' AND attempts >= ?",
            (stage, MAX_ATTEMPTS),
        ).fetchall()
    )
    return [unit for unit, digest in inputs.items() if spent.get(unit) == digest]


def get(ledger: Ledger, stage: str, unit: str) -> WorkItem | None:
    row = ledger.db.execute(
        "SELECT stage, unit, input_hash, status, attempts, last_error, run_id, updated_at "
        "FROM work WHERE stage = ? AND unit = ?",
        (stage, unit),
    ).fetchone()
    return None if row is None else WorkItem(*row)


def is_done(ledger: Ledger, stage: str, unit: str, input_hash: str) -> bool:
    """Whether `unit` is done with exactly this input."""
    row = ledger.db.execute(
        "SELECT 1 FROM work WHERE stage = ? AND unit = ? AND input_hash = ? AND status = 'done'",
        (stage, unit, input_hash),
    ).fetchone()
    return row is not None


@dataclass(frozen=True, slots=True)
class BacklogRow:
    """A conversation of the backlog: what the nights order it by and how big it is."""

    id: str
    messages: int
    updated: str | None
    """Its last activity (its first, when it has no later time), ISO 8601."""
    segmented: bool
    """SEGMENT has done it: only EXTRACT's chunks keep it in the backlog."""


_HANDLED = (
    "SELECT 1 FROM work w WHERE w.stage = ? AND w.unit = {unit} "
    "AND (w.status = 'done' OR w.attempts >= ?)"
)
_IN_BACKLOG = (
    "NOT EXISTS ("
    + _HANDLED.format(unit="c.id")
    + ") OR EXISTS (SELECT 1 FROM chunks k WHERE k.conv_id = c.id AND NOT EXISTS ("
    + _HANDLED.format(unit="k.id")
    + "))"
)
_BACKLOG_ARGS = ("segment", MAX_ATTEMPTS, "extract", MAX_ATTEMPTS)


def backlog_rows(ledger: Ledger) -> list[BacklogRow]:
    """Every conversation of `backlog`, least recently updated first."""
    rows = ledger.db.execute(
        "SELECT c.id, c.message_count, coalesce(c.updated_at, c.created_at), EXISTS ("
        + _HANDLED.format(unit="c.id")
        + f") FROM conversations c WHERE {_IN_BACKLOG} "
        "ORDER BY coalesce(c.updated_at, c.created_at) IS NOT NULL, "
        "coalesce(c.updated_at, c.created_at), c.id",
        ("segment", MAX_ATTEMPTS, *_BACKLOG_ARGS),
    )
    return [BacklogRow(r[0], int(r[1]), r[2], bool(r[3])) for r in rows]


def backlog(ledger: Ledger) -> int:
    """Conversations the nights have not yet taken through the model stages: never
    segmented, or holding a chunk EXTRACT has not yet handled (a unit given up after
    `MAX_ATTEMPTS` tries on its input counts as handled). A conversation that grew after
    it was segmented is not counted: its new messages are a night's ordinary work."""
    row = ledger.db.execute(
        f"SELECT COUNT(*) FROM conversations c WHERE {_IN_BACKLOG}", _BACKLOG_ARGS
    ).fetchone()
    return int(row[0])
