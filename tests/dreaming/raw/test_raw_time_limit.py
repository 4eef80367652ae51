"""A read of any format ends soon after its time limit, whatever the file holds: the
readers check the limit as they go (`dreaming.raw.deadline`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import dreaming.raw as raw
from bench.bench_read_memory import FORMATS
from dreaming.raw import read_transcript
from dreaming.raw.deadline import ReadTooSlow, check, time_limit

MB = 1024 * 1024


def big_file(tmp_path: Path, name: str, size: int = 8 * MB) -> Path:
    """A real transcript of `name`'s format, as bench_read_memory writes them."""
    path = tmp_path / "file"
    with path.open("w", encoding="utf-8") as f:
        named = FORMATS[name](f, size)
    real = tmp_path / (named[1] if isinstance(named, tuple) else "chat.md")
    path.rename(real)
    return real


ROUNDS = 3
"""Each time is the best of a few: one slow round on a shared machine is its noise, not
the reader's."""


def seconds_to_read(path: Path) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        read_transcript(path)
        best = min(best, time.perf_counter() - started)
    return best


def seconds_until_cut(path: Path, limit: float) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        with time_limit(path, limit), pytest.raises(ReadTooSlow):
            read_transcript(path)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_read_of_every_format_ends_soon_after_its_limit(tmp_path: Path, name: str) -> None:
    path = big_file(tmp_path, name)
    whole = seconds_to_read(path)
    # Cut at a tenth of the read, it stops well before half of it: checks come often.
    assert seconds_until_cut(path, whole / 10) < whole / 2


@pytest.mark.parametrize("name", ["markdown", "aider", "cortexes", "canonical"])
def test_a_big_log_read_twice_from_the_file_ends_soon_after_its_limit(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 0)
    path = big_file(tmp_path, name)
    whole = seconds_to_read(path)
    assert seconds_until_cut(path, whole / 10) < whole / 2


def test_the_reason_names_the_limit_and_the_setting(tmp_path: Path) -> None:
    path = big_file(tmp_path, "codex", MB)
    with time_limit(path, 0), pytest.raises(ReadTooSlow) as cut:
        read_transcript(path)
    assert cut.value.reason.startswith(
        "reading it took over 0 s, the limit for one file "
        "(raw_read_timeout_s in .dreaming/config.toml); the others went on."
    )
    assert "\n" not in cut.value.reason


def test_without_a_limit_nothing_is_cut() -> None:
    check()


def test_a_limit_ends_with_its_block(tmp_path: Path) -> None:
    with time_limit(tmp_path, 0):
        pass
    check()
