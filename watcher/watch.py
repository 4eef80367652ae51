"""The watch loop: watchfiles over the vault, each debounced batch to its routes.

watchfiles gathers events until `step` ms pass without one (at most `debounce` ms),
so a drop reaches its route within a few tens of milliseconds; the loop also wakes
every `tick` ms without events, which is when waiting work (a file still being
copied, a commit git was too busy for, an article edit held through a night) is
looked at again. The loop only ends when `stop` is set: a failure of one unit of
work is a Reaction, and a failure of the watch itself (the vault's folder moved
away for a moment) is said and the watch started again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import watchfiles

from watcher.app import App
from watcher.changes import VaultFilter, sort_changes
from watcher.console import shown
from watcher.reactions import UNIT_FAULTS, Reaction, trouble
from watcher.routes import Routes

__all__ = ["Reaction", "watch_vault"]

DEBOUNCE_MS = 500
STEP_MS = 50
TICK_MS = 100
SETTLE_SECONDS = 0.2
"""How long a Raw file's mtime must stand still before it is read."""
LOCK_GRACE_SECONDS = 10.0
"""How long another process may hold git's index lock before the person is told."""
RESTART_SECONDS = 1.0

log = logging.getLogger(__name__)


def watch_vault(
    app: App,
    stop: threading.Event,
    *,
    on_reaction: Callable[[Reaction], None],
    night_running: Callable[[], bool],
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    tick_ms: int = TICK_MS,
    settle: float = SETTLE_SECONDS,
    lock_grace: float = LOCK_GRACE_SECONDS,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Watch the vault and react to each change until `stop` is set.

    on_ready: called once the vault is watched (a change from then on is seen)."""
    routes = Routes(app, on_reaction, night_running, settle=settle, lock_grace=lock_grace)
    root = str(app.vault.root)
    # Its "N changes detected" line for every batch (the state folders' too) would
    # flood the watch log; what the watcher did is in the reactions.
    logging.getLogger("watchfiles").setLevel(logging.WARNING)
    try:
        # Made (and migrated) before the first drop, not while a reader polls for it.
        _ = app.ledger
    except UNIT_FAULTS as e:
        on_reaction(Reaction("raw", ".", trouble(e), problem=True))
    routes.take_pending(time.monotonic())
    failed = ""
    while not stop.is_set():
        watching = False
        try:
            for changes in watchfiles.watch(
                root,
                watch_filter=VaultFilter(root),
                debounce=debounce_ms,
                step=step_ms,
                stop_event=stop,
                yield_on_timeout=True,
                rust_timeout=tick_ms,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                now = time.monotonic()
                if not watching:
                    # The first batch comes once the watch is in place: a save made
                    # between the look above and now told no event, so look again.
                    routes.take_pending(now)
                    watching = True
                routes.take(sort_changes(root, changes), now)
                _tick(routes, now, on_reaction)
                if on_ready is not None:
                    on_ready()
                    on_ready = None
        except (OSError, RuntimeError) as e:
            # watchfiles raises these when the watched folder goes (a moved vault, an
            # unmounted disk); nothing a file does gets here.
            log.warning("the watch stopped: %s", e)
            if str(e) != failed:
                failed = str(e)
                said = f"watching stopped ({shown(e)}); it starts again when it can"
                on_reaction(Reaction("raw", ".", said, problem=True))
            stop.wait(RESTART_SECONDS)


def _tick(routes: Routes, now: float, say: Callable[[Reaction], None]) -> None:
    """Let the routes work; what escapes a route's own care is said, never raised."""
    try:
        routes.tick(now)
    except UNIT_FAULTS as e:
        say(Reaction("raw", ".", trouble(e), problem=True))
