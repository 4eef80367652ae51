"""A real watch loop on a real vault, in a thread, for the watcher's tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dreaming.vault import Vault
from stages.jobs import ingest as ingest_stage
from watcher import raw_route
from watcher.app import App
from watcher.watch import Reaction, watch_vault

DEADLINE = 10.0


def wait_for(check: Callable[[], object], deadline: float = DEADLINE) -> None:
    """Poll `check` until it is true; fail the test after `deadline` seconds."""
    end = time.monotonic() + deadline
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline} s: {check}")
        time.sleep(0.01)


class Watching:
    """`watch_vault` running in a thread over `vault`; its reactions as they come."""

    def __init__(self, vault: Vault, **options: Any) -> None:
        self.app = App(vault)
        self.stop = threading.Event()
        self.night = threading.Event()
        self._said: list[Reaction] = []
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, kwargs=options, daemon=True)
        self._thread.start()
        assert self._ready.wait(DEADLINE), "the watch never started"

    def _run(self, **options: Any) -> None:
        try:
            watch_vault(
                self.app,
                self.stop,
                on_reaction=self._say,
                night_running=self.night.is_set,
                on_ready=self._ready.set,
                **options,
            )
        except BaseException as e:
            self.error = e
        finally:
            # The ledger was opened in this thread, which alone may close it.
            self.app.close()

    def _say(self, reaction: Reaction) -> None:
        with self._lock:
            self._said.append(reaction)

    @property
    def said(self) -> list[Reaction]:
        with self._lock:
            return list(self._said)

    def reaction(self, match: Callable[[Reaction], bool], deadline: float = DEADLINE) -> Reaction:
        """The first reaction that matches, waiting for it."""
        found: list[Reaction] = []

        def seen() -> bool:
            found[:] = [r for r in self.said if match(r)]
            return bool(found)

        wait_for(seen, deadline)
        return found[0]

    def alive(self) -> bool:
        return self._thread.is_alive()

    def close(self) -> float:
        """Stop the loop; how long it took to return."""
        start = time.monotonic()
        self.stop.set()
        self._thread.join(DEADLINE)
        took = time.monotonic() - start
        assert not self._thread.is_alive(), "the watch did not stop"
        if self.error is not None:
            raise self.error
        return took


@contextmanager
def watched(vault: Vault, **options: Any) -> Iterator[Watching]:
    """The watch loop over `vault` for the block (options go to `watch_vault`)."""
    w = Watching(vault, **options)
    try:
        yield w
    finally:
        if w.alive():
            w.close()


class IngestSpy:
    """The real INGEST, keeping which files each call was given."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.reports: list[ingest_stage.IngestReport] = []
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> ingest_stage.IngestReport:
        files = args[2] if len(args) > 2 else kwargs.get("files")
        report = ingest_stage.ingest(*args, **kwargs)
        with self._lock:
            self.calls.append([Path(f).name for f in files or []])
            self.reports.append(report)
        return report

    def times(self, name: str) -> int:
        with self._lock:
            return sum(call.count(name) for call in self.calls)


def spy_ingest(monkeypatch: pytest.MonkeyPatch) -> IngestSpy:
    """Count what the Raw route hands to INGEST (which still does the work)."""
    spy = IngestSpy()
    monkeypatch.setattr(raw_route, "ingest", spy)
    return spy
