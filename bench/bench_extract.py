"""EXTRACT quality on the hand-labelled gold set, per model spec.

Prints, for the proposer alone, candidate recall (gold subjects that are among the
candidates), and per model: precision, recall and F1 of the subjects judged yes,
yes/no accuracy over every candidate (yes is right when the candidate is a gold
subject), is-main calls, model calls and seconds. The gold set is
tests/fixtures/extract/gold.py: synthetic chunks always, corpus chunks when
../shared/corpus (or --corpus) is there.

    PYTHONPATH=$PWD:/tmp/iksite python bench/bench_extract.py gguf:qwen2.5-coder-1.5b
    python bench/bench_extract.py mlx:smollm2-135m --verbose
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.ledger.conversations import StoredMessage  # noqa: E402
from dreaming.model import load  # noqa: E402
from dreaming.subjects.candidates import propose  # noqa: E402
from dreaming.subjects.names import AliasIndex, canonical  # noqa: E402
from stages.extract import chunk_text, full_text, judge  # noqa: E402
from tests.fixtures.extract.gold import CORPUS, SYNTHETIC, GoldChunk, corpus_gold  # noqa: E402


@dataclass
class Tally:
    gold: int = 0
    proposed: int = 0
    judged: int = 0
    right: int = 0
    answers: int = 0
    answers_right: int = 0
    calls: int = 0
    seconds: float = 0.0

    def line(self, name: str) -> str:
        p = self.right / self.judged if self.judged else 0.0
        r = self.right / self.gold if self.gold else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        acc = self.answers_right / self.answers if self.answers else 0.0
        return (
            f"{name:34} P={p:.2f} R={r:.2f} F1={f1:.2f} yes/no acc={acc:.2f} "
            f"({self.answers_right}/{self.answers}) calls={self.calls} {self.seconds:.1f}s"
        )


def messages(gold: GoldChunk) -> list[StoredMessage]:
    return [StoredMessage(role, text, None) for role, text in gold.messages]  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="model specs to judge with")
    parser.add_argument("--verbose", action="store_true", help="per chunk: gold, proposed, judged")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the public corpus folder")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    chunks = SYNTHETIC + corpus_gold(args.corpus)
    index = AliasIndex()
    print(f"gold: {len(chunks)} chunks ({len(SYNTHETIC)} synthetic), "
          f"{sum(len(g.subjects) for g in chunks)} subjects")  # fmt: skip

    found = total = 0
    for g in chunks:
        keys = {c.key for c in propose(full_text(messages(g)), index)}
        gold_keys = {canonical(s) for s in g.subjects}
        found += len(gold_keys & keys)
        total += len(gold_keys)
    print(f"proposer alone: candidate recall {found}/{total} = {found / max(total, 1):.2f}")

    for spec in args.specs:
        model = load(spec)
        tally = Tally()
        for g in chunks:
            gold_keys = {canonical(s) for s in g.subjects}
            candidates = propose(full_text(messages(g)), index)
            started = time.perf_counter()
            judged = judge(model, chunk_text(messages(g)), candidates, g.name)
            tally.seconds += time.perf_counter() - started
            yes = {c.key for c, _ in judged}
            tally.gold += len(gold_keys)
            tally.proposed += len(candidates)
            tally.judged += len(yes)
            tally.right += len(yes & gold_keys)
            tally.answers += len(candidates)
            tally.answers_right += sum((c.key in yes) == (c.key in gold_keys) for c in candidates)
            tally.calls += len(candidates) + (1 if judged else 0)
            if args.verbose:
                main_name = next((c.display for c, m in judged if m), "-")
                proposed = [c.key for c in candidates]
                print(f"  {g.name}: gold={sorted(gold_keys)} proposed={proposed} "
                      f"yes={sorted(yes)} main={main_name}")  # fmt: skip
        print(tally.line(spec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
