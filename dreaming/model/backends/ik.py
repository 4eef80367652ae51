"""The `gguf:` engine on ik-llama-cpp-python: a prebuilt CPU wheel of ik_llama.cpp.

It installs in seconds from PyPI (`pip install 'dreaming[llama]'`, Linux x86-64)
where llama-cpp-python compiles for minutes. Its own `IkLlama` is not used beyond
loading: its chat helper writes Gemma's template whatever the model, its `generate`
clears the KV cache on every call and samples through a Python loop over the whole
vocabulary. So this engine drives the C API the wheel ships directly: the model's own
template from the GGUF metadata, greedy argmax over the logits in numpy (or the
constraint's chooser), and the KV cache trimmed to the common prefix of the next
prompt, as llama-cpp-python does.

The wheel is a young one-maintainer project, so the version is pinned and only a few
C calls whose signatures have been stable in llama.cpp for years are used.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import Any

import numpy as np

from dreaming.model.base import common_prefix
from dreaming.model.constraint import TokenChooser

_LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_silence = _LOG_CALLBACK(lambda level, text, data: None)
"""Kept alive for the process: llama.cpp calls it for every log line (dropped)."""


def _bind(lib: Any, name: str, argtypes: list[Any], restype: Any) -> Any:
    func = getattr(lib, name)
    func.argtypes = argtypes
    func.restype = restype
    return func


class IkEngine:
    """One model and one KV cache (sequence 0), loaded from a GGUF file."""

    def __init__(self, path: str, n_ctx: int, n_threads: int) -> None:
        import ik_llama_cpp
        from ik_llama_cpp import _ctypes_api, _internals

        self._c = _ctypes_api
        self._batches = _internals
        lib = _ctypes_api._lib
        _bind(lib, "llama_log_set", [_LOG_CALLBACK, ctypes.c_void_p], None)(_silence, None)
        self._meta = _bind(
            lib,
            "llama_model_meta_val_str",
            [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
            ctypes.c_int32,
        )
        self._seq_rm = _bind(
            lib,
            "llama_kv_cache_seq_rm",
            [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32],
            ctypes.c_bool,
        )
        token_of = [ctypes.c_void_p]
        # flash_attn off: the wheel's CPU kernels assert on long prompts without AVX-VNNI.
        self._llm = ik_llama_cpp.IkLlama(
            path, n_ctx=n_ctx, n_threads=n_threads, flash_attn=False, verbose=False
        )
        model = self._llm._model.model
        self.bos = int(_bind(lib, "llama_token_bos", token_of, ctypes.c_int32)(model))
        self.eos = int(_bind(lib, "llama_token_eos", token_of, ctypes.c_int32)(model))
        self.n_vocab = int(self._llm._model.n_vocab)
        self.template = self._metadata("tokenizer.chat_template")
        self._held: list[int] = []
        """The tokens whose keys and values the KV cache holds, in order."""
        # At load (~0.1 s for Qwen's 151k tokens), not in the first constrained call.
        self._eog = frozenset(t for t in range(self.n_vocab) if self.is_eog(t))

    def _metadata(self, key: str) -> str | None:
        model = self._llm._model.model
        size = self._meta(model, key.encode(), None, 0)
        if size < 0:
            return None
        buffer = ctypes.create_string_buffer(size + 1)
        self._meta(model, key.encode(), buffer, size + 1)
        return buffer.value.decode("utf-8", "replace")

    def special_text(self, token: int) -> str:
        return self._piece(token, special=True).decode("utf-8", "replace")

    def tokenize(self, text: str) -> list[int]:
        tokens: list[int] = self._llm.tokenize(text, add_bos=True, special=True)
        return tokens

    def _piece(self, token: int, *, special: bool) -> bytes:
        buffer = ctypes.create_string_buffer(256)
        n = self._c.llama_token_to_piece(self._llm._model.model, token, buffer, 256, 0, special)
        return buffer.raw[: max(n, 0)]

    def piece(self, token: int) -> bytes:
        """A token's text as bytes; b"" for control tokens."""
        return self._piece(token, special=False)

    def is_eog(self, token: int) -> bool:
        return bool(self._c.llama_token_is_eog(self._llm._model.model, token))

    def eog_tokens(self) -> frozenset[int]:
        return self._eog

    def cached(self, tokens: list[int]) -> int:
        """How many leading prompt tokens the cache serves; at least one is computed."""
        return min(common_prefix(self._held, tokens), len(tokens) - 1)

    def generate(self, tokens: list[int], chooser: TokenChooser | None) -> Iterator[int]:
        """Yields greedy tokens (the chooser's, if given), the end-of-generation one last."""
        c, ctx = self._c, self._llm._context.ctx
        reuse = self.cached(tokens)
        self._seq_rm(ctx, 0, reuse, -1)
        del self._held[reuse:]
        step = self._llm._context._n_ubatch
        for start in range(reuse, len(tokens), step):
            chunk = tokens[start : start + step]
            last = start + step >= len(tokens)
            self._decode(self._batches.make_batch_range(chunk, pos_start=start, logits_last=last))
            self._held.extend(chunk)
        while True:
            logits = np.ctypeslib.as_array(c.llama_get_logits_ith(ctx, -1), shape=(self.n_vocab,))
            token = chooser.choose(logits) if chooser else int(np.argmax(logits))
            if chooser:
                chooser.accept(token)
            yield token
            if self.is_eog(token):
                return
            self._decode(self._batches.make_batch_single(token, len(self._held)))
            self._held.append(token)

    def _decode(self, batch: Any) -> None:
        try:
            status = self._c.llama_decode(self._llm._context.ctx, batch)
        finally:
            self._c.llama_batch_free(batch)
        if status != 0:
            self._held.clear()  # a failed batch leaves the cache's contents unknown
            self._seq_rm(self._llm._context.ctx, 0, 0, -1)
            raise RuntimeError(f"llama_decode returned {status}")

    def text(self, tokens: list[int], prompt: list[int]) -> str:
        return b"".join(self.piece(t) for t in tokens).decode("utf-8", "replace")

    def close(self) -> None:
        self._llm.close()
        self._held.clear()
