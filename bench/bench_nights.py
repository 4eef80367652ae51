"""Does `status`'s estimate hold? Night one measures a pace; night two takes the rest.

A fresh vault (made by `dreaming init`'s code) gets real Claude Code sessions of the
shared corpus in Raw/. Night one runs the real stages for a short while (`--night1`
seconds on the clock, its end as a scheduled night's `night_ends`), newest first, and
stops at a unit boundary; then the backlog's estimate is read as `dreaming status`
reads it (`backlog_estimate`). Night two has no end and takes the whole rest. The bench
prints the estimate beside what night two measured: model time, time on the clock, and
nights of a window of `--window` seconds (goal: within 25 %). It prints the same for an
estimate by messages alone and by conversations alone, to show what status's two parts
(reading a message, writing up a conversation) buy.

The model: by default a rule model (tests/rule_model.py: answers any stage's question
at once) that *takes time* like a llama.cpp model on a CPU: each call sleeps for the
prompt tokens its cache does not hold (the common prefix with the previous prompt, as
llama.cpp's one KV cache keeps it) at `--prefill` tokens/s, plus its answer's tokens at
`--gen` tokens/s (tokens as characters / 4). Every stage's real questions, on the real
conversations, so the work a message brings is real; only the model's seconds are
simulated. `--model SPEC` runs a real model instead (gguf:qwen2.5-coder-0.5b: slow on
a shared CPU).

    python bench/bench_nights.py [--count 10] [--night1 60] [--window 60] [--model SPEC]
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dreaming.model  # noqa: E402
from bench.machine import cpu  # noqa: E402
from dreaming.checks.status import backlog_doc  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.ledger import Ledger, conversations, runs  # noqa: E402
from dreaming.model import Completion, Constraint, TextModel, Usage  # noqa: E402
from dreaming.nights.backlog import RECENT_NIGHTS, backlog, pace  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402
from stages.runner.pipeline import run_night  # noqa: E402
from stages.runner.report import NightReport  # noqa: E402
from tests.rule_model import answer  # noqa: E402
from watcher.app import App  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"


class PacedRuleModel:
    """A rule model that spends the seconds a CPU llama.cpp model would."""

    spec = "paced-rule"
    load_seconds = None

    def __init__(self, prefill: float, gen: float) -> None:
        self.prefill, self.gen = prefill, gen
        self.last = ""

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        prompt = (system or "") + "\x00" + user
        shared = _common_prefix(prompt, self.last)
        self.last = prompt
        text = answer(constraint, user)
        computed, cached = (len(prompt) - shared) // 4, shared // 4
        generated = max(1, len(text) // 4)
        seconds = computed / self.prefill + generated / self.gen
        time.sleep(seconds)
        usage = Usage(
            prompt_tokens=computed + cached,
            cached_tokens=cached,
            generated_tokens=generated,
            seconds=seconds,
        )
        return Completion(text, usage)

    def unload(self) -> None:
        self.last = ""


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


SMALLEST = 40_000
"""Bytes: the smaller main sessions are the corpus's edge cases (a summary or a snapshot
alone, a cut-off start), no dialogue to synthesize."""


def sessions(corpus: Path, count: int, subagents: bool) -> list[Path]:
    """The smallest `count` Claude Code sessions with dialogue: the main sessions, and
    with `subagents` the subagents' files too (each its own conversation)."""
    found = [
        p
        for p in (corpus / "claude-code").rglob("*.jsonl")
        if (subagents or ("subagents" not in p.parts and not p.name.startswith("agent-")))
        and p.stat().st_size >= SMALLEST
    ]
    return sorted(found, key=lambda p: p.stat().st_size)[:count]


def _stages(report: NightReport) -> str:
    """Per stage: units done (and left), model seconds."""
    return "; ".join(
        f"{s.stage} {s.done}"
        + (f" ({s.left} left)" if s.left else "")
        + f" {report.usage[s.stage]['seconds'] if s.stage in report.usage else 0.0:.1f} s"
        for s in report.stages
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the shared corpus folder")
    parser.add_argument("--count", type=int, default=16, help="Claude Code sessions to use")
    parser.add_argument(
        "--subagents", action="store_true", help="the subagents' files too (more, smaller)"
    )
    parser.add_argument("--night1", type=float, default=60.0, help="night one's seconds")
    parser.add_argument("--window", type=int, default=60, help="a night's window, seconds")
    parser.add_argument("--order", choices=["newest", "oldest"], default="newest")
    parser.add_argument("--prefill", type=float, default=800.0, help="simulated prompt tok/s")
    parser.add_argument("--gen", type=float, default=250.0, help="simulated generated tok/s")
    parser.add_argument("--model", default=None, help="a real model spec instead")
    parser.add_argument("--keep", type=Path, help="make the vault here and keep it")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    files = sessions(args.corpus, args.count, args.subagents)
    if len(files) < 2:
        print(f"the corpus at {args.corpus} holds too few Claude Code sessions; pass --corpus")
        return 2
    if args.model is None:
        paced = PacedRuleModel(args.prefill, args.gen)

        def load(spec: str, **_: object) -> TextModel:
            return paced

        dreaming.model.load = load  # type: ignore[assignment]
        print(f"model: rule answers, time simulated at {args.prefill:.0f} prompt tok/s "
              f"(uncached part) and {args.gen:.0f} generated tok/s")  # fmt: skip
    else:
        print(f"model: {args.model}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "vault"
        vault = init_vault(root).vault
        for f in files:
            name = "-".join(f.relative_to(args.corpus / "claude-code").parts)
            shutil.copy2(f, vault.raw / name)
        with Ledger(vault.ledger_path) as ledger:
            ingest(vault, ledger)
            convs = conversations.by_updated(ledger)
        print(f"{len(files)} sessions: {len(convs)} conversations, "
              f"{sum(c.message_count for c in convs)} messages")  # fmt: skip
        ends = (datetime(2000, 1, 1, 3) + timedelta(seconds=args.window)).strftime("%H:%M:%S")
        settings = replace(
            Settings(vault=vault.root),
            model=args.model or "paced-rule",
            schedule="03:00:00",
            night_ends=ends,
            backlog_order=args.order,
            keep_model_resident=True,
        )
        with App(vault, settings) as app:
            started = time.perf_counter()
            until = datetime.now() + timedelta(seconds=args.night1)
            first = run_night(app, until=until)
            print(f"night one: {time.perf_counter() - started:.1f} s on the clock, "
                  f"stopped at its end: {first.ended_at_end}")  # fmt: skip
            one = runs.pace_of(app.ledger, first.run_id)
            assert one is not None
            print("  " + _stages(first))
            print(f"  took {one.conversations} conversations, {one.messages} messages: "
                  f"{one.model_seconds:.1f} s of model time, {one.stage_seconds:.1f} s of "
                  f"stages, {one.calls} calls")  # fmt: skip
            doc = backlog_doc(app.ledger, settings)
            found = backlog(app.ledger, settings)
            print(f"status after night one: {doc['said']}")
            if not found.conversations:
                print("night one took the whole backlog: nothing to estimate; pass a shorter "
                      "--night1 or a larger --count")  # fmt: skip
                return 1
            if found.estimate.model_seconds is None or found.estimate.wall_seconds is None:
                print("no estimate after night one: nothing to compare")
                return 1
            measured = pace(runs.measured(app.ledger, RECENT_NIGHTS))
            assert measured is not None
            alone = [
                (part, getattr(measured, part), getattr(found, part))
                for part in ("messages", "conversations")
            ]
            second = run_night(app)
            two = runs.pace_of(app.ledger, second.run_id)
            assert two is not None
            print("  " + _stages(second))
            left = backlog(app.ledger, settings).conversations
            print(f"night two: took {two.conversations} conversations, {two.messages} "
                  f"messages: {two.model_seconds:.1f} s of model time, "
                  f"{two.stage_seconds:.1f} s of stages, {two.calls} calls; "
                  f"{left} left; status {second.status}")  # fmt: skip
    rows = (
        ("model time", found.estimate.model_seconds, measured.model_seconds, two.model_seconds),
        ("time on the clock", found.estimate.wall_seconds, measured.wall_seconds,
         two.stage_seconds),
    )  # fmt: skip
    print("| | estimate (status) | ratio | a message alone | ratio | a conversation alone "
          "| ratio | night two |")  # fmt: skip
    print("| --- | --: | --: | --: | --: | --: | --: | --: |")
    for what, est, spent, real in rows:
        cells = [f"{est:.1f} s | {est / real:.2f}"]
        for _, measured_part, left_part in alone:
            guess = spent / measured_part * left_part
            cells.append(f"{guess:.1f} s | {guess / real:.2f}")
        print(f"| {what} | {' | '.join(cells)} | {real:.1f} s |")
    nights = math.ceil(two.stage_seconds / args.window)
    print(f"nights of {args.window} s: estimated {found.estimate.nights}, night two's time "
          f"fills {two.stage_seconds / args.window:.2f} ({nights})")  # fmt: skip
    within = abs(found.estimate.wall_seconds / two.stage_seconds - 1) <= 0.25
    print(f"goal (time on the clock within 25 %): {'met' if within else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
