"""What is going on in a vault: `dreaming status` (and its stable --json form)."""

from __future__ import annotations

import json
from typing import Any

from dreaming.ledger import Ledger, messages_sha


def status(ledger: Ledger) -> dict[str, Any]:
    """The status document. Keys are a stable interface for scripts; add, never rename."""
    db = ledger.db
    sources: dict[str, dict[str, int]] = {}
    for row in db.execute(
        "SELECT c.source, COUNT(*) AS convs, COALESCE(SUM(c.message_count), 0) AS msgs "
        "FROM conversations c GROUP BY c.source ORDER BY c.source"
    ):
        sources[row["source"]] = {"conversations": row["convs"], "messages": row["msgs"]}
    files = {
        row["status"]: row["n"]
        for row in db.execute("SELECT status, COUNT(*) AS n FROM raw_files GROUP BY status")
    }
    failed = [
        {"file": row["path"], "reason": row["reason"]}
        for row in db.execute(
            "SELECT path, reason FROM raw_files WHERE status = 'failed' ORDER BY path"
        )
    ]
    pending = [
        {"file": row["path"], "reason": row["reason"]}
        for row in db.execute(
            "SELECT path, reason FROM raw_files WHERE status = 'pending' ORDER BY path"
        )
    ]
    redactions = db.execute("SELECT COALESCE(SUM(redactions), 0) FROM raw_files").fetchone()[0]
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
        "failed": failed,
        "pending": pending,
        "reclaimable": reclaimable(ledger),
        "redactions": int(redactions),
        "articles": db.execute("SELECT COUNT(*) FROM entities").fetchone()[0],
        "last_run": last_run(ledger),
        "model_usage": model_usage(ledger),
    }


def last_run(ledger: Ledger) -> dict[str, Any] | None:
    row = ledger.db.execute(
        "SELECT id, kind, started_at, finished_at, status, summary FROM runs "
        "ORDER BY started_at DESC, rowid DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    return {
        "id": row["id"],
        "kind": row["kind"],
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "status": row["status"],
        "summary": json.loads(row["summary"]) if row["summary"] else {},
    }


def model_usage(ledger: Ledger, run_id: str | None = None) -> dict[str, dict[str, float]]:
    """Per-stage totals of model calls (of one run, or of all time)."""
    where, args = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
    usage: dict[str, dict[str, float]] = {}
    for row in ledger.db.execute(
        "SELECT stage, COUNT(*) AS calls, SUM(prompt_tokens) AS prompt, "
        "SUM(cached_tokens) AS cached, SUM(generated_tokens) AS generated, "
        "SUM(seconds) AS seconds, SUM(error IS NOT NULL) AS errors "
        f"FROM model_calls {where} GROUP BY stage ORDER BY stage",
        args,
    ):
        usage[row["stage"]] = {
            "calls": row["calls"],
            "prompt_tokens": row["prompt"] or 0,
            "cached_tokens": row["cached"] or 0,
            "generated_tokens": row["generated"] or 0,
            "seconds": round(row["seconds"] or 0.0, 3),
            "errors": row["errors"] or 0,
        }
    return usage


def reclaimable(ledger: Ledger) -> list[dict[str, str]]:
    """Raw files whose every conversation is an exact or prefix copy held by another file.

    Such a file adds nothing; the person may delete it (seed 003's reclaim).
    """
    db = ledger.db
    holders: dict[str, set[str]] = {}
    candidates: dict[str, bool] = {}
    for row in db.execute(
        "SELECT fc.path, fc.conv_id, fc.message_count, fc.content_sha, c.file, c.content_sha "
        "AS held_sha FROM file_conversations fc JOIN conversations c ON c.id = fc.conv_id "
        "ORDER BY fc.path"
    ):
        path = row["path"]
        if row["file"] == path:
            candidates[path] = False
            continue
        same = row["content_sha"] == row["held_sha"] or _is_prefix(
            ledger, row["conv_id"], row["message_count"], row["content_sha"]
        )
        candidates[path] = candidates.get(path, True) and same
        holders.setdefault(path, set()).add(row["file"])
    return [
        {"file": path, "superseded_by": ", ".join(sorted(holders[path]))}
        for path, ok in candidates.items()
        if ok and path in holders
    ]


def _is_prefix(ledger: Ledger, conv_id: str, count: int, sha: str) -> bool:
    rows = ledger.db.execute(
        "SELECT role, text, ts FROM messages WHERE conv_id = ? AND position < ? ORDER BY position",
        (conv_id, count),
    )
    return messages_sha((r["role"], r["text"], r["ts"]) for r in rows) == sha
