"""How the long commands show where they are: the model install's phases and the
night's stages.

On a terminal, rich bars that stay on screen when done (what each phase or stage did
and how long it took stays readable above the command's summary line). Without one (a
log, a pipe, the watcher's night.log), a line when a phase starts and at most one every
QUIET_EVERY_S, so a log stays a few lines long. The views take their console and clock,
so tests render them into a string.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
)
from rich.table import Column
from rich.text import Text

from watcher.console import shown, sized

if TYPE_CHECKING:
    from rich.console import Console

    from dreaming.model import Phase, Step

QUIET_EVERY_S = 10.0
"""Without a terminal, a progress line at most this often."""

Clock = Callable[[], float]


def _clock_text(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def _took(task: Task) -> float:
    """The row's time: until it was complete or stopped, else so far; a byte row not
    started yet (no byte has come) counts from when it was added, so a wait shows."""
    if not task.started and "added" in task.fields:
        return float(task.get_time() - task.fields["added"])
    took = task.finished_time if task.finished else task.elapsed
    return took or 0.0


def _rate(task: Task) -> float | None:
    """Units a second over the row's whole run. Not rich's own estimate: that forgets
    its samples whenever the total changes, and a download's total is refined as each
    package's size becomes known."""
    took = _took(task)
    return task.completed / took if took and task.completed else None


class _Time(ProgressColumn):
    """How long a row took once it is over; while it runs, the time left where its rate
    tells (bytes: `eta`), else the time so far (a night's units differ too much in
    length for one unit's time to foretell the next's)."""

    def __init__(self, *, eta: bool) -> None:
        super().__init__()
        self.eta = eta

    def render(self, task: Task) -> Text:
        if task.finished or task.stop_time is not None:
            return Text(f"in {_clock_text(_took(task))}", style="progress.elapsed")
        rate = _rate(task) if self.eta else None
        if rate is None or task.total is None:
            return Text(_clock_text(_took(task)), style="progress.elapsed")
        left = max(0.0, task.total - task.completed) / rate
        return Text(f"{_clock_text(left)} left", style="progress.remaining")


class _Amount(ProgressColumn):
    """Bytes so far and in all for a byte row once they come, else what the row says it
    is at."""

    def __init__(self) -> None:
        super().__init__(table_column=Column(no_wrap=True, overflow="ellipsis"))
        self.bytes = DownloadColumn()

    def render(self, task: Task) -> Text:
        if task.fields.get("bytes") and task.started:
            return self.bytes.render(task)
        return Text(str(task.fields.get("note", "")))


class _Rate(ProgressColumn):
    """Bytes a second for a byte row; nothing for the others."""

    def render(self, task: Task) -> Text:
        rate = _rate(task) if task.fields.get("bytes") else None
        if rate is None:
            return Text("")
        return Text(f"{sized(round(rate))}/s", style="progress.data.speed")


BYTE_PHASES: tuple[Phase, ...] = ("download", "assemble")


class _Rows:
    """The rows of one rich Progress by key, each stopped once (its time then stays)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.ids: dict[str, TaskID] = {}
        self.over: set[TaskID] = set()

    def add(self, key: str, total: int | None, *, start: bool = True, **fields: Any) -> TaskID:
        self.end_all()
        self.ids[key] = self.progress.add_task(key, total=total, start=start, **fields)
        return self.ids[key]

    def end(self, row: TaskID) -> None:
        if row not in self.over:
            self.over.add(row)
            self.progress.stop_task(row)

    def end_all(self) -> None:
        for row in self.ids.values():
            self.end(row)


class InstallRecord:
    """What an install did, as the views saw it, for the summary line."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.started: dict[Phase, float] = {}
        self.flowing: dict[Phase, float] = {}
        """When a byte phase's first bytes came: pip looks every package up before it
        downloads any (seconds for 22), which is no part of the rate."""
        self.ended: dict[Phase, float] = {}
        self.downloaded = 0
        self.verified = False

    def seen(self, step: Step) -> bool:
        """Note `step`; True when it starts a phase (and ends the one before)."""
        now = self.clock()
        if step.phase == "download":
            self.downloaded = step.done
        if step.phase == "verify" and step.done:
            self.verified = True
        if step.done and step.phase in BYTE_PHASES:
            self.flowing.setdefault(step.phase, now)
        if step.phase in self.started or step.phase == "note":
            return False
        for phase in self.started:
            self.ended.setdefault(phase, now)
        self.started[step.phase] = now
        return True

    def rate(self, phase: Phase, done: int) -> str:
        """`, 11.8 MB/s`: the bytes of `phase` a second since they began to come."""
        took = self.ended.get(phase, self.clock()) - self.flowing.get(phase, self.clock())
        return f", {sized(round(done / took))}/s" if took > 0 else ""

    def summary(self, name: str, seconds: float, path: Path) -> str:
        """What was done, how long it took and where the model is, in one line."""
        done = []
        if self.downloaded:
            rate = self.rate("download", self.downloaded)
            done.append(f"{sized(self.downloaded)} downloaded{rate}")
        if self.verified:
            done.append("SHA-256 verified")
        if "convert" in self.started:
            done.append("converted for mlx-lm")
        if not done:
            return f"{name} is already installed at {shown(path)}; nothing to do"
        return f"installed {name} in {seconds:.1f} s ({', '.join(done)}) at {shown(path)}"


class InstallBar:
    """The install on a terminal: a row a phase; download and assemble in bytes with
    their rate and time left, verify and convert with what they are at."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            _Amount(),
            _Rate(),
            _Time(eta=True),
            console=console,
            get_time=clock,
        )
        self.clock = clock
        self.record = InstallRecord(clock)
        self.rows = _Rows(self.progress)
        self.started: set[Phase] = set()

    def __call__(self, step: Step) -> None:
        starts = self.record.seen(step)
        if step.phase == "note":
            return  # the summary line says what a note would
        counted = step.phase in BYTE_PHASES
        if starts:
            # A byte row's clock starts with its first bytes, as its rate does.
            self.rows.add(
                step.phase,
                step.total,
                start=not counted,
                bytes=counted,
                note="",
                added=self.clock(),
            )
        row = self.rows.ids[step.phase]
        if counted and step.done and step.phase not in self.started:
            self.started.add(step.phase)
            self.progress.start_task(row)
        self.progress.update(row, completed=step.done, total=step.total, note=_install_note(step))


def _install_note(step: Step) -> str:
    if step.phase == "download" and not step.done:
        return "looking the packages up"  # pip's index lookups, before any byte
    if step.phase == "verify":
        return "SHA-256 matches the pin" if step.done else "SHA-256"
    if step.phase == "convert":
        return step.text.removeprefix("converting ")
    return ""


class InstallLines:
    """The install without a terminal: a line a phase, then at most one every
    QUIET_EVERY_S saying how far it is."""

    def __init__(self, console: Console, name: str, clock: Clock = time.monotonic) -> None:
        self.console, self.name, self.clock = console, name, clock
        self.record = InstallRecord(clock)
        self.said = 0.0

    def __call__(self, step: Step) -> None:
        if step.phase == "note":
            return
        starts = self.record.seen(step)
        if step.phase == "verify":
            if step.done:
                self._say("SHA-256 verified")
        elif starts:
            self._say(step.text)
        elif step.done and self.clock() - self.said >= QUIET_EVERY_S:
            self._say(self._how_far(step))

    def _how_far(self, step: Step) -> str:
        if step.phase not in BYTE_PHASES or not step.total:
            return step.text
        verb = "downloaded" if step.phase == "download" else "assembled"
        rate = self.record.rate(step.phase, step.done)
        share = 100 * step.done // step.total
        return f"{verb} {sized(step.done)} of {sized(step.total)} ({share}%){rate}"

    def _say(self, text: str) -> None:
        self.said = self.clock()
        self.console.print(f"{self.name}: {shown(text)}", markup=False)


InstallView = InstallBar | InstallLines


@contextmanager
def install_view(
    console: Console, name: str, clock: Clock = time.monotonic
) -> Iterator[InstallView]:
    """The install's progress for `console`: bars on a terminal, else quiet lines."""
    if not console.is_terminal:
        yield InstallLines(console, name, clock)
        return
    bar = InstallBar(console, clock)
    with bar.progress:
        try:
            yield bar
        finally:
            bar.rows.end_all()  # the time each row shows stops here


class _About(ProgressColumn):
    """What the unit in hand is about, on one line: cut to the room the other columns
    leave (the widest column gives way first), never wrapped under the bar."""

    def __init__(self) -> None:
        super().__init__(table_column=Column(overflow="ellipsis"))

    def render(self, task: Task) -> Text:
        return Text(str(task.fields.get("about", "")), no_wrap=True, overflow="ellipsis")


class NightBar:
    """The night on a terminal: a bar a stage over its units (a stage with none gets no
    row), with the conversation or article the unit in hand is about."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            _Time(eta=False),
            _About(),
            console=console,
            get_time=clock,
        )
        self.rows = _Rows(self.progress)

    def __call__(self, stage: str, done: int, total: int, about: str) -> None:
        if stage not in self.rows.ids:
            if not total:
                return
            for earlier in self.rows.ids.values():  # over: it is on no unit now
                self.progress.update(earlier, about="")
            self.rows.add(stage, total, about="")
        row = self.rows.ids[stage]
        self.progress.update(row, completed=done, total=total, about=shown(about))
        if not about:
            self.rows.end(row)


class NightLines:
    """The night without a terminal: at most a line every QUIET_EVERY_S (a short night
    says nothing but its summary)."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self.console, self.clock = console, clock
        self.said = clock()

    def __call__(self, stage: str, done: int, total: int, about: str) -> None:
        if not about or self.clock() - self.said < QUIET_EVERY_S:
            return
        self.said = self.clock()
        self.console.print(f"{stage} {done}/{total}: {shown(about)}", markup=False)


NightView = NightBar | NightLines


@contextmanager
def night_view(console: Console, clock: Clock = time.monotonic) -> Iterator[NightView]:
    """The night's progress for `console`: bars on a terminal, else quiet lines."""
    if not console.is_terminal:
        yield NightLines(console, clock)
        return
    bar = NightBar(console, clock)
    with bar.progress:
        try:
            yield bar
        finally:
            bar.rows.end_all()  # the time each row shows stops here
