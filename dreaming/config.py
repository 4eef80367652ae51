"""Settings: the one place that reads environment variables and config files.

A vault's machine-specific settings live in `<vault>/.dreaming/config.toml`
(gitignored: the model path differs per machine, policy lives in Meta/).
Environment variables override the file; explicit arguments override both.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from dreaming.errors import ConfigError

DEFAULT_MODEL = "mlx:qwen2.5-coder-1.5b"
DEFAULT_SCHEDULE = "03:00"

_ENV = {
    "model": "DREAMING_MODEL",
    "schedule": "DREAMING_SCHEDULE",
    "max_model_calls": "DREAMING_MAX_MODEL_CALLS",
    "max_model_seconds": "DREAMING_MAX_MODEL_SECONDS",
    "keep_model_resident": "DREAMING_KEEP_MODEL",
}


@dataclass(frozen=True)
class Settings:
    vault: Path
    model: str = DEFAULT_MODEL
    schedule: str = DEFAULT_SCHEDULE
    """Local time HH:MM of the nightly run."""
    max_model_calls: int | None = None
    max_model_seconds: float | None = None
    keep_model_resident: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def config_file(self) -> Path:
        return self.vault / ".dreaming" / "config.toml"


def vault_from_env() -> Path | None:
    value = os.environ.get("DREAMING_VAULT")
    return Path(value).expanduser() if value else None


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
    known = {f.name for f in fields(Settings)} - {"vault", "extra"}
    extra = {k: v for k, v in values.items() if k not in known}
    parsed = {k: _coerce(k, v, path) for k, v in values.items() if k in known}
    return replace(settings, extra=extra, **parsed)


def _coerce(name: str, value: Any, path: Path) -> Any:
    try:
        if name in ("max_model_calls",):
            return None if value in ("", None) else int(value)
        if name == "max_model_seconds":
            return None if value in ("", None) else float(value)
        if name == "keep_model_resident":
            if isinstance(value, bool):
                return value
            return str(value).strip().lower() in ("1", "true", "yes", "on")
        if name == "schedule":
            hh, mm = str(value).split(":")
            if not (0 <= int(hh) < 24 and 0 <= int(mm) < 60):
                raise ValueError(value)
            return f"{int(hh):02d}:{int(mm):02d}"
        return str(value)
    except ValueError as e:
        raise ConfigError(
            f"setting {name!r} = {value!r} is invalid (from {path} or ${_ENV.get(name, '')}); "
            "fix the value"
        ) from e
