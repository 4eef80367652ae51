"""`mlx:` — mlx-lm in-process: greedy, the model's chat template, per-stage prefix caching.

Calls of one stage share their system text (policy pages inlined, ~1500 tokens) and
the start of the user turn; recomputing that prefix every call would dominate a
night's prompt time on a CPU. Each stage keeps the KV cache of its last prompt;
the next call trims it to the common token prefix and computes only the rest.
"""

from __future__ import annotations

import functools
import gc
import logging
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dreaming.errors import ModelError
from dreaming.model.backends.blas import import_mlx
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

MAX_STAGE_CACHES = 8
"""Stages whose prefix cache is kept (LRU); one per pipeline stage is enough."""

_log = logging.getLogger("dreaming.model")


@dataclass
class _StageCache:
    tokens: list[int] = field(default_factory=list)
    """The tokens whose keys and values `layers` holds, in order."""
    layers: list[Any] = field(default_factory=list)


class MlxModel(InProcessModel):
    """Loads on first use (or `warm()`), stays loaded until `unload()`."""

    def __init__(self, spec: str, locate: Locate) -> None:
        super().__init__(spec, locate)
        self._model: Any = None
        self._tokenizer: Any = None
        self._stages: OrderedDict[str, _StageCache] = OrderedDict()
        self._system_turns: bool | None = None
        self._pieces: Callable[[int], bytes] | None = None

    def _ensure_loaded(self) -> None:
        if self._model is not None:
            return
        weights = self._locate()
        started = time.perf_counter()
        import_mlx()
        from mlx_lm import load

        try:
            loaded = load(weights.path)
        except Exception as e:
            raise ModelError(
                f"cannot load model {weights.path}: {type(e).__name__}: {one_line(e)}; "
                f"{weights.repair}"
            ) from e
        self._model, self._tokenizer = loaded[0], loaded[1]
        self.load_seconds = time.perf_counter() - started

    def unload(self) -> None:
        with self._lock:
            self._model = self._tokenizer = None
            self._stages.clear()
            self._pieces = None
            self._system_turns = None
            gc.collect()
            if "mlx.core" in sys.modules:
                sys.modules["mlx.core"].clear_cache()

    def _render(self, system: str | None, user: str) -> list[int]:
        tokenizer = self._tokenizer
        messages = [{"role": "user", "content": user}]
        if system:
            if self._system_turns is None:
                self._system_turns = _supports_system(tokenizer)
            if self._system_turns:
                messages.insert(0, {"role": "system", "content": system})
            else:
                messages[0]["content"] = f"{system}\n\n{user}"
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids: list[int] = tokenizer.encode(text, add_special_tokens=False)
        return ids

    def _stage_cache(self, stage: str) -> _StageCache:
        from mlx_lm.models.cache import can_trim_prompt_cache, make_prompt_cache

        entry = self._stages.pop(stage, None)
        if entry is None or not can_trim_prompt_cache(entry.layers):
            entry = _StageCache(layers=make_prompt_cache(self._model))
        self._stages[stage] = entry
        while len(self._stages) > MAX_STAGE_CACHES:
            self._stages.popitem(last=False)
        return entry

    def _piece(self, token: int) -> bytes:
        if self._pieces is None:
            self._pieces = _piece_reader(self._tokenizer)
        return self._pieces(token)

    def _complete(
        self, stage: str, system: str | None, user: str, constraint: Constraint | None
    ) -> Completion:
        mx = import_mlx()
        from mlx_lm.generate import generate_step
        from mlx_lm.models.cache import can_trim_prompt_cache, trim_prompt_cache

        started = time.perf_counter()
        prompt = self._render(system, user)
        entry = self._stage_cache(stage)
        trimmable = can_trim_prompt_cache(entry.layers)
        # Keep at least one token to compute: its logits give the first answer token.
        reuse = min(common_prefix(entry.tokens, prompt), len(prompt) - 1) if trimmable else 0
        held = entry.layers[0].offset if entry.layers else 0
        if held > reuse:
            trim_prompt_cache(entry.layers, held - reuse)
        eos = self._tokenizer.eos_token_ids
        processors = None
        chooser = None
        if constraint is not None:
            chooser = TokenChooser(constraint, self._piece, eos)
            processors = [_held_to(chooser, len(prompt) - reuse)]
        out: list[int] = []
        stopped = False
        first_token_at: float | None = None
        try:
            for token, _ in generate_step(
                mx.array(prompt[reuse:]),
                self._model,
                max_tokens=MAX_OUTPUT_TOKENS,
                prompt_cache=entry.layers,
                logits_processors=processors,
            ):
                if first_token_at is None:
                    first_token_at = time.perf_counter()
                if token in eos:
                    stopped = True
                    break
                out.append(int(token))
        except Exception as e:
            self._stages.pop(stage, None)  # its cache may hold a half-computed step
            raise ModelError(
                f"mlx generation failed for stage {stage}: {type(e).__name__}: {one_line(e)}"
            ) from e
        finished = time.perf_counter()
        if trimmable:
            # Keep exactly the prompt: the next call of this stage starts from it.
            trim_prompt_cache(entry.layers, entry.layers[0].offset - len(prompt))
            entry.tokens = prompt
        else:
            self._stages.pop(stage, None)
        usage = Usage(
            prompt_tokens=len(prompt),
            generated_tokens=len(out),
            seconds=finished - started,
            cached_tokens=reuse,
            prompt_seconds=(first_token_at or finished) - started,
        )
        text = self._tokenizer.decode(out)
        sure = chooser.confidence if chooser is not None else None
        return decoded(stage, text, usage, stopped, MAX_OUTPUT_TOKENS, constraint, sure)


def _held_to(chooser: TokenChooser, passed: int) -> Callable[[Any, Any], Any]:
    """An mlx-lm logits processor that leaves only the chooser's token possible.

    mlx-lm hands it every token it has fed the model this call: the `passed` prompt
    tokens, then each emitted one, which the chooser records before choosing again."""
    mx = import_mlx()
    seen = 0

    def process(tokens: Any, logits: Any) -> Any:
        nonlocal seen
        generated = int(tokens.size) - passed
        if generated > seen:
            seen = generated
            chooser.accept(int(tokens[-1].item()))
        if chooser.done:
            return logits
        choice = chooser.choose(np.array(logits[0].astype(mx.float32)))
        keep = mx.arange(logits.shape[-1]) == choice
        return mx.where(keep, logits, mx.array(-mx.inf, dtype=logits.dtype))

    return process


def _piece_reader(tokenizer: Any) -> Callable[[int], bytes]:
    """A token's own bytes, remembered: byte-level BPE (Qwen, SmolLM, Llama 3) spells
    them as one printable character per byte; b"" for control tokens, which no answer
    contains. What is looked up once here is per model, not per token."""
    from mlx_lm.tokenizer_utils import BPEStreamingDetokenizer

    special = frozenset(tokenizer.all_special_ids)
    byte_level = isinstance(tokenizer.detokenizer, BPEStreamingDetokenizer)
    table = _byte_level_table()

    @functools.cache
    def piece(token: int) -> bytes:
        if token in special:
            return b""
        if byte_level:
            spelled = tokenizer.convert_ids_to_tokens(token)
            if all(c in table for c in spelled):
                return bytes(table[c] for c in spelled)
        return str(tokenizer.decode([token])).encode("utf-8")

    return piece


@functools.cache
def _byte_level_table() -> dict[str, int]:
    """GPT-2's byte-to-printable-character map, inverted (bytes_to_unicode)."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[chr(byte)] = byte
        else:
            chars[chr(256 + extra)] = byte
            extra += 1
    return chars


def _supports_system(tokenizer: Any) -> bool:
    """Whether the chat template renders a system turn (some raise, some drop it)."""
    probe = "\x1fsystem-probe\x1f"
    try:
        text = tokenizer.apply_chat_template(
            [{"role": "system", "content": probe}, {"role": "user", "content": "x"}],
            tokenize=False,
            add_generation_prompt=True,
        )
    except Exception as e:
        # Templates for models without a system turn raise (Gemma's `raise_exception`):
        # the system text then goes into the user turn, and the log says why.
        _log.info("the chat template renders no system turn (%s: %s)", type(e).__name__, e)
        return False
    return probe in str(text)
