"""`gguf:<preset | file>` — llama.cpp in-process through llama-cpp-python (optional extra).

On a CPU without a fast BLAS for mlx, llama.cpp runs the same quantised GGUFs several
times faster (MODELS.md: 4-8x); it compiles for minutes on install, so it stays an
extra: `pip install 'dreaming[llamacpp]'`.

Prefix caching: llama-cpp-python reuses the longest common token prefix of its one
KV cache, so consecutive calls of a stage share their system text. (Per-stage saved
states, as the mlx backend keeps, would copy the logits buffer, ~300 MB for Qwen's
vocabulary, on every call: not worth it when the pipeline runs a stage's units in a row.)
"""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import Any

from dreaming.errors import ModelError
from dreaming.model.base import (
    MAX_OUTPUT_TOKENS,
    Completion,
    Locate,
    Usage,
    common_prefix,
    finished_text,
    one_line,
)
from dreaming.model.constraint import Constraint

CONTEXT_TOKENS = 8192
"""Prompt + answer tokens per call; our units are small, and memory is per token."""


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise ModelError(
            "the gguf: backend needs llama-cpp-python; install the optional extra: "
            "pip install 'dreaming[llamacpp]' (or use mlx:<preset>)"
        ) from None
    return llama_cpp


class GGUFModel:
    def __init__(self, spec: str, locate: Locate) -> None:
        self._spec = spec
        self._locate = locate
        self.load_seconds: float | None = None
        self._llm: Any = None
        self._template: Any = None
        self._lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self._spec

    def warm(self) -> None:
        with self._lock:
            self._ensure_loaded()

    def _ensure_loaded(self) -> None:
        if self._llm is not None:
            return
        llama_cpp = _import_llama_cpp()
        weights = self._locate()
        path = weights.path
        started = time.perf_counter()
        try:
            llm = llama_cpp.Llama(
                model_path=path,
                n_ctx=CONTEXT_TOKENS,
                n_threads=os.cpu_count() or 1,
                n_gpu_layers=-1,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(
                f"cannot load {path} with llama.cpp ({one_line(e)}); {weights.repair}"
            ) from e
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(f"{path} has no chat template; dreaming needs an instruct model")
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        self._template = env.from_string(template)
        self._llm = llm
        self.load_seconds = time.perf_counter() - started

    def unload(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._llm.close()
            self._llm = self._template = None
            gc.collect()

    def _prompt_tokens(self, system: str | None, user: str) -> list[int]:
        llm = self._llm
        messages = [{"role": "user", "content": user}]
        if system:
            messages.insert(0, {"role": "system", "content": system})

        def fail(message: str) -> None:
            raise ValueError(message)

        text = self._template.render(
            messages=messages,
            add_generation_prompt=True,
            bos_token=llm.detokenize([llm.token_bos()]).decode("utf-8", "replace"),
            eos_token=llm.detokenize([llm.token_eos()]).decode("utf-8", "replace"),
            raise_exception=fail,
        )
        tokens: list[int] = llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
        if len(tokens) > 1 and tokens[0] == tokens[1] == llm.token_bos():
            tokens = tokens[1:]  # the template wrote BOS and the tokenizer added another
        return tokens

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
            self._ensure_loaded()
            return self._complete(stage, system, user)

    def _complete(self, stage: str, system: str | None, user: str) -> Completion:
        llama_cpp = _import_llama_cpp()
        llm = self._llm
        started = time.perf_counter()
        tokens = self._prompt_tokens(system, user)
        if len(tokens) + MAX_OUTPUT_TOKENS > CONTEXT_TOKENS:
            raise ModelError(
                f"prompt of stage {stage} is {len(tokens)} tokens; with the answer backstop "
                f"it exceeds the {CONTEXT_TOKENS}-token context: split the unit"
            )
        # What llama-cpp-python's generate() will reuse: the common prefix with what its
        # KV cache holds, keeping at least one token to compute.
        cached = min(common_prefix(list(llm._input_ids), tokens), len(tokens) - 1)
        out: list[int] = []
        stopped = False
        first_token_at: float | None = None
        try:
            for token in llm.generate(tokens, temp=0.0, top_k=1, repeat_penalty=1.0):
                if first_token_at is None:
                    first_token_at = time.perf_counter()
                if llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
                    stopped = True
                    break
                out.append(int(token))
                if len(out) >= MAX_OUTPUT_TOKENS:
                    break
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp failed for stage {stage}: {one_line(e)}") from e
        finished = time.perf_counter()
        text = llm.detokenize(out, prev_tokens=tokens).decode("utf-8", "replace")
        usage = Usage(
            prompt_tokens=len(tokens),
            generated_tokens=len(out),
            seconds=finished - started,
            cached_tokens=cached,
            prompt_seconds=(first_token_at or finished) - started,
        )
        return finished_text(stage, text, usage, stopped=stopped, limit=MAX_OUTPUT_TOKENS)
