"""`gguf:<preset | file>` — llama.cpp in-process (an optional extra).

On a Linux CPU llama.cpp runs the quantised GGUF many times faster than mlx-cpu runs
its float32 conversion (docs/models.md). Two engines, whichever is installed:

- llama-cpp-python (`import llama_cpp`, `pip install 'dreaming[llamacpp]'`): mature,
  but compiles for 6-16 minutes on install;
- ik-llama-cpp-python (`import ik_llama_cpp`, `pip install 'dreaming[llama]'`): a
  prebuilt CPU wheel for Linux x86-64 that installs in seconds (`backends/ik.py`).

Both get the same prompt: the model's own chat template from the GGUF metadata,
rendered here in a sandbox; and the same greedy decoding, held to a constraint by
`TokenChooser` where the call gives one.

Prefix caching: each engine reuses the longest common token prefix of its one KV
cache, so consecutive calls of a stage share their system text. (Per-stage saved
states, as the mlx backend keeps, would copy the logits buffer, ~300 MB for Qwen's
vocabulary, on every call: not worth it when the pipeline runs a stage's units in a row.)
"""

from __future__ import annotations

import gc
import importlib.util
import os
import time
from collections.abc import Iterator
from typing import Any, Protocol

from dreaming.errors import ModelError
from dreaming.model.base import (
    MAX_OUTPUT_TOKENS,
    Completion,
    InProcessModel,
    Locate,
    Usage,
    common_prefix,
    decoded,
    one_line,
)
from dreaming.model.constraint import Constraint, TokenChooser

CONTEXT_TOKENS = 8192
"""Prompt + answer tokens per call; our units are small, and memory is per token."""
MISSING = (
    "the gguf: backend needs llama.cpp; install an optional extra: "
    "pip install 'dreaming[llama]' (a prebuilt wheel, Linux x86-64) or "
    "'dreaming[llamacpp]' (compiles for minutes), or use mlx:<preset>"
)


class Engine(Protocol):
    """What the backend needs from a llama.cpp binding."""

    template: str | None
    bos: int
    eos: int

    def special_text(self, token: int) -> str: ...
    def tokenize(self, text: str) -> list[int]: ...
    def piece(self, token: int) -> bytes: ...
    def is_eog(self, token: int) -> bool: ...
    def eog_tokens(self) -> frozenset[int]: ...
    def cached(self, tokens: list[int]) -> int: ...
    def generate(self, tokens: list[int], chooser: TokenChooser | None) -> Iterator[int]: ...
    def text(self, tokens: list[int], prompt: list[int]) -> str: ...
    def close(self) -> None: ...


def engine_name() -> str | None:
    """The importable binding: llama-cpp-python where both are installed."""
    for name in ("llama_cpp", "ik_llama_cpp"):
        if importlib.util.find_spec(name) is not None:
            return name
    return None


def open_engine(path: str) -> Engine:
    threads = os.cpu_count() or 1
    match engine_name():
        case "llama_cpp":
            return LlamaCppEngine(path, CONTEXT_TOKENS, threads)
        case "ik_llama_cpp":
            from dreaming.model.backends.ik import IkEngine

            return IkEngine(path, CONTEXT_TOKENS, threads)
        case _:
            raise ModelError(MISSING)


class LlamaCppEngine:
    def __init__(self, path: str, n_ctx: int, n_threads: int) -> None:
        import llama_cpp

        self._llama_cpp = llama_cpp
        self._llm = llama_cpp.Llama(
            model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=-1, verbose=False
        )
        self.template: str | None = self._llm.metadata.get("tokenizer.chat_template")
        self.bos: int = self._llm.token_bos()
        self.eos: int = self._llm.token_eos()
        self._eog = frozenset(t for t in range(self._llm.n_vocab()) if self.is_eog(t))

    def special_text(self, token: int) -> str:
        return str(self._llm.detokenize([token], special=True).decode("utf-8", "replace"))

    def tokenize(self, text: str) -> list[int]:
        tokens: list[int] = self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
        return tokens

    def piece(self, token: int) -> bytes:
        return bytes(self._llm.detokenize([token]))

    def is_eog(self, token: int) -> bool:
        return bool(self._llama_cpp.llama_vocab_is_eog(self._llm._model.vocab, token))

    def eog_tokens(self) -> frozenset[int]:
        return self._eog

    def cached(self, tokens: list[int]) -> int:
        # What generate() will reuse: the common prefix with what its KV cache holds,
        # keeping at least one token to compute.
        return min(common_prefix(list(self._llm._input_ids), tokens), len(tokens) - 1)

    def generate(self, tokens: list[int], chooser: TokenChooser | None) -> Iterator[int]:
        processors = None
        if chooser is not None:
            processors = self._llama_cpp.LogitsProcessorList([_held_to(chooser, len(tokens))])
        yield from self._llm.generate(
            tokens, temp=0.0, top_k=1, repeat_penalty=1.0, logits_processor=processors
        )

    def text(self, tokens: list[int], prompt: list[int]) -> str:
        return str(self._llm.detokenize(tokens, prev_tokens=prompt).decode("utf-8", "replace"))

    def close(self) -> None:
        self._llm.close()


def _held_to(chooser: TokenChooser, prompt: int) -> Any:
    """A llama-cpp-python logits processor leaving only the chooser's token possible."""
    import numpy as np

    seen = 0

    def process(input_ids: Any, scores: Any) -> Any:
        nonlocal seen
        if len(input_ids) - prompt > seen:
            seen = len(input_ids) - prompt
            chooser.accept(int(input_ids[-1]))
        choice = chooser.choose(scores)
        held = np.full_like(scores, -np.inf)
        held[choice] = 0.0
        return held

    return process


class GGUFModel(InProcessModel):
    def __init__(self, spec: str, locate: Locate) -> None:
        super().__init__(spec, locate)
        self._engine: Engine | None = None
        self._template: Any = None

    def _ensure_loaded(self) -> Engine:
        if self._engine is not None:
            return self._engine
        if engine_name() is None:
            raise ModelError(MISSING)
        weights = self._locate()
        path = weights.path
        started = time.perf_counter()
        try:
            engine = open_engine(path)
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(
                f"cannot load {path} with llama.cpp ({one_line(e)}); {weights.repair}"
            ) from e
        if not engine.template:
            engine.close()
            raise ModelError(f"{path} has no chat template; dreaming needs an instruct model")
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        self._template = env.from_string(engine.template)
        self._engine = engine
        self.load_seconds = time.perf_counter() - started
        return engine

    def unload(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.close()
            self._engine = self._template = None
            gc.collect()

    def _prompt_tokens(self, engine: Engine, system: str | None, user: str) -> list[int]:
        messages = [{"role": "user", "content": user}]
        if system:
            messages.insert(0, {"role": "system", "content": system})

        def fail(message: str) -> None:
            raise ValueError(message)

        text = self._template.render(
            messages=messages,
            add_generation_prompt=True,
            bos_token=engine.special_text(engine.bos),
            eos_token=engine.special_text(engine.eos),
            raise_exception=fail,
        )
        tokens = engine.tokenize(text)
        if len(tokens) > 1 and tokens[0] == tokens[1] == engine.bos:
            tokens = tokens[1:]  # the template wrote BOS and the tokenizer added another
        return tokens

    def _complete(
        self, stage: str, system: str | None, user: str, constraint: Constraint | None
    ) -> Completion:
        engine = self._ensure_loaded()
        started = time.perf_counter()
        tokens = self._prompt_tokens(engine, system, user)
        if len(tokens) + MAX_OUTPUT_TOKENS > CONTEXT_TOKENS:
            raise ModelError(
                f"prompt of stage {stage} is {len(tokens)} tokens; with the answer backstop "
                f"it exceeds the {CONTEXT_TOKENS}-token context: split the unit"
            )
        chooser = None
        if constraint is not None:
            chooser = TokenChooser(constraint, engine.piece, engine.eog_tokens())
        cached = engine.cached(tokens)
        out: list[int] = []
        stopped = False
        first_token_at: float | None = None
        try:
            for token in engine.generate(tokens, chooser):
                if first_token_at is None:
                    first_token_at = time.perf_counter()
                if engine.is_eog(token):
                    stopped = True
                    break
                out.append(int(token))
                if len(out) >= MAX_OUTPUT_TOKENS:
                    break
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp failed for stage {stage}: {one_line(e)}") from e
        finished = time.perf_counter()
        usage = Usage(
            prompt_tokens=len(tokens),
            generated_tokens=len(out),
            seconds=finished - started,
            cached_tokens=cached,
            prompt_seconds=(first_token_at or finished) - started,
        )
        text = engine.text(out, tokens)
        sure = chooser.confidence if chooser is not None else None
        return decoded(stage, text, usage, stopped, MAX_OUTPUT_TOKENS, constraint, sure)
