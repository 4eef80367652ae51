"""A night as a child process: `python -m watcher.cli synthesize --vault V`.

The watcher never runs a night in its own process: the model and everything the
night allocates go away with the child, so the watcher stays small. The child's
output goes to `.dreaming/logs/night.log`; its result is read back from the ledger's
`runs` row. The child runs in its own session, so a Ctrl-C in the watcher's terminal
reaches only the watcher, which forwards SIGTERM: the child stops at its next unit
boundary and commits its report.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dreaming.clock import utc_now
from dreaming.errors import DreamingError, RefusedFileError
from dreaming.ledger import Ledger, runs
from dreaming.vault import Vault
from dreaming.vault.lock import LOCK_NAME as RUN_LOCK
from dreaming.vault.lock import lock_holder
from dreaming.vault.logs import rotate

LOG_NAME = "night.log"
LOCK_POLL = 1.0
"""Seconds between looks at a run lock another process holds."""


@dataclass(frozen=True, slots=True)
class NightRequest:
    """Why a night runs, and a person's options for it (`dreaming synthesize`)."""

    reason: str
    """scheduled, catch-up, requested."""
    stage: str | None = None
    limit: int | None = None
    model: str | None = None
    since_policy: str | None = None
    until: str | None = None
    """When the night must stop: HH:MM (a person's `--until`), or the local time a
    scheduled night's `night_ends` falls on (the scheduler's `dated`)."""
    since: str | None = None
    """`--since DATE`: the backlog from then on only, for this night."""
    order: str | None = None
    """`--order newest|oldest` for this night."""

    def args(self) -> list[str]:
        found = [] if self.stage is None else ["--stage", self.stage]
        found += [] if self.limit is None else ["--limit", str(self.limit)]
        found += [] if self.since_policy is None else ["--since-policy", self.since_policy]
        found += [] if self.model is None else ["--model", self.model]
        for flag, value in (
            ("--until", self.until),
            ("--since", self.since),
            ("--order", self.order),
        ):
            found += [] if value is None else [flag, value]
        return found


@dataclass(frozen=True, slots=True)
class NightResult:
    status: str
    """The run's status (ok, failed, interrupted), or skipped: no night ran."""
    summary: str
    """One line for the console, the heartbeat and a waiting `synthesize --now`."""
    run_id: str | None = None
    exit_code: int | None = None


def default_command() -> list[str]:
    return [sys.executable, "-m", "watcher.cli"]


class NightRunner:
    """Runs one night at a time as a child process; `terminate` asks it to stop."""

    def __init__(self, vault: Vault, command: Sequence[str] | None = None) -> None:
        self.vault = vault
        self.command = list(command or default_command())
        self.log = vault.logs / LOG_NAME
        self._child: subprocess.Popen[bytes] | None = None
        self._guard = threading.Lock()
        self._stopping = threading.Event()

    def running(self) -> bool:
        return self._child is not None

    def run(self, request: NightRequest, on_wait: Callable[[str], None]) -> NightResult:
        """Run the night to its end (blocking); `on_wait` hears why it has to wait."""
        holder = run_lock_holder(self.vault)
        if holder is not None:
            on_wait(
                f"the night waits: another dreaming run (pid {holder}) is working on this vault"
            )
        while run_lock_holder(self.vault) is not None:
            if self._stopping.wait(LOCK_POLL):
                return NightResult("skipped", "not run: the watcher stopped while it waited")
        try:
            self.vault.writable(self.log)
        except RefusedFileError as e:
            return NightResult("failed", f"the night could not start: {e}")
        self.vault.logs.mkdir(parents=True, exist_ok=True)
        rotate(self.log)
        started = utc_now()
        argv = [*self.command, "synthesize", "--here", "--vault", str(self.vault.root)]
        argv += request.args()
        with self._guard:
            if self._stopping.is_set():
                return NightResult("skipped", "not run: the watcher is stopping")
            with self.log.open("ab") as out:
                out.write(f"--- {started} night ({request.reason})\n".encode())
                out.flush()
                self._child = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        try:
            code = self._child.wait()
        finally:
            with self._guard:
                self._child = None
        return self._result(code, started)

    def terminate(self) -> None:
        """Ask a running night to stop at its next unit boundary; no later night starts."""
        with self._guard:
            self._stopping.set()
            if self._child is not None:
                self._child.send_signal(signal.SIGTERM)

    def _result(self, code: int, started: str) -> NightResult:
        run = _run_since(self.vault, started)
        if run is None or run.status == "running":
            why = _last_line(self.log) or f"it exited with status {code}"
            return NightResult("failed", f"the night failed: {why}", None, code)
        return NightResult(run.status, summary_line(run), run.id, code)


def summary_line(run: runs.Run) -> str:
    s = run.summary
    done = sum(int(u.get("done", 0)) for u in s.get("units", {}).values())
    return (
        f"run {run.id} {run.status}: {done} units done, {s.get('failures', 0)} failed, "
        f"{s.get('model_calls', 0)} model calls, {s.get('commits', 0)} commits"
    )


def _run_since(vault: Vault, started: str) -> runs.Run | None:
    """The run the child recorded (the latest, started no earlier than it was)."""
    if not vault.ledger_path.is_file():
        return None
    try:
        with Ledger(vault.ledger_path, read_only=True) as ledger:
            run = runs.last(ledger)
    except DreamingError:
        return None
    return run if run is not None and run.started_at >= started else None


def _last_line(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else None


def run_lock_holder(vault: Vault) -> int | None:
    """The pid holding the vault's run lock, else None."""
    return lock_holder(vault.state / RUN_LOCK)
