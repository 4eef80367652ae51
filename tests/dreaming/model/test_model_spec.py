"""Spec strings: every accepted form, and one-line errors that list the accepted forms."""

from __future__ import annotations

import sys

import pytest

from dreaming.errors import ModelError
from dreaming.model import DEFAULT_MODEL, ModelSpec, RecordSpec, parse_spec


def test_default_model_is_the_default_preset_on_this_platforms_route() -> None:
    spec = parse_spec(DEFAULT_MODEL)
    assert spec.kind in ("mlx", "gguf")
    assert spec.target == "qwen2.5-coder-1.5b"


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("mlx:smollm2-135m", "mlx", "smollm2-135m"),
        ("mlx:/models/qwen", "mlx", "/models/qwen"),
        (
            "mlx:mlx-community/Qwen2.5-1.5B-Instruct-4bit",
            "mlx",
            "mlx-community/Qwen2.5-1.5B-Instruct-4bit",
        ),
        ("gguf:~/m/model.gguf", "gguf", "~/m/model.gguf"),
        ("scripted:tests/answers.jsonl", "scripted", "tests/answers.jsonl"),
        ("  mlx:smollm2-135m  ", "mlx", "smollm2-135m"),
    ],
)
def test_simple_kinds(text: str, kind: str, target: str) -> None:
    spec = parse_spec(text)
    assert (spec.kind, spec.target) == (kind, target)
    assert str(spec) == text.strip()


def plain(text: str) -> ModelSpec:
    spec = parse_spec(text)
    assert isinstance(spec, ModelSpec)
    return spec


def test_openai_with_and_without_model_name() -> None:
    spec = plain("openai:http://127.0.0.1:8080/#qwen2.5-coder:1.5b")
    assert (spec.kind, spec.target, spec.model) == (
        "openai",
        "http://127.0.0.1:8080",
        "qwen2.5-coder:1.5b",
    )
    assert plain("openai:https://box.lan/v1").model is None


def test_record_wraps_an_inner_spec() -> None:
    spec = parse_spec("record:out/answers.jsonl|mlx:smollm2-135m")
    assert isinstance(spec, RecordSpec)
    assert (spec.kind, spec.target, str(spec)) == (
        "record",
        "out/answers.jsonl",
        "record:out/answers.jsonl|mlx:smollm2-135m",
    )
    assert (spec.inner.kind, spec.inner.target) == ("mlx", "smollm2-135m")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("smollm2-135m", "no kind"),
        ("mlx:", "nothing after"),
        ("torch:foo", "unknown kind 'torch'"),
        ("openai:localhost:8080", "http://"),
        ("record:answers.jsonl", "record needs"),
        ("record:a.jsonl|scripted:b.jsonl", "wraps a real model"),
        ("record:a.jsonl|nonsense", "no kind"),
    ],
)
def test_bad_specs_fail_in_one_line_listing_the_forms(text: str, why: str) -> None:
    with pytest.raises(ModelError, match=why) as caught:
        parse_spec(text)
    message = str(caught.value)
    assert "\n" not in message
    assert "mlx:<preset" in message


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1",
        "http://localhost:80x80",
        "http://local host:8080",
        "http://:8080",
        "https://box.lan:99999",
    ],
)
def test_malformed_openai_addresses_fail_in_one_line(url: str) -> None:
    with pytest.raises(ModelError, match="not a valid server address") as caught:
        parse_spec(f"openai:{url}#m")
    message = str(caught.value)
    assert repr(url) in message
    assert "expected http(s)://HOST[:PORT]" in message
    assert "\n" not in message


def test_ipv6_and_padded_openai_addresses_are_accepted() -> None:
    assert parse_spec("openai:http://[::1]:8080/v1").target == "http://[::1]:8080/v1"
    spec = plain("openai:http://127.0.0.1:8080/ # qwen")
    assert (spec.target, spec.model) == ("http://127.0.0.1:8080", "qwen")


def test_importing_the_seam_does_not_import_mlx() -> None:
    # OpenBLAS can only be put under mlx before mlx's first import.
    import subprocess

    code = "import sys, dreaming.model; print(any(m.startswith('mlx') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
