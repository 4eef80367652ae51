"""Spec string -> TextModel, loaded once per process; and the helpers the CLI calls."""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path

from dreaming.model.base import TextModel, Usage
from dreaming.model.spec import ModelSpec, RecordSpec, parse_spec
from dreaming.model.store.presets import default_folder

_loaded: dict[tuple[str, Path | None], TextModel] = {}
_lock = threading.Lock()


def _build(spec: ModelSpec | RecordSpec, cache_dir: Path | None) -> TextModel:
    # One case per kind: mypy reports a kind added to the Literal but not built here.
    if isinstance(spec, RecordSpec):
        from dreaming.model.backends.scripted import RecordingModel

        inner = load(spec.inner.text, cache_dir=cache_dir)
        return RecordingModel(spec.text, inner, Path(spec.target).expanduser())
    match spec.kind:
        case "mlx":
            from dreaming.model.backends.mlx import MlxModel
            from dreaming.model.store.locate import mlx_weights

            return MlxModel(spec.text, partial(mlx_weights, spec.target, cache_dir))
        case "gguf":
            from dreaming.model.backends.gguf import GGUFModel
            from dreaming.model.store.locate import gguf_weights

            return GGUFModel(spec.text, partial(gguf_weights, spec.target, cache_dir))
        case "openai":
            from dreaming.model.backends.openai import OpenAIModel

            return OpenAIModel(
                spec.text, spec.target, spec.model, default_folder=default_folder(cache_dir)
            )
        case "scripted":
            from dreaming.model.backends.scripted import ScriptedModel

            return ScriptedModel(spec.text, Path(spec.target).expanduser())


def load(spec: str, *, cache_dir: Path | None = None) -> TextModel:
    """The model for `spec`. In-process models are shared per process: loading is the
    expensive part, and `unload()` frees the weights while keeping the object usable
    (its next call loads again). Spec errors raise ModelError here; a missing or damaged
    model raises on the first call, so the pipeline records it against that unit."""
    parsed = parse_spec(spec)
    if parsed.kind not in ("mlx", "gguf"):
        return _build(parsed, cache_dir)
    key = (parsed.text, cache_dir)
    with _lock:
        model = _loaded.get(key)
        if model is None:
            model = _loaded[key] = _build(parsed, cache_dir)
        return model


def unload_all() -> None:
    """Drop every in-process model's weights (between runs, unless kept resident)."""
    with _lock:
        models = list(_loaded.values())
    for model in models:
        model.unload()


def run_once(
    spec: str, prompt: str, system: str | None = None, *, cache_dir: Path | None = None
) -> tuple[str, Usage]:
    """One completion for `dreaming model run`: checks a model setup end to end.

    For the usage line: `format_usage(usage, load_seconds(spec))`."""
    model = load(spec, cache_dir=cache_dir)
    completion = model.complete("run", system, prompt)
    return completion.text, completion.usage


def load_seconds(spec: str, *, cache_dir: Path | None = None) -> float | None:
    """How long the in-process model of `spec` took to load; None for servers and replays."""
    return load(spec, cache_dir=cache_dir).load_seconds
