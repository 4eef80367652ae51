"""When nights run: the nightly schedule, catch-up, and run-now requests.

APScheduler 3 fires the night at `settings.schedule`, local time. `coalesce` and no
misfire grace: nights missed while the machine slept run once on wake, not once
each. A night missed while no watcher ran is caught up at start from
`.dreaming/schedule.json` (when the last scheduled night started): if a scheduled
time has passed since, one night runs now; the file is updated as it starts, so a
second start does not run it again. A vault without the file is a new install: the
file records now as the baseline and nothing is caught up.

Nights never overlap: scheduled, caught up or requested, each holds one lock.

A scheduled or caught-up night is handed its end (`night_ends`, the same morning): it
stops there at a unit boundary. One caught up after its window closed gets an end
already past, so the model work waits for the next night instead of the working day. A
night a person asks for keeps what they asked (`--until`, or no end).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, tzinfo
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from dreaming.errors import RefusedFileError
from dreaming.nights.window import night_end
from dreaming.vault import Vault, write_atomic
from dreaming.vault.checksums import current_checksum
from dreaming.vault.files import MAX_STATE_BYTES, read_bytes
from watcher import control
from watcher.night import NightRequest, NightResult

SCHEDULE_FILE = "schedule.json"
POLL_SECONDS = 0.5
"""How often `.dreaming/control/` is looked at for run-now requests."""

NightFn = Callable[[NightRequest], NightResult]

log = logging.getLogger("dreaming.watch")


def cron_trigger(schedule: str) -> CronTrigger:
    """The trigger of a `HH:MM` or `HH:MM:SS` local time (validated by the settings)."""
    hour, minute, second = ([*schedule.split(":"), "0"])[:3]
    return CronTrigger(hour=int(hour), minute=int(minute), second=int(second))


class NightScheduler:
    """Fires `night` on schedule, on catch-up and on request; one night at a time."""

    def __init__(
        self,
        vault: Vault,
        schedule: str,
        night: NightFn,
        *,
        on_next: Callable[[datetime | None], None] | None = None,
        poll: float = POLL_SECONDS,
        night_ends: str | None = None,
        clock: Callable[[], datetime] = datetime.now,
    ) -> None:
        self.vault = vault
        self.schedule = schedule
        self.night_ends = night_ends
        self._clock = clock
        self.trigger = cron_trigger(schedule)
        self._night = night
        self._on_next = on_next
        self._poll = poll
        self._one_night = threading.Lock()
        self._stop = threading.Event()
        self._scheduler = BackgroundScheduler(timezone=self.trigger.timezone)
        self._poller = threading.Thread(target=self._watch_requests, name="requests", daemon=True)

    @property
    def timezone(self) -> tzinfo:
        tz: tzinfo = self.trigger.timezone
        return tz

    def start(self) -> None:
        due = self.catch_up_due(datetime.now(self.timezone))
        self._scheduler.add_job(
            self._run,
            self.trigger,
            args=[NightRequest("scheduled")],
            id="night",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=None,
        )
        if due:
            self._scheduler.add_job(
                self._run, args=[NightRequest("catch-up")], id="catch-up", misfire_grace_time=None
            )
        self._scheduler.start()
        self._poller.start()
        self._announce()

    def stop(self, wait: float) -> bool:
        """Stop firing; wait up to `wait` seconds for a running night. False: it still runs."""
        self._stop.set()
        self._scheduler.shutdown(wait=False)
        finished = self._one_night.acquire(timeout=wait)
        if finished:
            self._one_night.release()
            # The poller answers the request it was serving, then returns.
            self._poller.join(timeout=max(self._poll * 4, 1.0))
        return finished

    def next_night(self) -> datetime | None:
        job = self._scheduler.get_job("night")
        when: datetime | None = None if job is None else job.next_run_time
        return when

    def catch_up_due(self, now: datetime) -> bool:
        """Whether a scheduled time passed since the last scheduled night started
        (a new install records `now` as its baseline and owes nothing)."""
        state = self._state()
        since = state.get("last_started") or state.get("baseline")
        if not isinstance(since, str):
            self._save({"baseline": now.isoformat()})
            return False
        try:
            last = datetime.fromisoformat(since)
        except ValueError:
            self._save({"baseline": now.isoformat()})
            return False
        if last.tzinfo is None:
            last = last.replace(tzinfo=self.timezone)
        # A night that started at the very second it was due owes nothing for that second.
        missed = self.trigger.get_next_fire_time(None, last + timedelta(microseconds=1))
        return missed is not None and missed <= now

    def dated(self, request: NightRequest) -> NightRequest:
        """`request` as its night runs: a scheduled or caught-up night with its end, the
        `night_ends` after the last scheduled time (the local clock, to the second)."""
        if request.reason not in ("scheduled", "catch-up") or self.night_ends is None:
            return request
        end = night_end(self._clock(), self.schedule, self.night_ends)
        return replace(request, until=end.isoformat(timespec="seconds"))

    def _run(self, request: NightRequest) -> NightResult:
        # The end belongs to the night, not to when it got to run: one that waits for
        # another run's lock still stops at the same hour.
        request = self.dated(request)
        with self._one_night:
            if self._stop.is_set():
                return NightResult("skipped", "not run: the watcher is stopping")
            scheduled = request.reason in ("scheduled", "catch-up")
            before = self._state()
            if scheduled:
                # Recorded before it runs: a watcher killed mid-night does not run it twice.
                self._save({**before, "last_started": self._now()})
            result = self._night(request)
            if scheduled and result.status == "skipped":
                # No night ran (the watcher stopped while it waited): the next start owes it.
                self._save(before)
            elif scheduled:
                done = {"last_finished": self._now(), "last_status": result.status}
                self._save({**self._state(), **done})
        self._announce()
        return result

    def _watch_requests(self) -> None:
        while not self._stop.wait(self._poll):
            for rid, request in control.take_requests(self.vault):
                if request is None:
                    result = NightResult("failed", "the request could not be read; ask again")
                else:
                    result = self._run(request)
                control.answer(self.vault, rid, result)
                if self._stop.is_set():
                    return

    def _announce(self) -> None:
        if self._on_next is not None:
            self._on_next(None if self._stop.is_set() else self.next_night())

    def _now(self) -> str:
        return datetime.now(self.timezone).isoformat()

    def _state(self) -> dict[str, Any]:
        path = self.vault.state / SCHEDULE_FILE
        try:
            doc = json.loads(read_bytes(self.vault, path, cap=MAX_STATE_BYTES, what="a state file"))
        except (OSError, ValueError, RefusedFileError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def _save(self, doc: dict[str, Any]) -> None:
        path = self.vault.state / SCHEDULE_FILE
        text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
        write_atomic(path, text, expected=current_checksum(path), registry=None, vault=self.vault)
