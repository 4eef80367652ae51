"""GGUF -> mlx-lm conversion pieces, and the folder check that catches damage at load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dreaming.errors import ModelError
from dreaming.model.backends.blas import runs_here
from dreaming.model.store.convert import hf_name, unpermute
from dreaming.model.store.tensors import (
    SafetensorsWriter,
    check_mlx_folder,
    read_header,
    to_dtype_bytes,
)


def llama_cpp_permute(weights: np.ndarray[Any, Any], n_head: int) -> np.ndarray[Any, Any]:
    """convert_hf_to_gguf.py's permutation of Q/K rows, as llama.cpp applies it."""
    rows = weights.shape[0]
    return (
        weights.reshape(n_head, 2, rows // n_head // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


@pytest.mark.parametrize(("heads", "head_dim", "cols"), [(9, 64, 576), (3, 64, 576), (2, 8, 1)])
def test_unpermute_inverts_llama_cpp(heads: int, head_dim: int, cols: int) -> None:
    original = np.arange(heads * head_dim * cols, dtype=np.float32).reshape(heads * head_dim, cols)
    if cols == 1:
        original = original[:, 0]  # a bias
    assert np.array_equal(unpermute(llama_cpp_permute(original, heads), heads), original)


@pytest.mark.parametrize(
    ("gguf", "hf"),
    [
        ("token_embd.weight", "model.embed_tokens.weight"),
        ("output_norm.weight", "model.norm.weight"),
        ("output.weight", "lm_head.weight"),
        ("blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"),
        ("blk.12.ffn_norm.weight", "model.layers.12.post_attention_layernorm.weight"),
        ("blk.3.attn_q.bias", "model.layers.3.self_attn.q_proj.bias"),
        ("blk.3.attn_output.weight", "model.layers.3.self_attn.o_proj.weight"),
        ("blk.27.ffn_down.weight", "model.layers.27.mlp.down_proj.weight"),
        ("rope_freqs.weight", None),
        ("blk.0.unknown.weight", None),
    ],
)
def test_tensor_names(gguf: str, hf: str | None) -> None:
    assert hf_name(gguf) == hf


def test_bfloat16_rounds_to_nearest_even() -> None:
    values = np.array([1.0, -2.5, 3.14159, 1e-8, 65504.0], dtype=np.float32)
    halves = np.frombuffer(to_dtype_bytes(values, "bfloat16"), dtype=np.uint16)
    back = (halves.astype(np.uint32) << 16).view(np.float32)
    assert np.allclose(back, values, rtol=1 / 128)
    assert back[0] == 1.0
    assert back[1] == -2.5


def write_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}), encoding="utf-8")
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    shapes = {"a": (2, 3), "b": (4,)}
    writer = SafetensorsWriter(folder / "model.safetensors", shapes, "float32")
    writer.write("a", np.ones((2, 3)))
    writer.write("b", np.arange(4))
    writer.close()
    return folder


def test_streamed_safetensors_load_in_numpy_readers(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    folder = write_folder(tmp_path / "m")
    tensors = load_file(str(folder / "model.safetensors"))
    assert tensors["a"].shape == (2, 3)
    assert tensors["b"].tolist() == [0, 1, 2, 3]
    assert read_header(folder / "model.safetensors")["__metadata__"] == {"format": "mlx"}
    check_mlx_folder(folder, "fix it")


def test_writer_refuses_out_of_order_and_missing_tensors(tmp_path: Path) -> None:
    writer = SafetensorsWriter(tmp_path / "x.safetensors", {"a": (1,), "b": (1,)}, "float32")
    with pytest.raises(ValueError, match="out of order"):
        writer.write("b", np.zeros(1))
    with pytest.raises(ValueError, match="never written"):
        writer.close()


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda f: (f / "config.json").unlink(), "no config.json"),
        (lambda f: (f / "config.json").write_text("{", encoding="utf-8"), "config.json unreadable"),
        (lambda f: (f / "tokenizer.json").unlink(), "no tokenizer"),
        (lambda f: (f / "model.safetensors").unlink(), "no .safetensors"),
        (
            lambda f: (f / "model.safetensors").write_bytes(
                (f / "model.safetensors").read_bytes()[:-5]
            ),
            "truncated",
        ),
        (lambda f: (f / "model.safetensors").write_bytes(b"\x00"), "shorter than"),
    ],
)
def test_damaged_folders_are_named_with_the_fix(tmp_path: Path, damage: Any, why: str) -> None:
    folder = write_folder(tmp_path / "m")
    damage(folder)
    with pytest.raises(ModelError, match=why) as caught:
        check_mlx_folder(folder, "repair it with: dreaming model install x")
    assert str(folder) in str(caught.value)
    assert str(caught.value).endswith("repair it with: dreaming model install x")


AVX2 = frozenset({"avx", "avx2", "fma", "sse4_2"})


def test_blas_core_check() -> None:
    # cmeel-openblas 0.3.31 is a SKYLAKEX build: SIGILL on a CPU without AVX-512.
    assert runs_here("OpenBLAS 0.3.31 NO_AFFINITY SKYLAKEX", "SKYLAKEX", AVX2, "x86_64") is not None
    assert (
        runs_here(
            "OpenBLAS 0.3.31 SKYLAKEX",
            "SKYLAKEX",
            AVX2 | {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"},
            "x86_64",
        )
        is None
    )
    assert runs_here("OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen", "Zen", AVX2, "x86_64") is None
    assert runs_here("OpenBLAS HASWELL", "Haswell", AVX2, "x86_64") is None
    assert runs_here("OpenBLAS ODDCORE", "ODDCORE", AVX2, "x86_64") is not None
    assert runs_here("OpenBLAS NEOVERSEN1", "NEOVERSEN1", frozenset(), "aarch64") is None
