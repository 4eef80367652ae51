"""Small fake stages for the runner's tests, and a night a test runs in a child process.

A fake unit asks the scripted model one question and writes the answer into a
Talk/ page through the run's Writer, so every unit done shows as one commit.
Run as `python -m tests.pipeline_fakes VAULT ANSWERS UNITS [CRASH]` it does one
night; CRASH `unit:point` kills the process (SIGKILL) at that point of that unit:
`before_write`, `after_write` (written, not committed) or `at_record` (committed,
not recorded done).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from dreaming.config import Settings
from dreaming.errors import DreamingError
from dreaming.ledger import conversations, work
from dreaming.vault import Vault, checksum
from stages.runner.contract import StageContext, StageName, Unit, UnitResult
from stages.runner.pipeline import run_night
from stages.runner.write import Edit
from tests.support import Answer
from watcher.app import App


def question(stage: str, key: str) -> str:
    return f"Say a word for unit {key} of {stage}."


def answers(stage: str, keys: Iterable[str]) -> list[Answer]:
    return [Answer(stage, question(stage, k), f"word-{k}") for k in keys]


def page(stage: str, key: str) -> str:
    return f"Talk/{stage}-{key}.md"


class FakeStage:
    def __init__(
        self,
        name: StageName,
        keys: Iterable[str],
        *,
        fail: Iterable[str] = (),
        crash: tuple[str, str] | None = None,
        hold: Path | None = None,
    ) -> None:
        self.name: StageName = name
        self.policy: tuple[str, ...] = ()
        self.keys = list(keys)
        self.fail = set(fail)
        self.crash = crash
        self.hold = hold
        self.ran: list[str] = []

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        for key in self.keys:
            yield Unit(key, f"hash-{key}", label=f"unit {key}")

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        self.ran.append(unit.key)
        self._maybe_stop(unit.key, "before_write")
        if unit.key in self.fail:
            raise DreamingError(f"unit {unit.key} broke\non two lines")
        answer = ctx.model().complete(self.name, None, question(self.name, unit.key), unit=unit.key)
        assert ctx.writer is not None
        rel = page(self.name, unit.key)
        path = ctx.vault.root / rel
        base = checksum(path.read_bytes()) if path.exists() else None
        ctx.writer.write(Edit(rel, f"{answer.text}\n", base, stage=self.name, unit=unit.key))
        self._maybe_stop(unit.key, "after_write")
        return UnitResult("done")

    def _maybe_stop(self, key: str, point: str) -> None:
        if self.hold is not None and point == "after_write":
            self.hold.write_text(str(os.getpid()))
            time.sleep(60)
        if self.crash == (key, point):
            os.kill(os.getpid(), signal.SIGKILL)


class ConversationStage(FakeStage):
    """A fake SEGMENT over the ledger's conversations, as the real one lists them: every
    conversation oldest first, but those the night leaves `waiting` this round. Each unit
    writes a Talk page and asks no model (its keys are not known before ingest)."""

    def __init__(self, name: StageName = "segment") -> None:
        super().__init__(name, ())

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        for conv in conversations.by_updated(ctx.ledger):
            if conv.id not in ctx.waiting:
                yield Unit(conv.id, f"hash-{conv.id}", label=conv.title or conv.id)

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        self.ran.append(unit.label)
        assert ctx.writer is not None
        rel = page(self.name, unit.key)
        path = ctx.vault.root / rel
        base = checksum(path.read_bytes()) if path.exists() else None
        ctx.writer.write(Edit(rel, f"{unit.label}\n", base, stage=self.name, unit=unit.key))
        return UnitResult("done")


class AfterStage(FakeStage):
    """A fake later stage: one unit a conversation the fake SEGMENT has done, so what
    it runs shows which conversations reached the stages after SEGMENT, and when."""

    def __init__(self, name: StageName = "extract") -> None:
        super().__init__(name, ())

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        for conv in conversations.by_updated(ctx.ledger):
            if work.is_done(ctx.ledger, "segment", conv.id, f"hash-{conv.id}"):
                yield Unit(conv.id, f"hash-{conv.id}", label=conv.title or conv.id)

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        self.ran.append(unit.label)
        return UnitResult("done")


def crash_at_record(key: str) -> None:
    """SIGKILL when the runner is about to record `key` done (after its commit)."""
    record = work.record

    def dying(*args: object, **kwargs: object) -> None:
        if args[2] == key:
            os.kill(os.getpid(), signal.SIGKILL)
        record(*args, **kwargs)  # type: ignore[arg-type]

    work.record = dying


def main(argv: list[str]) -> None:
    root, answers_path, keys = Path(argv[0]), argv[1], argv[2].split(",")
    crash = tuple(argv[3].split(":")) if len(argv) > 3 and argv[3] else None
    hold = Path(argv[4]) if len(argv) > 4 else None
    if crash is not None and crash[1] == "at_record":
        crash_at_record(crash[0])
    stage = FakeStage("segment", keys, crash=crash if crash else None, hold=hold)  # type: ignore[arg-type]
    settings = Settings(vault=root, model=f"scripted:{answers_path}")
    with App(Vault.open(root), settings) as app:
        run_night(app, stages=(stage,))


if __name__ == "__main__":
    main(sys.argv[1:])
