"""`dreaming model ...` as a person runs it: a real process, the configured model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dreaming.model import PRESETS

DREAMING = Path(sys.executable).parent / "dreaming"


# Slow: the console script in child processes.
pytestmark = pytest.mark.slow


def dreaming(*args: str, cwd: Path, model: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DREAMING_VAULT"}
    env["DREAMING_MODEL"] = model
    return subprocess.run(
        [str(DREAMING), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


@pytest.mark.parametrize(
    ("model", "what"),
    [
        ("openai:http://127.0.0.1:8080#qwen", "a server"),
        ("scripted:answers.jsonl", "a replay of recorded answers"),
        ("mlx:/models/qwen", "not a preset"),
        ("gguf:/models/qwen.gguf", "not a preset"),
    ],
)
def test_install_without_a_name_refuses_a_configured_model_that_is_not_a_preset(
    tmp_path: Path, model: str, what: str
) -> None:
    result = dreaming("model", "install", cwd=tmp_path, model=model)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"dreaming: error: the configured model {model} is {what}, nothing to install; "
        "run `dreaming model install NAME` with one of: "
        "qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m"
    ]
    assert not (tmp_path / "models").exists()


@pytest.mark.parametrize("columns", [80, 60])
def test_model_list_reads_whole_in_the_columns_it_is_given(tmp_path: Path, columns: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DREAMING_VAULT"}
    env |= {"COLUMNS": str(columns), "DREAMING_CACHE_DIR": str(tmp_path)}
    result = subprocess.run(
        [str(DREAMING), "model", "list"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    *rows, where = result.stdout.splitlines()
    assert where.startswith(f"installed in {tmp_path / 'models'}")
    assert all(len(row) < columns for row in rows)
    for preset in PRESETS.values():
        (row,) = [r for r in rows if r.endswith(preset.description)]
        assert preset.name in row or rows[rows.index(row) - 1].startswith(preset.name)
