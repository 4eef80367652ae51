"""`dreaming model list` on a narrow terminal: a row a preset that reads whole at 80
columns, two lines a preset below that; a description never cut or wrapped."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from dreaming.model import DEFAULT_MODEL, PRESETS
from watcher import cmd_model
from watcher.cli import cli

ANSI = re.compile(r"\x1b\[[0-9;]*m")
FORM = "GGUF for llama.cpp" if DEFAULT_MODEL.startswith("gguf:") else "mlx-lm folders"
DEFAULT = DEFAULT_MODEL.partition(":")[2]


def listed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, width: int) -> list[str]:
    sink = StringIO()
    monkeypatch.setattr(
        cmd_model, "out", Console(file=sink, force_terminal=True, width=width, soft_wrap=True)
    )
    monkeypatch.setenv("DREAMING_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no vault here: the default model
    result = CliRunner().invoke(cli, ["model", "list"], catch_exceptions=False)
    assert result.exit_code == 0
    return [line for line in ANSI.sub("", sink.getvalue()).splitlines() if line]


def test_at_80_columns_each_preset_is_one_row_read_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = listed(monkeypatch, tmp_path, 80)
    assert lines[0].split() == ["preset", "size", "installed", "for"]
    assert len(lines) == 1 + len(PRESETS) + 1
    for line, preset in zip(lines[1:], PRESETS.values(), strict=False):
        assert len(line) < 80
        assert line.startswith(preset.name)
        assert line.endswith(preset.description)
        assert " no " in line  # nothing installed in this cache
    assert lines[1].endswith("the default: fit for the gates")
    assert lines[-1] == f"installed in {tmp_path / 'models'} (as {FORM})"


def test_at_60_columns_each_preset_is_two_lines_and_no_description_is_cut(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = listed(monkeypatch, tmp_path, 60)
    presets = list(PRESETS.values())
    assert lines[: 2 * len(presets)] == [
        text
        for p in presets
        for text in (
            f"{p.name}  {p.size / 1e9:.2f} GB  not installed",
            ("  the default: " if p.name == DEFAULT else "  ") + p.description,
        )
    ]
    assert all(len(line) < 60 for line in lines[:-1])  # the last names a folder
