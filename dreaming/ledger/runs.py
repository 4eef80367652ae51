"""`runs`: one row per ingest, night or single-stage run: what it did, the commit it made."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from dreaming.ledger.connection import Ledger

RunKind = Literal["ingest", "night", "stage"]
"""ingest: Raw/ into the ledger; night: the whole pipeline; stage: one stage run alone."""
RUN_KINDS: tuple[RunKind, ...] = get_args(RunKind)

RunStatus = Literal["running", "ok", "failed", "interrupted"]
"""running until it finishes; interrupted: found unfinished by a later process."""
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)


@dataclass(frozen=True, slots=True)
class Run:
    id: str
    kind: RunKind
    started_at: str
    finished_at: str | None
    status: RunStatus
    summary: dict[str, Any] = field(default_factory=dict)
    commit_sha: str | None = None


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def put(ledger: Ledger, run: Run) -> None:
    ledger.db.execute(
        "INSERT INTO runs(id, kind, started_at, finished_at, status, summary, commit_sha) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            run.id,
            run.kind,
            run.started_at,
            run.finished_at,
            run.status,
            json.dumps(run.summary),
            run.commit_sha,
        ),
    )


def finish(
    ledger: Ledger,
    run_id: str,
    status: RunStatus,
    now: str,
    summary: dict[str, Any],
    commit_sha: str | None = None,
) -> None:
    ledger.db.execute(
        "UPDATE runs SET status = ?, finished_at = ?, summary = ?, commit_sha = ? WHERE id = ?",
        (status, now, json.dumps(summary), commit_sha, run_id),
    )


def get(ledger: Ledger, run_id: str) -> Run | None:
    row = ledger.db.execute(f"{_SELECT} WHERE id = ?", (run_id,)).fetchone()
    return None if row is None else _run(row)


def last(ledger: Ledger) -> Run | None:
    """The latest run to start (of two at the same second, the one recorded last)."""
    row = ledger.db.execute(f"{_SELECT} ORDER BY started_at DESC, rowid DESC LIMIT 1").fetchone()
    return None if row is None else _run(row)


_SELECT = "SELECT id, kind, started_at, finished_at, status, summary, commit_sha FROM runs"


def _run(row: Any) -> Run:
    summary = json.loads(row[5]) if row[5] else {}
    return Run(row[0], row[1], row[2], row[3], row[4], summary, row[6])


def interrupt_unfinished(ledger: Ledger, kind: RunKind, now: str) -> int:
    """Mark every `running` run of `kind` interrupted: called under the run lock, when
    none of them can still be going; returns how many there were."""
    cursor = ledger.db.execute(
        "UPDATE runs SET status = 'interrupted', finished_at = ? "
        "WHERE kind = ? AND status = 'running'",
        (now, kind),
    )
    return cursor.rowcount


@dataclass(frozen=True, slots=True)
class RunPace:
    """What a run took out of the backlog and what that cost: `status` estimates what is
    left from the recent nights' pace."""

    conversations: int
    messages: int
    model_seconds: float
    stage_seconds: float
    calls: int
    reading_seconds: float = 0.0
    """The part of `model_seconds` that SEGMENT and EXTRACT spent reading messages; the
    rest went to writing (SYNTHESIZE and after), which goes by subjects, not by length.
    Taken from the run's model calls, so it is never stored twice."""


READING_STAGES = ("segment", "extract")
_READING = (
    "(SELECT coalesce(sum(m.seconds), 0) FROM model_calls m WHERE m.run_id = runs.id "
    f"AND m.stage IN ({', '.join(repr(stage) for stage in READING_STAGES)}))"
)


def record_pace(ledger: Ledger, run_id: str, pace: RunPace) -> None:
    ledger.db.execute(
        "UPDATE runs SET taken_conversations = ?, taken_messages = ?, model_seconds = ?, "
        "stage_seconds = ?, calls = ? WHERE id = ?",
        (
            pace.conversations,
            pace.messages,
            pace.model_seconds,
            pace.stage_seconds,
            pace.calls,
            run_id,
        ),
    )


def measured(ledger: Ledger, nights: int = 5) -> list[RunPace]:
    """The pace of the last `nights` nights that took conversations out of the backlog,
    newest first (a night with nothing to take measured no pace)."""
    return [
        RunPace(*row)
        for row in ledger.db.execute(
            "SELECT taken_conversations, taken_messages, model_seconds, stage_seconds, calls, "
            f"{_READING} FROM runs WHERE kind = 'night' AND taken_conversations > 0 "
            "ORDER BY started_at DESC, rowid DESC LIMIT ?",
            (nights,),
        )
    ]


def pace_of(ledger: Ledger, run_id: str) -> RunPace | None:
    """The pace one run recorded (None: none recorded, as before the ledger kept it)."""
    row = ledger.db.execute(
        "SELECT taken_conversations, taken_messages, model_seconds, stage_seconds, calls, "
        f"{_READING} FROM runs WHERE id = ? AND taken_conversations IS NOT NULL",
        (run_id,),
    ).fetchone()
    return None if row is None else RunPace(*row)
