"""Model spec strings: `kind:target`, as written in the config or `--model`.

Parsing is strict and cheap: a typo in the config should fail at startup with the
accepted forms, not after a night's worth of units has been scheduled.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Literal

from dreaming.errors import ModelError

Kind = Literal["mlx", "openai", "scripted", "gguf"]
"""Kinds that name one model on their own (`record` wraps one of the real ones)."""

FORMS = (
    "mlx:<preset | folder | hub repo id>",
    "openai:<base url>[#model]",
    "scripted:<file.jsonl>",
    "record:<file.jsonl>|<inner spec>",
    "gguf:<preset | file.gguf>",
)


@dataclass(frozen=True)
class ModelSpec:
    kind: Kind
    target: str
    """Preset, folder, repo id, file or base URL, by kind."""
    text: str
    model: str | None = None
    """openai: the model name sent to the server (after `#`)."""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class RecordSpec:
    """`record:FILE|SPEC`: a real model (mlx, gguf, openai) whose answers go to FILE."""

    target: str
    inner: ModelSpec
    text: str
    kind: Literal["record"] = "record"

    def __str__(self) -> str:
        return self.text


def _fail(spec: str, why: str) -> ModelError:
    return ModelError(f"model spec {spec!r}: {why}; use one of: {', '.join(FORMS)}")


def _valid_url(url: str) -> bool:
    """What urllib will accept for a POST: a host, a numeric port, no spaces or controls."""
    if _UNSAFE.search(url):
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port  # raises ValueError on a non-numeric or out-of-range port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


_UNSAFE = re.compile(r"[\x00-\x20\x7f]")
"""Characters http.client refuses in a URL (it raises InvalidURL)."""


def parse_spec(spec: str) -> ModelSpec | RecordSpec:
    text = spec.strip()
    kind, sep, target = text.partition(":")
    if not sep:
        raise _fail(spec, "no kind before ':'")
    target = target.strip()
    if not target:
        raise _fail(spec, f"nothing after '{kind}:'")
    if kind == "mlx":
        return ModelSpec(kind="mlx", target=target, text=text)
    if kind == "gguf":
        return ModelSpec(kind="gguf", target=target, text=text)
    if kind == "scripted":
        return ModelSpec(kind="scripted", target=target, text=text)
    if kind == "openai":
        url, _, model = target.partition("#")
        url = url.strip()
        if not url.startswith(("http://", "https://")):
            raise _fail(spec, "the server address must start with http:// or https://")
        if not _valid_url(url):
            raise _fail(
                spec,
                f"{url!r} is not a valid server address; "
                "expected http(s)://HOST[:PORT][/PATH], e.g. http://127.0.0.1:8080",
            )
        return ModelSpec(
            kind="openai", target=url.rstrip("/"), model=model.strip() or None, text=text
        )
    if kind == "record":
        path, bar, inner = target.partition("|")
        if not bar or not path.strip():
            raise _fail(spec, "record needs a file and an inner spec: record:FILE|SPEC")
        inner_spec = parse_spec(inner)
        if isinstance(inner_spec, RecordSpec) or inner_spec.kind == "scripted":
            raise _fail(spec, "record wraps a real model, not a replay or a recording")
        return RecordSpec(target=path.strip(), inner=inner_spec, text=text)
    raise _fail(spec, f"unknown kind {kind!r}")
