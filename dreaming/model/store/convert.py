"""GGUF -> mlx-lm folder, without torch.

mlx-lm loads a Hugging Face layout (config.json, safetensors, tokenizer files); the
weights we can install arrive as llama.cpp GGUFs. The `gguf` package dequantises
every block format we ship (Q4_K, Q6_K, Q8_0, Q4_1, ...) in numpy, and transformers'
GGUF tokenizer mapping rebuilds the fast tokenizer from the metadata. Only the
architectures we have verified by a real greedy completion are accepted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dreaming.errors import ModelError
from dreaming.model.base import one_line, quiet_transformers
from dreaming.model.store.tensors import SafetensorsWriter

# architecture -> (model_type for mlx-lm, HF class name, does llama.cpp permute Q/K rows?)
# llama.cpp's converter reorders the Q and K projection rows of llama models for its
# rope layout; qwen2 is written as Hugging Face has it (checked by generating text).
ARCHITECTURES = {
    "llama": ("llama", "LlamaForCausalLM", True),
    "qwen2": ("qwen2", "Qwen2ForCausalLM", False),
}

_LAYER_NAMES = {
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_GLOBAL_NAMES = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}
_BLOCK = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|bias)$")
# llama.cpp names the pre-tokenizer; these are the splits its tokenizer applies that
# transformers' mapping does not already know (the HF SmolLM2 tokenizer splits digits).
_EXTRA_PRETOKENIZERS = {"smollm": "digits"}
_STOP_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>")


def hf_name(gguf_name: str) -> str | None:
    """The mlx-lm parameter name of a GGUF tensor, or None for tensors mlx-lm does not use."""
    match = _BLOCK.match(gguf_name)
    if match:
        layer, part, kind = match.groups()
        mapped = _LAYER_NAMES.get(part)
        return f"model.layers.{layer}.{mapped}.{kind}" if mapped else None
    base, _, kind = gguf_name.rpartition(".")
    mapped = _GLOBAL_NAMES.get(base)
    return f"{mapped}.{kind}" if mapped else None


def unpermute(weights: np.ndarray[Any, Any], n_head: int) -> np.ndarray[Any, Any]:
    """Undo llama.cpp's rope row permutation of a Q or K projection (weight or bias)."""
    rows = weights.shape[0]
    w = weights.reshape(n_head, rows // n_head // 2, 2, *weights.shape[1:])
    return w.swapaxes(1, 2).reshape(weights.shape)


class GGUFFile:
    """The metadata and tensors of one GGUF, read through `gguf.GGUFReader` (memory-mapped)."""

    def __init__(self, path: Path) -> None:
        from gguf import GGUFReader

        try:
            self.reader = GGUFReader(str(path))
        except (OSError, ValueError) as e:
            raise ModelError(f"{path}: not a readable GGUF file ({one_line(e)})") from e
        self.path = path
        self.arch = str(self.value("general.architecture"))

    def value(self, key: str, default: Any = None) -> Any:
        field = self.reader.fields.get(key)
        if field is None:
            return default
        return field.contents()

    def arch_value(self, key: str, default: Any = None) -> Any:
        return self.value(f"{self.arch}.{key}", default)


def build_config(g: GGUFFile, tokens: list[str]) -> dict[str, Any]:
    if g.arch not in ARCHITECTURES:
        raise ModelError(
            f"{g.path}: architecture {g.arch!r} is not supported for conversion "
            f"(supported: {', '.join(ARCHITECTURES)}); use the gguf: backend for it"
        )
    model_type, hf_class, _ = ARCHITECTURES[g.arch]
    names = {t.name for t in g.reader.tensors}
    heads = int(g.arch_value("attention.head_count"))
    hidden = int(g.arch_value("embedding_length"))
    eos = {int(g.value("tokenizer.ggml.eos_token_id"))}
    index = {tok: i for i, tok in enumerate(tokens)}
    eos.update(index[t] for t in _STOP_TOKENS if t in index)
    config: dict[str, Any] = {
        "architectures": [hf_class],
        "model_type": model_type,
        "hidden_size": hidden,
        "num_hidden_layers": int(g.arch_value("block_count")),
        "intermediate_size": int(g.arch_value("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(g.arch_value("attention.head_count_kv", heads)),
        # GGUF stores float32: 1e-06 reads back as 9.99999997e-07.
        "rms_norm_eps": float(f"{g.arch_value('attention.layer_norm_rms_epsilon'):.7g}"),
        "rope_theta": float(g.arch_value("rope.freq_base", 10000.0)),
        "max_position_embeddings": int(g.arch_value("context_length", 4096)),
        "vocab_size": int(g.arch_value("vocab_size", len(tokens))),
        "tie_word_embeddings": "output.weight" not in names,
        "bos_token_id": g.value("tokenizer.ggml.bos_token_id"),
        "eos_token_id": sorted(eos),
    }
    head_dim = g.arch_value("attention.key_length")
    if head_dim is not None and int(head_dim) != hidden // heads:
        config["head_dim"] = int(head_dim)
    scaling = g.arch_value("rope.scaling.type")
    if scaling not in (None, "none"):
        config["rope_scaling"] = {
            "type": scaling,
            "factor": float(g.arch_value("rope.scaling.factor", 1.0)),
            "original_max_position_embeddings": int(
                g.arch_value("rope.scaling.original_context_length", 0)
            ),
        }
    return config


def save_tokenizer(g: GGUFFile, tokens: list[str], folder: Path) -> None:
    quiet_transformers()
    from tokenizers import pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from transformers.integrations.gguf.gguf_tokenizer_mapping import convert_gguf_tokenizer

    keys = {
        "model": "tokenizer_type",
        "pre": "pre_tokenizer_type",
        "scores": "scores",
        "token_type": "token_type",
        "merges": "merges",
        "bos_token_id": "bos_token_id",
        "eos_token_id": "eos_token_id",
        "unknown_token_id": "unk_token_id",
        "padding_token_id": "pad_token_id",
        "add_space_prefix": "add_prefix_space",
    }
    tokenizer_dict: dict[str, Any] = {"tokens": tokens}
    for key, name in keys.items():
        value = g.value(f"tokenizer.ggml.{key}")
        if value is not None:
            tokenizer_dict[name] = value
    backend, _ = convert_gguf_tokenizer(g.arch, tokenizer_dict)
    if _EXTRA_PRETOKENIZERS.get(str(tokenizer_dict.get("pre_tokenizer_type"))) == "digits":
        backend.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )

    def special(key: str) -> str | None:
        token_id = tokenizer_dict.get(key)
        return tokens[int(token_id)] if token_id is not None else None

    template = g.value("tokenizer.chat_template")
    if not template:
        raise ModelError(
            f"{g.path}: has no chat template; dreaming needs an instruct model with one"
        )
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=backend,
        bos_token=special("bos_token_id"),
        eos_token=special("eos_token_id"),
        unk_token=special("unk_token_id"),
        pad_token=special("pad_token_id"),
        chat_template=str(template),
        add_bos_token=bool(g.value("tokenizer.ggml.add_bos_token", False)),
        clean_up_tokenization_spaces=False,
    )
    tokenizer.save_pretrained(str(folder))


def convert_gguf(
    gguf_path: Path,
    folder: Path,
    *,
    dtype: str = "float32",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write an mlx-lm folder for `gguf_path` into `folder` (created); return its config."""
    from gguf.quants import dequantize

    say = progress or (lambda _msg: None)
    g = GGUFFile(gguf_path)
    field = g.reader.fields.get("tokenizer.ggml.tokens")
    if field is None:
        raise ModelError(f"{gguf_path}: no tokenizer in the GGUF metadata")
    # Decoding the parts directly is several times faster than field.contents() here.
    tokens = [bytes(field.parts[i]).decode("utf-8") for i in field.data]
    config = build_config(g, tokens)
    folder.mkdir(parents=True, exist_ok=True)
    say("building the tokenizer")
    save_tokenizer(g, tokens, folder)

    permute = ARCHITECTURES[g.arch][2]
    tensors = [(t, hf_name(t.name)) for t in g.reader.tensors]
    plan = [(t, name) for t, name in tensors if name is not None]
    if config["tie_word_embeddings"]:
        plan = [(t, name) for t, name in plan if name != "lm_head.weight"]
    shapes = {name: tuple(int(d) for d in reversed(t.shape.tolist())) for t, name in plan}
    writer = SafetensorsWriter(folder / "model.safetensors", shapes, dtype)
    ok = False
    try:
        for done, (t, name) in enumerate(plan, 1):
            try:
                values = np.asarray(dequantize(t.data, t.tensor_type), dtype=np.float32)
            except NotImplementedError:
                raise ModelError(
                    f"{gguf_path}: tensor {t.name} is {t.tensor_type.name}, which the converter "
                    "cannot dequantise; use the gguf: backend for this file"
                ) from None
            values = values.reshape(shapes[name])
            if permute and ".self_attn.q_proj." in name:
                values = unpermute(values, config["num_attention_heads"])
            elif permute and ".self_attn.k_proj." in name:
                values = unpermute(values, config["num_key_value_heads"])
            writer.write(name, values)
            if done % 25 == 0 or done == len(plan):
                say(f"converting tensors {done}/{len(plan)}")
        ok = True
    finally:
        writer.close(check=ok)
    config["torch_dtype"] = dtype
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return config
