"""Helpers shared by tests (fixtures live in conftest.py)."""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

import dreaming.model
from dreaming.article.document import parse
from dreaming.article.fences import forget_masks
from dreaming.article.layout import layout
from dreaming.model import Completion, Constraint, TextModel

if TYPE_CHECKING:
    from dreaming.ledger import Ledger
    from dreaming.model import TextModel
    from dreaming.raw import ReadResult
    from dreaming.vault import Vault
    from stages.runner.contract import Stage, StageContext, Unit, UnitResult

FAST_LANE = False
"""Set by `pytest --fast` (tests/conftest.py) before any test module is imported."""


STUB_ARTICLE = """# Beads

```info
kind: thing
```

Beads tracks issues.[^1]

{{stub}}

## References

[^1]: `conv:ef958aa1` (2026-04-18, claude-code) — Research Beads
"""
"""A pipeline stub as SYNTHESIZE writes one: infobox, cited lead, References."""


def draws(n: int) -> int:
    """A property test's `max_examples`: `n` in the full suite, a tenth (at least ten)
    in the fast lane."""
    return max(10, n // 10) if FAST_LANE else n


REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"


def raw_note(*turns: tuple[str, str], title: str = "A talk", date: str = "2026-01-02") -> str:
    """A transcript in our canonical Raw Markdown, as a person writes one by hand."""
    body = "".join(f"## {role}\n\n{text}\n\n" for role, text in turns)
    return f"---\ntitle: {title}\ndate: {date}\n---\n\n{body}"


def corpus_or_skip() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent (a user's clone has none)")
    return CORPUS


M = TypeVar("M", bound="TextModel")


def every_load_gives(patch: pytest.MonkeyPatch, model: M) -> M:
    """`model` for every model a night loads, whatever its spec; `model` returned."""

    def load(spec: str) -> TextModel:
        return model

    patch.setattr(dreaming.model, "load", load)
    return model


def best_seconds(fn: Callable[[str], object], text: str) -> float:
    """The fastest of three runs of `fn(text)`: timing tests compare sizes, not noise.
    Each run starts with the grammar's caches empty, so the first is not the only one
    that parses."""
    best = float("inf")
    for _ in range(3):
        forget_masks()
        parse.cache_clear()
        layout.cache_clear()
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


@dataclass(frozen=True)
class Answer:
    """One scripted model answer: what `stage` says to exactly this prompt."""

    stage: str
    user: str
    text: str
    system: str | None = None
    confidence: float | None = None

    def line(self) -> str:
        row: dict[str, object] = {
            "stage": self.stage,
            "system": self.system,
            "user": self.user,
            "text": self.text,
        }
        if self.confidence is not None:
            row["confidence"] = self.confidence
        return json.dumps(row, ensure_ascii=False) + "\n"


# What the conftest `scripted_model` fixture gives: answers in, a loaded model out.
ScriptedModelFactory = Callable[[Iterable[Answer]], "TextModel"]


def read_peak(path: Path) -> tuple[ReadResult, int]:
    """`read_transcript(path)` and the most memory Python held while it ran (bytes)."""
    from dreaming.raw import read_transcript

    tracemalloc.start()
    try:
        result = read_transcript(path)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def drop(vault: Vault, name: str, text: str | bytes) -> Path:
    """A file dropped into the vault's Raw/, as a person (or a copy) puts it there."""
    path = vault.raw / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


class Counting:
    """Another model's answers, keeping every prompt asked of it. `during(system)` runs
    before each answer: a person saving a file mid-call, a budget running out."""

    load_seconds = None

    def __init__(
        self,
        inner: TextModel | None,
        during: Callable[[str | None], object] | None = None,
    ) -> None:
        self.inner = inner
        self.during = during
        self.asked: list[str] = []

    @property
    def spec(self) -> str:
        return "counting" if self.inner is None else self.inner.spec

    @property
    def calls(self) -> int:
        return len(self.asked)

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        self.asked.append(user)
        if self.during is not None:
            self.during(system)
        if self.inner is None:
            raise AssertionError("this run should call no model")
        return self.inner.complete(stage, system, user, unit=unit, constraint=constraint)

    def unload(self) -> None:
        if self.inner is not None:
            self.inner.unload()


def stage_context(
    vault: Vault,
    ledger: Ledger,
    model: TextModel | None,
    *,
    run_id: str,
    now: str,
    write: bool = False,
) -> StageContext:
    """A run's context as the runner makes one (its `runs` row too), on `model` or on
    none at all (a call then fails the test); `write`: with the run's Writer."""
    from dreaming.config import Settings
    from dreaming.ledger import runs
    from dreaming.policy.pages import Policy
    from dreaming.vault import OwnWrites
    from stages.runner.contract import StageContext
    from stages.runner.write import Writer

    def no_model() -> TextModel:
        raise AssertionError("this run should call no model")

    if runs.get(ledger, run_id) is None:
        runs.put(ledger, runs.Run(run_id, "night", now, None, "running"))
    return StageContext(
        vault=vault,
        ledger=ledger,
        settings=Settings(vault=vault.root, model="scripted:test"),
        policy=Policy(vault),
        run_id=run_id,
        model=(lambda: model) if model is not None else no_model,
        now=lambda: now,
        writer=Writer(vault, ledger, OwnWrites(), run_id) if write else None,
    )


def run_unit(stage: Stage, ctx: StageContext, unit: Unit) -> UnitResult:
    """One unit as the runner does it, less the bookkeeping: run, then settle what it
    proposed in one transaction."""
    result = stage.run(ctx, unit)
    if result.settle is not None:
        with ctx.ledger.transaction():
            result.settle()
    return result
