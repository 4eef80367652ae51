"""The real mlx-lm path on smollm2-135m: it loads, answers, stops, reports usage, reuses
the stage prefix, records for replay, and gives its memory back. Structure only, never
answer quality. The fast tests here need no model: they check what fails before loading."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model import ModelCallError, ModelUnavailable, install, load
from dreaming.model.backends.gguf import engine_name
from dreaming.model.backends.mlx import MlxModel
from dreaming.model.backends.scripted import ScriptedModel
from dreaming.model.base import common_prefix
from dreaming.model.constraint import Choice, Json, Lines
from dreaming.model.store.presets import MARKER, PRESETS
from dreaming.model.store.steps import Step
from tests.fixtures.model.support import TINY, tiny_cache, tiny_folder

__all__ = ["tiny_cache", "tiny_folder"]  # fixtures, imported for pytest

SYSTEM = "You are a helpful assistant. Answer in one short sentence."


# --- before any model loads -------------------------------------------------------


# Slow: the real mlx-lm path on a real model.
pytestmark = pytest.mark.slow


def test_a_missing_preset_says_how_to_install_it(tmp_path: Path) -> None:
    model = load("mlx:qwen2.5-coder-0.5b", cache_dir=tmp_path)
    with pytest.raises(
        ModelUnavailable,
        match=r"not installed as mlx; run: dreaming model install qwen2.5-coder-0.5b --format mlx$",
    ):
        model.complete("extract", None, "hi")


def test_an_unknown_model_lists_the_presets(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unknown model 'nonsense': not a preset"):
        load("mlx:nonsense", cache_dir=tmp_path).complete("s", None, "hi")


def test_a_file_is_not_a_model_folder(tmp_path: Path) -> None:
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"GGUF")
    with pytest.raises(ModelError, match="use gguf:"):
        load(f"mlx:{weights}").complete("s", None, "hi")


def test_in_process_models_are_loaded_once_per_process(tmp_path: Path) -> None:
    first = load("mlx:smollm2-135m", cache_dir=tmp_path)
    assert load("mlx:smollm2-135m", cache_dir=tmp_path) is first
    assert load("mlx:smollm2-135m", cache_dir=tmp_path / "elsewhere") is not first


@pytest.mark.skipif(engine_name() is not None, reason="a llama.cpp binding is here")
def test_gguf_without_llama_cpp_names_the_extras(tmp_path: Path) -> None:
    with pytest.raises(
        ModelError, match=r"pip install 'dreaming\[llama\]' .* or 'dreaming\[llamacpp\]'"
    ):
        load("gguf:smollm2-135m", cache_dir=tmp_path).complete("s", None, "hi")


# --- the real model ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tiny_cache: Path) -> MlxModel:
    model = load(f"mlx:{TINY}", cache_dir=tiny_cache)
    assert isinstance(model, MlxModel)
    return model


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_second_install_is_instant(tiny_cache: Path) -> None:
    steps: list[Step] = []
    started = time.perf_counter()
    folder = install(TINY, steps.append, cache_dir=tiny_cache)
    assert time.perf_counter() - started < 2
    assert [(s.phase, s.text) for s in steps] == [
        ("note", f"{TINY} is already installed at {folder.parent}")
    ]
    marker = json.loads((folder.parent / MARKER).read_text(encoding="utf-8"))
    assert marker["sha256"] == PRESETS[TINY].sha256
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= {
        p.name for p in folder.iterdir()
    }


@pytest.mark.model
@pytest.mark.timeout(600)
def test_loads_answers_stops_and_reports_usage(tiny: MlxModel) -> None:
    completion = tiny.complete("check", None, "What is the capital of France?")
    assert completion.text.strip()
    usage = completion.usage
    assert usage.prompt_tokens > 5
    assert 0 < usage.generated_tokens < 2048  # stopped at EOS, well before the backstop
    assert usage.seconds > 0
    assert usage.prompt_seconds is not None
    assert tiny.load_seconds is not None


@pytest.mark.model
@pytest.mark.timeout(600)
def test_the_system_turn_goes_through_the_chat_template(tiny: MlxModel) -> None:
    tiny.warm()
    ids = tiny._render(SYSTEM, "Hello")
    text = tiny._tokenizer.decode(ids)
    assert text.index(SYSTEM) < text.index("Hello")
    assert text.rstrip().endswith("assistant")  # the generation prompt


@pytest.mark.model
@pytest.mark.timeout(600)
def test_same_stage_calls_reuse_the_prefix_and_answer_the_same(tiny: MlxModel) -> None:
    first = tiny.complete("prefix", SYSTEM, "Name a colour.")
    assert first.usage.cached_tokens == 0
    cached = tiny.complete("prefix", SYSTEM, "Name a fruit.")
    shared = common_prefix(
        tiny._render(SYSTEM, "Name a colour."), tiny._render(SYSTEM, "Name a fruit.")
    )
    assert shared > len(tiny._render(None, SYSTEM)) // 2  # the system turn, at least
    assert cached.usage.cached_tokens == shared
    assert cached.usage.computed_prompt_tokens < first.usage.prompt_tokens
    fresh = tiny.complete("prefix-fresh", SYSTEM, "Name a fruit.")  # another stage: no cache
    assert fresh.usage.cached_tokens == 0
    assert fresh.text == cached.text  # greedy: the cache changes the cost, not the answer
    again = tiny.complete("prefix", SYSTEM, "Name a fruit.")  # the exact same prompt again
    assert again.usage.cached_tokens == again.usage.prompt_tokens - 1
    assert again.text == cached.text


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_runaway_generation_hits_the_backstop(
    tiny: MlxModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dreaming.model.backends.mlx as backend

    monkeypatch.setattr(backend, "MAX_OUTPUT_TOKENS", 3)
    with pytest.raises(
        ModelCallError, match="did not stop within 3 tokens for stage loop"
    ) as caught:
        tiny.complete("loop", None, "Count from one to fifty in words.")
    assert caught.value.usage is not None
    assert caught.value.usage.generated_tokens == 3


@pytest.mark.model
@pytest.mark.timeout(600)
def test_record_then_replay_what_the_real_model_said(tiny_cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    recorder = load(f"record:{path}|mlx:{TINY}", cache_dir=tiny_cache)
    said = recorder.complete("check", None, "What is the capital of France?").text
    replay = ScriptedModel("replay", path)
    assert replay.complete("check", None, "What is the capital of France?").text == said
    row = json.loads(path.read_text(encoding="utf-8"))
    assert row["model"] == f"mlx:{TINY}"


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_damaged_installed_model_says_how_to_repair(tiny_folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(tiny_folder.parent, cache / "models" / TINY)
    weights = cache / "models" / TINY / tiny_folder.name / "model.safetensors"
    with weights.open("r+b") as f:
        f.truncate(weights.stat().st_size // 2)
    with pytest.raises(ModelError, match=rf"damaged .*truncated.*dreaming model install {TINY}$"):
        load(f"mlx:{TINY}", cache_dir=cache).complete("s", None, "hi")


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_bfloat16_conversion_loads_and_answers(tiny_folder: Path, tmp_path: Path) -> None:
    # The Apple Silicon layout (bf16 for Metal), exercised on the CPU here.
    from dreaming.model.store.convert import convert_gguf
    from dreaming.model.store.tensors import read_header

    folder = tmp_path / "mlx-bfloat16"
    convert_gguf(tiny_folder.parent / "model.gguf", folder, dtype="bfloat16")
    header = read_header(folder / "model.safetensors")
    assert header["model.embed_tokens.weight"]["dtype"] == "BF16"
    completion = load(f"mlx:{folder}").complete("bf16", None, "What is the capital of France?")
    assert completion.text.strip()
    assert completion.usage.generated_tokens > 0


RSS_SCRIPT = """
import gc, json, sys
from pathlib import Path
from dreaming.model import load

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

model = load("mlx:smollm2-135m", cache_dir=Path(sys.argv[1]))
model.complete("s", None, "Say hi.")
loaded = rss_mb()
model.unload()
gc.collect()
print(json.dumps({"loaded": loaded, "after": rss_mb()}))
"""


@pytest.mark.model
@pytest.mark.timeout(600)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_unload_gives_the_memory_back(tiny_cache: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", RSS_SCRIPT, str(tiny_cache)],
        capture_output=True,
        text=True,
        check=True,
    )
    rss = json.loads(out.stdout.strip().splitlines()[-1])
    assert rss["loaded"] > rss["after"] + 300  # the float32 weights were resident
    assert rss["after"] < 200, rss


@pytest.mark.model
@pytest.mark.timeout(600)
def test_unloaded_model_loads_again_on_next_call(tiny_cache: Path) -> None:
    model = load(f"mlx:{TINY}", cache_dir=tiny_cache)
    model.unload()
    assert isinstance(model, MlxModel)
    assert model._model is None
    assert model.complete("again", None, "Say hi.").text.strip()


# --- constrained decoding on the real tokenizer -------------------------------------

PROSE_BAIT = [
    "Write a long, friendly essay about the history of Rome. Is Rome in Italy?",
    "Explain your reasoning step by step before you answer: is water wet?",
    "Tell me a story about a dragon.",
]


@pytest.mark.model
@pytest.mark.timeout(600)
@pytest.mark.parametrize("user", PROSE_BAIT)
def test_a_yes_no_answer_is_exactly_an_option_even_when_prose_is_invited(
    tiny: MlxModel, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dreaming.model.backends.mlx as backend

    monkeypatch.setattr(backend, "MAX_OUTPUT_TOKENS", 24)  # left alone, it writes on
    try:
        free = tiny.complete("judge-free", None, user).text
    except ModelCallError:
        free = "(prose past 24 tokens)"
    assert free.strip() not in ("yes", "no")
    answer = tiny.complete("judge", None, user, constraint=Choice(("yes", "no")))
    assert answer.text in ("yes", "no")
    assert answer.usage.generated_tokens <= 2
    assert answer.confidence is not None
    assert 0.0 < answer.confidence <= 1.0


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_json_constraint_yields_json_that_fits_the_schema(tiny: MlxModel) -> None:
    schema = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "maxLength": 60},
            "aliases": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
            "person": {"type": "boolean"},
        },
    }
    answer = tiny.complete(
        "anchor",
        "Answer with a JSON object.",
        "Ada Lovelace, also called Countess of Lovelace, wrote the first program. "
        "Give the subject, its aliases, and whether it is a person.",
        constraint=Json(schema),
    )
    value = json.loads(answer.text)
    assert list(value) == ["subject", "aliases", "person"]
    assert isinstance(value["person"], bool)


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_name_list_is_one_name_a_line(tiny: MlxModel) -> None:
    answer = tiny.complete(
        "names",
        "List the names, one a line, nothing else.",
        "Alice met Bob in Paris, and later wrote to Carol about it.",
        constraint=Lines(max_lines=5, max_chars=40),
    )
    names = answer.text.split("\n")
    assert 1 <= len(names) <= 5
    assert all(name and not name[0].isspace() and len(name) <= 40 for name in names)


@pytest.mark.model
@pytest.mark.timeout(600)
def test_a_constraint_keeps_the_stage_prefix_cache(tiny: MlxModel) -> None:
    yes_no = Choice(("yes", "no"))
    tiny.complete("judge-cache", SYSTEM, "Is Paris in France?", constraint=yes_no)
    second = tiny.complete("judge-cache", SYSTEM, "Is Rome in Spain?", constraint=yes_no)
    shared = common_prefix(
        tiny._render(SYSTEM, "Is Paris in France?"), tiny._render(SYSTEM, "Is Rome in Spain?")
    )
    assert second.usage.cached_tokens == shared
    fresh = tiny.complete("judge-cache-fresh", SYSTEM, "Is Rome in Spain?", constraint=yes_no)
    assert fresh.text == second.text
