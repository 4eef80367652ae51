"""`dreaming watch`: the foreground service that launchd and systemd run.

One watcher per vault (watcher/instance.py). The main thread watches the vault
(watcher/watch.py) until SIGTERM or SIGINT; the scheduler's threads start nights as
child processes (watcher/night.py), so this process never imports a model library
and stays small. On a signal: the current reaction finishes, a running night is
asked to stop at its next unit boundary and commit its report, and the process
exits 0 once everything is released.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import FrameType

from rich.console import Console

from dreaming.errors import DreamingError
from dreaming.ledger import Ledger, raw_files
from dreaming.vault import Vault
from dreaming.vault.logs import LOG_BYTES, LOGS_KEPT
from watcher.app import App
from watcher.console import out, shown
from watcher.heartbeat import Heartbeat
from watcher.instance import instance_lock
from watcher.night import NightRequest, NightResult, NightRunner, run_lock_holder
from watcher.scheduler import NightScheduler
from watcher.watch import Reaction, watch_vault

LOG_NAME = "watch.log"
STOP_WAIT = 50.0
"""Seconds a stopping watcher waits for its night to finish the unit and commit."""

log = logging.getLogger("dreaming.watch")


def serve(
    vault_path: Path | None,
    *,
    night_command: Sequence[str] | None = None,
    console: Console = out,
) -> None:
    """Watch the vault and run its nights until SIGTERM/SIGINT."""
    app = App.open(vault_path, command="dreaming watch")
    vault = app.vault
    with instance_lock(vault), app, _logging(vault, vault.logs / LOG_NAME):
        stop = threading.Event()
        heartbeat = Heartbeat(vault)
        runner = NightRunner(vault, night_command)

        def say(line: str, *, problem: bool = False) -> None:
            (log.warning if problem else log.info)(line)
            stamp = datetime.now().strftime("%H:%M:%S")
            console.print(f"{stamp} {shown(line)}", markup=False, style="red" if problem else None)

        app.notice = say

        def night(request: NightRequest) -> NightResult:
            until = request.until
            # HH:MM of a person's --until or of the full local time a scheduled night gets.
            ends = "" if until is None else f", ends by {until.partition('T')[2][:5] or until[:5]}"
            say(f"night started ({request.reason}{ends})")
            heartbeat.night_started()
            try:
                result = runner.run(request, lambda why: say(why))
            except OSError as e:
                # The child could not start (the log unwritable, no python): said, not fatal.
                result = NightResult("failed", f"the night could not start: {e}")
            heartbeat.night_finished(result.status, result.summary)
            say(f"night {result.status}: {result.summary}", problem=result.status == "failed")
            return result

        def react(reaction: Reaction) -> None:
            say(f"{reaction.route} {reaction.path}: {reaction.outcome}", problem=reaction.problem)
            heartbeat.reaction(
                reaction, pending_raw=_pending(app) if reaction.route == "raw" else None
            )

        def night_running() -> bool:
            return runner.running() or run_lock_holder(vault) is not None

        scheduler = NightScheduler(
            vault,
            app.settings.schedule,
            night,
            on_next=heartbeat.next_night,
            night_ends=app.settings.night_ends,
        )
        restore = _on_signals(stop)
        try:
            scheduler.start()
            when = scheduler.next_night()
            say(
                f"watching {vault.root} (pid {heartbeat.doc['pid']}); next night "
                f"{when.strftime('%Y-%m-%d %H:%M:%S') if when else 'not scheduled'}; "
                f"Ctrl-C stops; to start it at login: dreaming service install --vault {vault.root}"
            )
            watch_vault(app, stop, on_reaction=react, night_running=night_running)
        finally:
            stop.set()
            runner.terminate()
            if not scheduler.stop(STOP_WAIT):
                say(
                    "the night did not stop in time; it goes on alone and commits its report",
                    problem=True,
                )
            heartbeat.stopped()
            restore()
            say("stopped")


def _pending(app: App) -> int:
    """Raw files waiting to be read again (half-copied ones); 0 when the ledger says no.

    Its own read-only connection: a reaction may be reported from any thread."""
    if not app.vault.ledger_path.is_file():
        return 0
    try:
        with Ledger(app.vault.ledger_path, read_only=True) as ledger:
            return raw_files.counts(ledger).get("pending", 0)
    except DreamingError:
        return 0


def _on_signals(stop: threading.Event) -> Callable[[], None]:
    """SIGTERM and SIGINT set `stop` (in the main thread only: Python's rule); the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: FrameType | None) -> None:
        log.info("signal %s: stopping", signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for s, h in previous.items():
            signal.signal(s, h)

    return restore


@contextmanager
def _logging(vault: Vault, path: Path) -> Iterator[None]:
    """The watcher's log, `.dreaming/logs/watch.log`, rotated at 1 MB, 5 kept; never
    through a link (RefusedFileError)."""
    vault.writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=LOGS_KEPT, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    loggers = {"dreaming.watch": logging.INFO, "apscheduler": logging.WARNING}
    for name, level in loggers.items():
        logging.getLogger(name).setLevel(level)
        logging.getLogger(name).addHandler(handler)
    try:
        yield
    finally:
        for name in loggers:
            logging.getLogger(name).removeHandler(handler)
        handler.close()
