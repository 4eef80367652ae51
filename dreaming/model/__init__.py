"""The model seam: every pipeline model call goes through a `TextModel`.

Importing this package is cheap and never imports mlx: the OpenBLAS preload
(`dreaming.model.backends.blas`) must happen before mlx's first import, and the CLI and
the read path should not pay for model libraries they do not use.

Public API (the CLI and the pipeline use only these):

- `load(spec) -> TextModel`, `TextModel.complete(stage, system, user) -> Completion`;
  `constraint=Choice(...) | Lines(...) | Json(schema)` where the answer has a shape
- `MeteredModel(model, budget=Budget(...), on_call=...)`, `CallRecord`, `BudgetExhausted`
- `list_presets()`, `models_dir()` (where they install), `install(name, progress,
  fmt=...)` (progress: one `Step` at a time, its `Phase` and bytes),
  `installable_preset(spec)` (the preset a configured model names),
  `installable_format(spec)` (what that model loads: the GGUF alone, or an mlx-lm
  folder too), `run_once(spec, prompt, system)`,
  `format_usage(usage, load_seconds(spec))`, `unload_all()`, `blas_status()` (which
  BLAS mlx runs on, and why; call it before anything imports mlx)
"""

from __future__ import annotations

from dreaming.config import DEFAULT_MODEL
from dreaming.model.backends.blas import prepare as blas_status
from dreaming.model.base import (
    MAX_OUTPUT_TOKENS,
    Completion,
    ModelCallError,
    ModelUnavailable,
    TextModel,
    Usage,
    format_usage,
    prompt_key,
)
from dreaming.model.constraint import Choice, Constraint, Json, Lines
from dreaming.model.loader import load, load_seconds, run_once, unload_all
from dreaming.model.metered import Budget, BudgetExhausted, CallRecord, MeteredModel, StageTotals
from dreaming.model.spec import ModelSpec, RecordSpec, parse_spec
from dreaming.model.store.install import install, installable_format, installable_preset
from dreaming.model.store.presets import PRESETS, Format, PresetInfo, list_presets, models_dir
from dreaming.model.store.steps import Phase, Step

__all__ = [
    "DEFAULT_MODEL",
    "MAX_OUTPUT_TOKENS",
    "PRESETS",
    "Budget",
    "BudgetExhausted",
    "CallRecord",
    "Choice",
    "Completion",
    "Constraint",
    "Format",
    "Json",
    "Lines",
    "MeteredModel",
    "ModelCallError",
    "ModelSpec",
    "ModelUnavailable",
    "Phase",
    "PresetInfo",
    "RecordSpec",
    "StageTotals",
    "Step",
    "TextModel",
    "Usage",
    "blas_status",
    "format_usage",
    "install",
    "installable_format",
    "installable_preset",
    "list_presets",
    "load",
    "load_seconds",
    "models_dir",
    "parse_spec",
    "prompt_key",
    "run_once",
    "unload_all",
]
