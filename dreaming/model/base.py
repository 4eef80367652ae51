"""The seam every backend implements, and the data it hands back.

The pipeline sees only `TextModel.complete`: text in, text out, plus the usage it
needs for the ledger and budgets. Backends differ in where the model runs; they
agree on what a finished answer is (stopped by the model, not by the backstop)
and on failing with a one-line `ModelError` that says what to do.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from dreaming import errors
from dreaming.errors import ModelError
from dreaming.model.constraint import Constraint

MAX_OUTPUT_TOKENS = 2048
"""The single backstop on generated tokens. Our units are small: a finished answer
stops at EOS long before this, so reaching it means the model is looping, and the
call fails rather than handing a truncated answer to a gate."""


@dataclass(frozen=True)
class Usage:
    """What one call cost. `cached_tokens` of the prompt were reused, not computed."""

    prompt_tokens: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0
    cached_tokens: int = 0
    prompt_seconds: float | None = None
    """Time to the first generated token, where the backend can tell it apart."""

    @property
    def computed_prompt_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens

    def __add__(self, other: Usage) -> Usage:
        prompt_seconds = None
        if self.prompt_seconds is not None or other.prompt_seconds is not None:
            prompt_seconds = (self.prompt_seconds or 0.0) + (other.prompt_seconds or 0.0)
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            generated_tokens=self.generated_tokens + other.generated_tokens,
            seconds=self.seconds + other.seconds,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            prompt_seconds=prompt_seconds,
        )

    def rates(self) -> tuple[float | None, float | None]:
        """(prompt tok/s over computed tokens, generation tok/s); None where unknown."""
        if self.prompt_seconds is None:
            return None, None
        prompt_rate = None
        if self.prompt_seconds > 0 and self.computed_prompt_tokens > 0:
            prompt_rate = self.computed_prompt_tokens / self.prompt_seconds
        gen_seconds = self.seconds - self.prompt_seconds
        gen_rate = self.generated_tokens / gen_seconds if gen_seconds > 0 else None
        return prompt_rate, gen_rate


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage
    confidence: float | None = None
    """For a `Choice` answer decoded in process: the probability the model gave the
    answer's first token, among the options' first tokens it weighed. A small model
    answers "yes" to nearly every question; how sure it was still ranks the answers.
    None where the backend cannot say (a server, a replay recorded without it)."""


@dataclass(frozen=True)
class Weights:
    """What an in-process backend loads, as the install store found it."""

    path: str
    """A model folder or file; for mlx also a hub repo id, which mlx-lm downloads."""
    repair: str
    """What a person does when these weights do not load."""


Locate = Callable[[], Weights]
"""Finds a spec's weights when its model first loads, not at `load()`: a missing model
fails the first call, which the pipeline records against that unit. Raises the store's
one-line ModelError (not installed, damaged, unknown)."""


class ModelUnavailable(ModelError):
    """The model cannot load (not installed, damaged, wrong for this machine): every
    call would fail the same way, so a run stops at once instead of failing each unit."""


class ModelCallError(ModelError):
    """One call failed after the model ran (runaway, empty answer): carries what it cost."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


@runtime_checkable
class TextModel(Protocol):
    """One completion call per pipeline unit; `stage` keys caching, replay and accounting,
    `unit` names the pipeline unit in the ledger (only the metered layer reads it)."""

    @property
    def spec(self) -> str: ...

    @property
    def load_seconds(self) -> float | None:
        """How long this process took to load the weights; None for servers and replays,
        and before the first call."""
        ...

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        """`constraint`: the shape the answer must have; the answer fits it exactly, or
        the call raises ModelCallError."""
        ...

    def unload(self) -> None:
        """Drop weights and caches; the next call loads again."""
        ...


def prompt_key(system: str | None, user: str) -> str:
    """The replay key of one exact prompt, as scripted files store it.

    NUL separates the parts so that moving text between system and user changes the key.
    """
    digest = hashlib.sha256(((system or "") + "\x00" + user).encode("utf-8"))
    return digest.hexdigest()[:16]


def finished_text(
    stage: str,
    text: str,
    usage: Usage,
    *,
    stopped: bool,
    limit: int = MAX_OUTPUT_TOKENS,
    confidence: float | None = None,
) -> Completion:
    """The common verdict on a raw answer, so every backend fails the same way."""
    if not stopped:
        raise ModelCallError(
            f"model did not stop within {limit} tokens for stage {stage}; "
            "the unit is skipped and retried next run (a looping model: try a larger one)",
            usage,
        )
    if not text.strip():
        raise ModelCallError(
            f"model returned nothing for stage {stage}; the unit is retried next run", usage
        )
    return Completion(text=text, usage=usage, confidence=confidence)


def decoded(
    stage: str,
    text: str,
    usage: Usage,
    stopped: bool,
    limit: int,
    constraint: Constraint | None,
    confidence: float | None,
) -> Completion:
    """An in-process backend's answer, judged: `finished_text`, then `constrained`."""
    answer = finished_text(stage, text, usage, stopped=stopped, limit=limit, confidence=confidence)
    return constrained(stage, answer, constraint)


def constrained(stage: str, completion: Completion, constraint: Constraint | None) -> Completion:
    """The answer held to its constraint after the fact: what decoding could not ensure
    (a server, a replay) fails here like any other unusable answer."""
    if constraint is None:
        return completion
    try:
        text = constraint.accept(completion.text)
    except ValueError as e:
        raise ModelCallError(
            f"answer for stage {stage} breaks its {type(constraint).__name__} constraint "
            f"({one_line(e)}); the unit is retried next run",
            completion.usage,
        ) from None
    return Completion(text=text, usage=completion.usage, confidence=completion.confidence)


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens two prompts share: what a prefix cache can reuse."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def quiet_transformers() -> None:
    """transformers announces at import that torch is missing; dreaming never needs it."""
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


def one_line(text: object, limit: int = 200) -> str:
    """An exception's text fit for a one-line error message."""
    return errors.one_line(text, limit)


def format_usage(usage: Usage, load_seconds: float | None = None) -> str:
    """One line a person reads after `dreaming model run`."""
    prompt_rate, gen_rate = usage.rates()
    parts = [] if load_seconds is None else [f"loaded in {load_seconds:.1f} s"]
    parts += [
        f"{usage.prompt_tokens} prompt tokens ({usage.cached_tokens} cached)",
        f"{usage.generated_tokens} generated",
    ]
    if prompt_rate is not None:
        parts.append(f"prompt {prompt_rate:.1f} tok/s")
    if gen_rate is not None:
        parts.append(f"generation {gen_rate:.1f} tok/s")
    parts.append(f"{usage.seconds:.2f} s")
    return " · ".join(parts)


class InProcessModel:
    """What the in-process backends share: their spec, where their weights are, the
    load time, and one lock (a model is loaded and called by one thread at a time)."""

    def __init__(self, spec: str, locate: Locate) -> None:
        self._spec = spec
        self._locate = locate
        self.load_seconds: float | None = None
        self._lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self._spec

    def warm(self) -> None:
        """Load now rather than on the first call."""
        with self._lock:
            self._load()

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        with self._lock:
            self._load()
            return self._complete(stage, system, user, constraint)

    def _load(self) -> None:
        try:
            self._ensure_loaded()
        except ModelError as e:
            if isinstance(e, ModelUnavailable):
                raise
            raise ModelUnavailable(str(e)) from e

    def _ensure_loaded(self) -> object:
        raise NotImplementedError

    def _complete(
        self, stage: str, system: str | None, user: str, constraint: Constraint | None
    ) -> Completion:
        """One answer, the weights loaded and the lock held."""
        raise NotImplementedError


class HoldsNoWeights:
    """A model whose weights live elsewhere (a server) or nowhere (a replay): no load
    time in this process, nothing to release."""

    @property
    def load_seconds(self) -> None:
        return None

    def unload(self) -> None:
        """Nothing is held here."""


class WrappedModel:
    """A model around another (recording, metering): its weights are the inner model's."""

    def __init__(self, inner: TextModel) -> None:
        self.inner = inner

    @property
    def load_seconds(self) -> float | None:
        return self.inner.load_seconds

    def unload(self) -> None:
        self.inner.unload()
