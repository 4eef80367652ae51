"""Settings: the one place that reads environment variables and config files.

A vault's machine-specific settings live in `<vault>/.dreaming/config.toml`
(gitignored: the model path differs per machine, policy lives in Meta/).
Environment variables override the file; explicit arguments override both.
"""

from __future__ import annotations

import os
import platform
import sys
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from dreaming.errors import ConfigError


def default_model(system: str, machine: str) -> str:
    """The default model where it runs fast: llama.cpp (the `[llama]` extra's prebuilt
    wheel) on a Linux x86-64 CPU, where mlx-cpu generates ~1 token/s; mlx elsewhere,
    Metal on Apple Silicon (docs/models.md)."""
    if system == "linux" and machine.lower() in ("x86_64", "amd64"):
        return "gguf:qwen2.5-coder-1.5b"
    return "mlx:qwen2.5-coder-1.5b"


DEFAULT_MODEL = default_model(sys.platform, platform.machine())
DEFAULT_SCHEDULE = "03:00"
# A Raw file past this is skipped unread: no chat a person drops in is that big, and a
# whole-document format (a ChatGPT export) takes several times its size in memory.
DEFAULT_MAX_RAW_FILE_MB = 512

_ENV = {
    "model": "DREAMING_MODEL",
    "schedule": "DREAMING_SCHEDULE",
    "max_model_calls": "DREAMING_MAX_MODEL_CALLS",
    "max_model_seconds": "DREAMING_MAX_MODEL_SECONDS",
    "keep_model_resident": "DREAMING_KEEP_MODEL",
    "max_raw_file_mb": "DREAMING_MAX_RAW_FILE_MB",
}


@dataclass(frozen=True)
class Settings:
    vault: Path
    model: str = DEFAULT_MODEL
    schedule: str = DEFAULT_SCHEDULE
    """Local time HH:MM (or HH:MM:SS) of the nightly run."""
    max_model_calls: int | None = None
    max_model_seconds: float | None = None
    keep_model_resident: bool = False
    max_raw_file_mb: int = DEFAULT_MAX_RAW_FILE_MB
    """Raw files larger than this are reported and skipped, never read."""

    @property
    def config_file(self) -> Path:
        return self.vault / ".dreaming" / "config.toml"


def vault_from_env() -> Path | None:
    value = os.environ.get("DREAMING_VAULT")
    return Path(value).expanduser() if value else None


def model_cache_root() -> Path:
    """Where models are installed: `$DREAMING_CACHE_DIR`, else the user cache dir."""
    override = os.environ.get("DREAMING_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("dreaming"))


def blas_override() -> str | None:
    """`$DREAMING_BLAS`: a BLAS library path for mlx on Linux, or `none`."""
    return os.environ.get("DREAMING_BLAS") or None


def configured_model(vault: Path | None) -> str:
    """The model spec in force: the vault's settings, else $DREAMING_MODEL, else the default."""
    if vault is not None and (vault / ".dreaming").is_dir():
        return load_settings(vault).model
    return os.environ.get(_ENV["model"]) or DEFAULT_MODEL


def load_settings(vault: Path, **overrides: Any) -> Settings:
    """Settings for `vault`: config file, then environment, then `overrides` (None ignored)."""
    settings = Settings(vault=vault)
    values: dict[str, Any] = {}
    path = settings.config_file
    if path.is_file():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not valid TOML ({e}); fix or delete the file") from e
    for name, var in _ENV.items():
        if var in os.environ:
            values[name] = os.environ[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    known = {f.name for f in fields(Settings)} - {"vault"}
    unknown = sorted(k for k in values if k not in known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting {', '.join(unknown)}; "
            f"the settings are {', '.join(sorted(known))}"
        )
    parsed = {k: _coerce(k, v, path) for k, v in values.items()}
    return replace(settings, **parsed)


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _coerce(name: str, value: Any, path: Path) -> Any:
    try:
        if name in ("max_model_calls", "max_model_seconds"):
            if value in ("", None):
                return None
            if isinstance(value, bool):
                raise ValueError(value)
            number = float(value)
            if number < 0 or (name == "max_model_calls" and number != int(number)):
                raise ValueError(value)
            return int(number) if name == "max_model_calls" else number
        if name == "max_raw_file_mb":
            if isinstance(value, bool) or int(value) != float(value) or int(value) < 1:
                raise ValueError(value)
            return int(value)
        if name == "keep_model_resident":
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word not in _TRUE + _FALSE:
                raise ValueError(value)
            return word in _TRUE
        if name == "schedule":
            parts = [int(p) for p in str(value).split(":")]
            if len(parts) not in (2, 3) or not all(
                0 <= p < top for p, top in zip(parts, (24, 60, 60), strict=False)
            ):
                raise ValueError(value)
            return ":".join(f"{p:02d}" for p in parts)
        if not isinstance(value, str):
            raise TypeError(value)
        return value
    except (ValueError, TypeError) as e:
        raise ConfigError(
            f"setting {name!r} = {value!r} is invalid (from {path} or ${_ENV.get(name, '')}); "
            "fix the value"
        ) from e
