"""What is going on in a vault: `dreaming status` (and its stable --json form)."""

# No postponed annotations here: a TypedDict learns which keys are NotRequired only
# from annotations evaluated when the class is made.
from typing import Any, NotRequired, TypedDict

from dreaming.config import Settings
from dreaming.ledger import (
    Ledger,
    article_index,
    conversations,
    model_calls,
    raw_files,
    runs,
    work,
)
from dreaming.ledger.model_calls import StageUsage
from dreaming.ledger.runs import RunKind, RunStatus
from dreaming.nights.backlog import backlog, described
from dreaming.raw.reclaimable import examine
from dreaming.vault import Vault, keepout
from dreaming.vault.repo import VaultRepo


class SourceDoc(TypedDict):
    conversations: int
    messages: int


class FilesDoc(TypedDict):
    total: int
    ok: int
    empty: int
    failed: int
    pending: int


class FileNoteDoc(TypedDict):
    file: str
    reason: str | None


class ReclaimableDoc(TypedDict):
    file: str
    superseded_by: str
    """The file that holds every byte of it."""
    bytes: int
    """Its size when it was last ingested: what `dreaming reclaim` would free."""


class UnitsDoc(TypedDict):
    done: int
    failed: int
    rejected: int
    skipped: int
    """Already done with the same input: no model call."""
    left: int
    """Not reached (budget spent or --limit): the next run does them."""


class RunDoc(TypedDict):
    id: str
    kind: RunKind
    started_at: str
    finished_at: str | None
    status: RunStatus
    summary: dict[str, Any]
    units: dict[str, UnitsDoc]
    """Per stage; empty for a run that ran no stage (an ingest)."""
    model_calls: int
    commits: int
    noops: int
    failures: int
    abandoned: NotRequired[bool]
    """Added by the command (always), which asks the vault's run lock: True for a run still
    `running` in the ledger that no process holds the lock of (killed, or the machine
    went down); the next run marks it interrupted and takes up where it stopped."""


class BacklogDoc(TypedDict):
    """What the backlog will take (`dreaming.nights`): None where no night measured a pace."""

    conversations: int
    """What the nights will take (the conversations `backlog_since` holds back not
    counted; `backlog` counts every one)."""
    messages: int
    held: int
    """Conversations updated before `backlog_since`: they wait."""
    order: str
    since: str | None
    model_seconds: float | None
    """The backlog in model time at the measured pace."""
    nights: int | None
    """Nights of the window (schedule to night_ends) and budgets it takes at that pace."""
    bound: str | None
    """What ends those nights first: night_ends, max_model_seconds or max_model_calls."""
    seconds_a_conversation: float | None
    """Model seconds a conversation as the measured nights averaged them."""
    measured_nights: int
    """How many recent nights the pace is measured over (0: no estimate)."""
    said: str
    """All of it in a few plain sentences, as `status` and the run report say it."""


class StatusDoc(TypedDict):
    """`dreaming status --json`: a stable interface for scripts; add keys, never rename."""

    conversations: int
    messages: int
    sources: dict[str, SourceDoc]
    files: FilesDoc
    failed: list[FileNoteDoc]
    pending: list[FileNoteDoc]
    redactions: int
    controls: int
    """Control characters (terminal escapes, C0/C1, bidi overrides) removed at ingest."""
    articles: int
    backlog: int
    """Conversations the nights have not yet taken through the model stages (an
    import's history among them): `dreaming.ledger.work.backlog`."""
    last_run: RunDoc | None
    model_usage: dict[str, StageUsage]
    vault: NotRequired[str]
    """Added by the command, which knows where the vault is."""
    policy_problems: NotRequired[list[str]]
    """Added by the command, which reads the vault's Meta pages (`policy_problems`): one
    line a page not in force, saying what to fix and what is in force instead."""
    watcher: NotRequired[dict[str, Any]]
    """Added by the command: the watcher's heartbeat (watcher/heartbeat.py), `running`."""
    reclaimable: NotRequired[list[ReclaimableDoc]]
    """Added by the command, which reads the Raw files (`reclaimable`): what `dreaming
    reclaim` would remove now."""
    backlog_estimate: NotRequired[BacklogDoc]
    """Added by the command, which reads the settings (the window, budgets, order)."""
    git_leaks: NotRequired[list[str]]
    """Added by the command, which asks the vault's git (`git_leaks`): one line a file of
    Raw/ or .dreaming/ git holds or `git add -A` would take, or a name it would not
    ignore, each with what to do; empty when transcripts and the ledger are kept out."""
    reclaim_kept: NotRequired[list[FileNoteDoc]]
    """Added by the command: the files the ledger calls superseded that `dreaming reclaim`
    would keep, each with why (bytes no newer copy holds, a change since ingest)."""


def status(ledger: Ledger) -> StatusDoc:
    """The status document. Keys are a stable interface for scripts; add, never rename."""
    sources: dict[str, SourceDoc] = {
        s.source: {"conversations": s.conversations, "messages": s.messages}
        for s in conversations.by_source(ledger)
    }
    files = raw_files.counts(ledger)
    return {
        "conversations": sum(s["conversations"] for s in sources.values()),
        "messages": sum(s["messages"] for s in sources.values()),
        "sources": sources,
        "files": {
            "total": sum(files.values()),
            "ok": files.get("ok", 0),
            "empty": files.get("empty", 0),
            "failed": files.get("failed", 0),
            "pending": files.get("pending", 0),
        },
        "failed": _notes(ledger, "failed"),
        "pending": _notes(ledger, "pending"),
        "redactions": raw_files.redactions(ledger),
        "controls": raw_files.controls(ledger),
        "articles": article_index.count(ledger),
        "backlog": work.backlog(ledger),
        "last_run": last_run(ledger),
        "model_usage": model_usage(ledger),
    }


def backlog_doc(ledger: Ledger, settings: Settings) -> BacklogDoc:
    found = backlog(ledger, settings)
    e = found.estimate
    return {
        "conversations": found.conversations,
        "messages": found.messages,
        "held": found.held,
        "order": found.order,
        "since": found.since,
        "model_seconds": None if e.model_seconds is None else round(e.model_seconds, 1),
        "nights": e.nights,
        "bound": e.bound,
        "seconds_a_conversation": (
            None if e.seconds_a_conversation is None else round(e.seconds_a_conversation, 1)
        ),
        "measured_nights": 0 if e.pace is None else e.pace.nights,
        "said": described(found),
    }


def _notes(ledger: Ledger, state: raw_files.FileState) -> list[FileNoteDoc]:
    return [{"file": f.path, "reason": f.reason} for f in raw_files.in_state(ledger, state)]


def last_run(ledger: Ledger) -> RunDoc | None:
    run = runs.last(ledger)
    if run is None:
        return None
    return {
        "id": run.id,
        "kind": run.kind,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "status": run.status,
        "summary": run.summary,
        "units": {stage: _units(counts) for stage, counts in run.summary.get("units", {}).items()},
        "model_calls": int(run.summary.get("model_calls", 0)),
        "commits": int(run.summary.get("commits", 0)),
        "noops": int(run.summary.get("noops", 0)),
        "failures": int(run.summary.get("failures", run.summary.get("failed", 0))),
    }


def _units(counts: dict[str, Any]) -> UnitsDoc:
    return {
        "done": int(counts.get("done", 0)),
        "failed": int(counts.get("failed", 0)),
        "rejected": int(counts.get("rejected", 0)),
        "skipped": int(counts.get("skipped", 0)),
        "left": int(counts.get("left", 0)),
    }


def model_usage(ledger: Ledger, run_id: str | None = None) -> dict[str, StageUsage]:
    """Per-stage totals of model calls (of one run, or of all time)."""
    return model_calls.usage(ledger, run_id)


def reclaimable(ledger: Ledger, vault: Vault) -> tuple[list[ReclaimableDoc], list[FileNoteDoc]]:
    """The Raw files `dreaming reclaim` would remove now (a newer copy holds every byte
    of each), and the ones the ledger calls superseded that it would keep, with why:
    `dreaming.raw.reclaimable.examine` decides both, on disk."""
    found: list[ReclaimableDoc] = []
    kept: list[FileNoteDoc] = []
    for s in conversations.superseded(ledger):
        held = examine(vault, ledger, s)
        if isinstance(held, str):
            kept.append({"file": s.path, "reason": held})
        else:
            found.append({"file": s.path, "superseded_by": held.holder, "bytes": held.freed})
    return found, kept


def git_leaks(vault: Vault) -> list[str]:
    """What git would take of Raw/ and .dreaming/ (`keepout.leaks`), a line each; none for
    a folder that is no git repository yet."""
    if not (vault.root / ".git").exists():
        return []
    repo = VaultRepo(vault.root)
    try:
        return [keepout.said(leak) for leak in keepout.leaks(repo)]
    finally:
        repo.repo.close()
