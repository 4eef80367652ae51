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
from datetime import date
from pathlib import Path
from typing import Any, Literal, get_args

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
# A laptop's working day starts around then: a night still running would slow it.
DEFAULT_NIGHT_ENDS = "07:00"
BacklogOrder = Literal["newest", "oldest"]
"""Which end of the backlog the nights take first: the conversations updated last, or first."""
BACKLOG_ORDERS: tuple[BacklogOrder, ...] = get_args(BacklogOrder)
# A Raw file past this is skipped unread: no chat a person drops in is that big, and a
# whole-document format (a ChatGPT export) takes several times its size in memory.
DEFAULT_MAX_RAW_FILE_MB = 512
# Reading one Raw file past this is given up (the file marked failed, the rest read on):
# the slowest format read at the size cap takes about a minute (docs/formats.md).
DEFAULT_RAW_READ_TIMEOUT_S = 300.0

_ENV = {
    "model": "DREAMING_MODEL",
    "schedule": "DREAMING_SCHEDULE",
    "max_model_calls": "DREAMING_MAX_MODEL_CALLS",
    "max_model_seconds": "DREAMING_MAX_MODEL_SECONDS",
    "keep_model_resident": "DREAMING_KEEP_MODEL",
    "max_raw_file_mb": "DREAMING_MAX_RAW_FILE_MB",
    "raw_read_timeout_s": "DREAMING_RAW_READ_TIMEOUT_S",
    "night_ends": "DREAMING_NIGHT_ENDS",
    "backlog_order": "DREAMING_BACKLOG_ORDER",
    "backlog_since": "DREAMING_BACKLOG_SINCE",
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
    raw_read_timeout_s: float = DEFAULT_RAW_READ_TIMEOUT_S
    """Seconds reading one Raw file may take; past it the file is marked failed and read
    again only once it changes."""
    night_ends: str | None = DEFAULT_NIGHT_ENDS
    """Local time HH:MM (or HH:MM:SS) by which a scheduled night stops, at a unit boundary;
    None: a night runs until its work or its budget is done."""
    backlog_order: BacklogOrder = "newest"
    """Which conversations of the backlog the nights take first (by their updated time)."""
    backlog_since: str | None = None
    """YYYY-MM-DD: the nights take only backlog conversations updated on or after it; the
    older ones wait (counted by `dreaming status`) until the date moves or goes."""

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
    # Where each value came from: a bad one is named with the place to fix it.
    origin: dict[str, str] = {}
    path = settings.config_file
    if path.is_symlink():
        # dreaming reads only real files of the vault (docs/vault.md), its settings too.
        raise ConfigError(
            f"{path}: a link; dreaming reads its settings only from a real file, "
            "so put the file itself in its place"
        )
    if path.is_file():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not valid TOML ({e}); fix or delete the file") from e
        origin.update(dict.fromkeys(values, str(path)))
    for name, var in _ENV.items():
        if var in os.environ:
            values[name] = os.environ[var]
            origin[name] = f"${var}"
    given = {k: v for k, v in overrides.items() if v is not None}
    values.update(given)
    origin.update(dict.fromkeys(given, "the command line"))
    known = {f.name for f in fields(Settings)} - {"vault"}
    unknown = sorted(k for k in values if k not in known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting {', '.join(unknown)}; "
            f"the settings are {', '.join(sorted(known))}"
        )
    parsed = {k: _coerce(k, v, origin.get(k, str(path))) for k, v in values.items()}
    chosen = replace(settings, **parsed)
    if chosen.night_ends is not None and _same_time(chosen.night_ends, chosen.schedule):
        where = origin.get("night_ends", origin.get("schedule", str(path)))
        raise ConfigError(
            f"{where}: setting night_ends = {chosen.night_ends!r} is the same as schedule, "
            'which leaves a night no time; set it later than schedule, or "" for no end'
        )
    return chosen


def _same_time(a: str, b: str) -> bool:
    """Whether two validated HH:MM[:SS] times are one time of day ("03:00" is "03:00:00")."""
    return (a + ":00")[:8] == (b + ":00")[:8]


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


_FIX = {
    "schedule": 'use a local time HH:MM such as "03:00"',
    "night_ends": 'use a local time HH:MM such as "07:00", or "" for no set end',
    "backlog_order": 'use "newest" or "oldest"',
    "backlog_since": 'use a date YYYY-MM-DD such as "2025-01-31", or "" for the whole history',
    "max_model_calls": "use a whole number of calls, or leave it out for no cap",
    "max_model_seconds": "use a number of seconds, or leave it out for no cap",
    "keep_model_resident": "use true or false",
    "max_raw_file_mb": "use a whole number of megabytes, at least 1",
    "raw_read_timeout_s": "use a number of seconds above 0, such as 300",
    "model": 'use a model spec string such as "gguf:qwen2.5-coder-1.5b"',
}
"""How to fix each setting: the second half of its one-line error."""


def _coerce(name: str, value: Any, where: str) -> Any:
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
        if name == "raw_read_timeout_s":
            if isinstance(value, bool) or not float(value) > 0 or float(value) == float("inf"):
                raise ValueError(value)
            return float(value)
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
        if name == "night_ends" and str(value).strip().lower() in ("", "off", "none"):
            return None
        if name in ("schedule", "night_ends"):
            if not isinstance(value, str):
                raise TypeError(value)
            parts = [int(p) for p in value.split(":")]
            if len(parts) not in (2, 3) or not all(
                0 <= p < top for p, top in zip(parts, (24, 60, 60), strict=False)
            ):
                raise ValueError(value)
            return ":".join(f"{p:02d}" for p in parts)
        if name == "backlog_order":
            if value not in BACKLOG_ORDERS:
                raise ValueError(value)
            return value
        if name == "backlog_since":
            # TOML reads an unquoted 2025-01-31 as a date; a string must be one too.
            if isinstance(value, date):
                return value.isoformat()[:10]
            if not isinstance(value, str):
                raise TypeError(value)
            if not value.strip():
                return None
            return date.fromisoformat(value.strip()).isoformat()
        if not isinstance(value, str):
            raise TypeError(value)
        return value
    except (ValueError, TypeError) as e:
        raise ConfigError(
            f"{where}: setting {name} = {value!r} is invalid; {_FIX.get(name, 'fix the value')}"
        ) from e
