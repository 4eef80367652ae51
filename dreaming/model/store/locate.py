"""A spec's target -> the weights a backend loads, in the store's words when they are
missing or damaged (install, repair, or what else the target could be)."""

from __future__ import annotations

from pathlib import Path

from dreaming.errors import ModelError
from dreaming.model.base import Weights
from dreaming.model.store.presets import PRESETS, installed_gguf, installed_mlx_folder
from dreaming.model.store.tensors import check_mlx_folder

CHECK_TARGET = "check the folder or repo id; see: dreaming model list"


def _repair(preset: str) -> str:
    return f"repair it with: dreaming model install {preset}"


def _not_installed(preset: str, fmt: str) -> ModelError:
    # The format is named: `model install` alone installs the configured spec's, which
    # may be the other one (a --model mlx:... on a vault set to gguf:...).
    return ModelError(
        f"model preset {preset} is not installed as {fmt}; "
        f"run: dreaming model install {preset} --format {fmt}"
    )


def mlx_weights(target: str, cache_dir: Path | None = None) -> Weights:
    """The folder or hub repo id for `mlx:<target>`; ModelError with the fix if neither."""
    if target in PRESETS:
        folder = installed_mlx_folder(PRESETS[target], cache_dir)
        if folder is None:
            raise _not_installed(target, "mlx")
        check_mlx_folder(folder, _repair(target))
        return Weights(str(folder), _repair(target))
    path = Path(target).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelError(
                f"mlx:{target} is a file, not a model folder; for a .gguf file use gguf:{target}"
            )
        check_mlx_folder(path, "replace the folder, or set model to mlx:<preset>")
        return Weights(str(path), CHECK_TARGET)
    if target.count("/") == 1 and not target.startswith((".", "/", "~")):
        # A hub repo id: mlx-lm downloads it where the hub is reachable.
        return Weights(target, CHECK_TARGET)
    raise ModelError(
        f"unknown model {target!r}: not a preset ({', '.join(PRESETS)}), "
        "a folder or a hub repo id; see: dreaming model list"
    )


def gguf_weights(target: str, cache_dir: Path | None = None) -> Weights:
    """The .gguf file for `gguf:<target>`; ModelError with the fix if there is none."""
    if target in PRESETS:
        path = installed_gguf(PRESETS[target], cache_dir)
        if path is None:
            raise _not_installed(target, "gguf")
        return Weights(str(path), _repair(target))
    path = Path(target).expanduser()
    if path.is_file():
        return Weights(str(path), "check that it is a complete GGUF file")
    raise ModelError(
        f"gguf:{target}: no such preset ({', '.join(PRESETS)}) or .gguf file; "
        "see: dreaming model list"
    )
