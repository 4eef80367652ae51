"""`gguf:` through llama-cpp-python, where the optional extra is installed (else skipped:
CI runs without it; the error naming the extra is tested in test_model_mlx.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model import load
from tests.fixtures.model.support import TINY, tiny_cache

__all__ = ["tiny_cache"]  # a fixture, imported for pytest

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="no llama-cpp-python"),
]


@pytest.mark.timeout(600)
def test_loads_answers_stops_and_reuses_the_prefix(tiny_cache: Path) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    system = "You are a helpful assistant. Answer in one short sentence."
    first = model.complete("gguf", system, "What is the capital of France?")
    assert first.text.strip()
    assert 0 < first.usage.generated_tokens < 2048
    assert first.usage.prompt_tokens > 5
    second = model.complete("gguf", system, "What is the capital of Italy?")
    assert second.usage.cached_tokens > len(system.split())
    model.unload()


def test_a_missing_file_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"no such preset .* or \.gguf file"):
        load(f"gguf:{tmp_path / 'none.gguf'}").complete("s", None, "hi")


TEXT = (
    "Hello world! It's 2026-11-30, and I paid $1,234.56 for 3 items. 中文也可以。 Émigré café.\n"
    "def f(x):\n    return x**2  # squares   spaces\ttab\n<|im_start|>user\n"
    "Wikilinks like [[Rust (programming language)|Rust]] and footnotes[^12].\n"
)


@pytest.mark.timeout(600)
def test_the_converted_tokenizer_matches_llama_cpp(tiny_cache: Path) -> None:
    import llama_cpp
    from transformers import AutoTokenizer

    folder = tiny_cache / "models" / TINY
    llm = llama_cpp.Llama(model_path=str(folder / "model.gguf"), vocab_only=True, verbose=False)
    theirs = llm.tokenize(TEXT.encode(), add_bos=False, special=True)
    ours = AutoTokenizer.from_pretrained(str(folder / "mlx-float32")).encode(
        TEXT, add_special_tokens=False
    )
    assert ours == theirs
