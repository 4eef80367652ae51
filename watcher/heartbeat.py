"""The watcher's heartbeat, `.dreaming/watch.json`: what `dreaming status` says of it.

Written whole and atomically on every change, so a reader never sees half of it. A
watcher killed with SIGKILL leaves its last heartbeat behind; `read_heartbeat` tells
"running" from "stopped" by the watch lock (watcher/instance.py), never by the file.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from dreaming.clock import utc_now
from dreaming.errors import RefusedFileError
from dreaming.vault import Vault, write_atomic
from dreaming.vault.checksums import current_checksum
from dreaming.vault.files import MAX_STATE_BYTES, read_bytes
from watcher.instance import watching_pid

if TYPE_CHECKING:  # the watch loop's imports cost every CLI start ~0.15 s
    from watcher.watch import Reaction

FILE_NAME = "watch.json"

State = Literal["watching", "night", "stopped"]


class EventDoc(TypedDict):
    at: str
    route: str
    path: str
    outcome: str
    problem: bool


class NightDoc(TypedDict):
    started: str | None
    finished: str | None
    status: str | None
    """ok, failed, interrupted (the ledger's run status), skipped; None while it runs."""
    summary: str | None
    """One line: what the night did, or why it failed."""


class PolicyProblemDoc(TypedDict):
    path: str
    problem: str


class HeartbeatDoc(TypedDict):
    """`dreaming status --json`'s `watcher` object: add keys, never rename."""

    pid: int
    started_at: str
    state: State
    last_event: EventDoc | None
    next_night: str | None
    last_night: NightDoc | None
    policy_problems: list[PolicyProblemDoc]
    pending_raw: int
    running: NotRequired[bool]
    """Added by `read_heartbeat`: the pid is alive and holds the watch lock."""


def now_iso() -> str:
    return utc_now()


class Heartbeat:
    """The running watcher's heartbeat; every method writes the file (thread-safe)."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._path = vault.state / FILE_NAME
        self._lock = threading.Lock()
        self.doc: HeartbeatDoc = {
            "pid": os.getpid(),
            "started_at": now_iso(),
            "state": "watching",
            "last_event": None,
            "next_night": None,
            "last_night": _previous_night(vault),
            "policy_problems": [],
            "pending_raw": 0,
        }
        self._write()

    def reaction(self, reaction: Reaction, *, pending_raw: int | None = None) -> None:
        with self._lock:
            self.doc["last_event"] = {
                "at": now_iso(),
                "route": reaction.route,
                "path": reaction.path,
                "outcome": reaction.outcome,
                "problem": reaction.problem,
            }
            if reaction.route == "meta":
                # A later good edit of the same page clears its problem.
                kept = [p for p in self.doc["policy_problems"] if p["path"] != reaction.path]
                if reaction.problem:
                    kept.append({"path": reaction.path, "problem": reaction.outcome})
                self.doc["policy_problems"] = kept
            if pending_raw is not None:
                self.doc["pending_raw"] = pending_raw
            self._write()

    def next_night(self, at: datetime | None) -> None:
        with self._lock:
            self.doc["next_night"] = None if at is None else at.isoformat(timespec="seconds")
            self._write()

    def night_started(self) -> None:
        with self._lock:
            self.doc["state"] = "night"
            self.doc["last_night"] = {
                "started": now_iso(),
                "finished": None,
                "status": None,
                "summary": None,
            }
            self._write()

    def night_finished(self, status: str, summary: str) -> None:
        with self._lock:
            started = self.doc["last_night"]["started"] if self.doc["last_night"] else None
            self.doc["state"] = "watching"
            self.doc["last_night"] = {
                "started": started,
                "finished": now_iso(),
                "status": status,
                "summary": summary,
            }
            self._write()

    def stopped(self) -> None:
        with self._lock:
            self.doc["state"] = "stopped"
            self.doc["next_night"] = None
            self._write()

    def _write(self) -> None:
        data = json.dumps(self.doc, indent=2, sort_keys=True) + "\n"
        # Nothing watches .dreaming/: no registry; the expected checksum is whatever is there.
        write_atomic(
            self._path,
            data,
            expected=current_checksum(self._path),
            registry=None,
            vault=self._vault,
        )


def _previous_night(vault: Vault) -> NightDoc | None:
    """The last night an earlier watcher recorded: a restart does not forget it."""
    doc = _read(vault)
    night = doc.get("last_night") if isinstance(doc, dict) else None
    return night if isinstance(night, dict) else None  # type: ignore[return-value]


def read_heartbeat(vault: Vault) -> HeartbeatDoc | None:
    """The last heartbeat with `running` set, or None when no watcher ever ran here."""
    doc: HeartbeatDoc | None = _read(vault)
    if not isinstance(doc, dict):
        return None
    holder = watching_pid(vault)
    doc["running"] = holder is not None and holder == doc.get("pid")
    if not doc["running"] and doc.get("state") != "stopped":
        # It died without saying so (SIGKILL, power): the file's state is stale.
        doc["state"] = "stopped"
    return doc


def _read(vault: Vault) -> Any:
    """The heartbeat file's JSON, or None when there is no readable one (never a wait on
    a named pipe put in its place)."""
    try:
        return json.loads(
            read_bytes(vault, vault.state / FILE_NAME, cap=MAX_STATE_BYTES, what="a state file")
        )
    except (OSError, ValueError, RefusedFileError):
        return None
