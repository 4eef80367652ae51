"""The store finds a spec's weights and words what to do when they are not there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model.base import Weights
from dreaming.model.store.locate import gguf_weights, mlx_weights


@pytest.mark.parametrize("locate", [mlx_weights, gguf_weights], ids=["mlx", "gguf"])
def test_a_preset_not_installed_says_how_to_install_it(
    locate: Callable[[str, Path | None], Weights], tmp_path: Path
) -> None:
    with pytest.raises(ModelError) as caught:
        locate("smollm2-135m", tmp_path)
    fmt = "mlx" if locate is mlx_weights else "gguf"
    assert str(caught.value) == (
        f"model preset smollm2-135m is not installed as {fmt}; "
        f"run: dreaming model install smollm2-135m --format {fmt}"
    )


def test_a_gguf_file_is_checked_not_reinstalled(tmp_path: Path) -> None:
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"GGUF")
    assert gguf_weights(str(weights)) == Weights(
        str(weights), "check that it is a complete GGUF file"
    )


def test_a_hub_repo_id_is_left_to_mlx_lm(tmp_path: Path) -> None:
    found = mlx_weights("mlx-community/Qwen2.5-1.5B-Instruct-4bit", tmp_path)
    assert found.path == "mlx-community/Qwen2.5-1.5B-Instruct-4bit"
    assert "dreaming model install" not in found.repair
