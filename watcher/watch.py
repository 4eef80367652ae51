"""The watch loop: vault changes → routes (issue 9: being built)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from watcher.app import App


@dataclass(frozen=True, slots=True)
class Reaction:
    route: str
    """raw, meta, station, notes, article."""
    path: str
    """Vault-relative."""
    outcome: str
    """One line for the console and the log."""
    problem: bool = False
    """True when the outcome is something for the person to fix."""


def watch_vault(
    app: App,
    stop: threading.Event,
    *,
    on_reaction: Callable[[Reaction], None],
    night_running: Callable[[], bool],
) -> None:
    """Watch the vault and react to each change until `stop` is set."""
    stop.wait()
