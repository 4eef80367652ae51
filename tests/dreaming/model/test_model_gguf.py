"""`gguf:` through whichever llama.cpp binding is installed (an optional extra; else
skipped: CI runs without one; the error naming the extras is tested in test_model_mlx.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model import load
from dreaming.model.backends.gguf import GGUFModel, engine_name
from dreaming.model.constraint import Choice, Json
from tests.fixtures.model.support import TINY, tiny_cache

__all__ = ["tiny_cache"]  # a fixture, imported for pytest

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(engine_name() is None, reason="no llama.cpp binding installed"),
]


@pytest.mark.timeout(600)
def test_loads_answers_stops_and_reuses_the_prefix(tiny_cache: Path) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    system = "You are a helpful assistant."
    first = model.complete("gguf", system, "What is the capital of France?")
    assert first.text.strip()
    assert 0 < first.usage.generated_tokens < 2048
    assert first.usage.prompt_tokens > 5
    # Held to yes/no so that the tiny model cannot ramble: this call checks the cache.
    second = model.complete(
        "gguf", system, "Is Rome the capital of Italy?", constraint=Choice(("yes", "no"))
    )
    assert second.usage.cached_tokens > len(system.split())
    model.unload()


@pytest.mark.timeout(600)
def test_the_prompt_is_the_models_own_chat_template(tiny_cache: Path) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    assert isinstance(model, GGUFModel)
    model.warm()
    engine = model._engine
    assert engine is not None
    tokens = model._prompt_tokens(engine, "Be brief.", "Hello")
    text = "".join(engine.special_text(t) for t in tokens)
    assert text.startswith("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello")
    assert text.endswith("<|im_start|>assistant\n")
    assert "<start_of_turn>" not in text  # ik-llama-cpp-python's own helper writes Gemma's


@pytest.mark.timeout(600)
@pytest.mark.parametrize("user", ["Tell me a story about a dragon.", "Is water wet? Explain."])
def test_a_yes_no_answer_is_exactly_an_option(tiny_cache: Path, user: str) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    answer = model.complete("judge", None, user, constraint=Choice(("yes", "no")))
    assert answer.text in ("yes", "no")


@pytest.mark.timeout(600)
def test_a_choice_says_how_sure_the_model_was_and_free_text_does_not(tiny_cache: Path) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    yes_no = model.complete("judge", None, "Is Rome in Italy?", constraint=Choice(("yes", "no")))
    assert yes_no.confidence is not None
    assert 0.0 < yes_no.confidence <= 1.0
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    shaped = model.complete("judge", None, "Say ok as JSON.", constraint=Json(schema))
    assert shaped.confidence is None


@pytest.mark.timeout(600)
def test_a_json_constraint_yields_json_that_fits_the_schema(tiny_cache: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "maxLength": 60},
            "person": {"type": "boolean"},
        },
    }
    answer = load(f"gguf:{TINY}", cache_dir=tiny_cache).complete(
        "anchor",
        "Answer with a JSON object.",
        "Ada Lovelace wrote the first program. Give the subject and whether it is a person.",
        constraint=Json(schema),
    )
    assert list(json.loads(answer.text)) == ["subject", "person"]


@pytest.mark.timeout(600)
@pytest.mark.xfail(
    engine_name() == "ik_llama_cpp",
    reason="ik-llama-cpp-python 0.1.5 computes SmolLM2 differently per prompt batch size",
    strict=True,
)
def test_the_answer_does_not_depend_on_what_the_cache_held(tiny_cache: Path) -> None:
    model = load(f"gguf:{TINY}", cache_dir=tiny_cache)
    system = "You are a helpful assistant. Answer in one short sentence."
    model.unload()
    fresh = model.complete("fresh", system, "What is the capital of France?").text
    model.complete("primed", system, "Name a colour.")
    cached = model.complete("primed", system, "What is the capital of France?")
    assert cached.usage.cached_tokens > 0
    assert cached.text == fresh


def test_a_missing_file_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"no such preset .* or \.gguf file"):
        load(f"gguf:{tmp_path / 'none.gguf'}").complete("s", None, "hi")


TEXT = (
    "Hello world! It's 2026-11-30, and I paid $1,234.56 for 3 items. 中文也可以。 Émigré café.\n"
    "def f(x):\n    return x**2  # squares   spaces\ttab\n<|im_start|>user\n"
    "Wikilinks like [[Rust (programming language)|Rust]] and footnotes[^12].\n"
)


@pytest.mark.timeout(600)
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="no llama-cpp-python")
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
