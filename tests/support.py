"""Helpers shared by tests (fixtures live in conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"


def raw_note(*turns: tuple[str, str], title: str = "A talk", date: str = "2026-01-02") -> str:
    """A transcript in our canonical Raw Markdown, as a person writes one by hand."""
    body = "".join(f"## {role}\n\n{text}\n\n" for role, text in turns)
    return f"---\ntitle: {title}\ndate: {date}\n---\n\n{body}"


def corpus_or_skip() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent (a user's clone has none)")
    return CORPUS


def best_seconds(fn: Callable[[str], object], text: str) -> float:
    """The fastest of three runs of `fn(text)`: timing tests compare sizes, not noise."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best
