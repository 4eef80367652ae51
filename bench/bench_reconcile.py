"""RECONCILE's question on labelled examples: does the model's yes/no match the label?

bench/gold/reconcile.jsonl holds sentences with a proposed infobox value each (a status,
a relationship, a type) and whether the sentence states it (labelled by hand, hard
negatives included: a status word about something else, a name after the cue that is
not the value). Prints the CPU, each wrong answer, the share right and seconds a call.

    python bench/bench_reconcile.py [SPEC]        # default gguf:qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.model import Choice  # noqa: E402
from dreaming.model.loader import load  # noqa: E402
from stages.prompts import reconcile as prompt  # noqa: E402

GOLD = ROOT / "bench" / "gold" / "reconcile.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    model = load(args.spec)
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]
    right, start = 0, time.monotonic()
    for g in gold:
        question = prompt.states(g["title"], g["sentence"], g["field"], g["value"])
        said = model.complete(
            "reconcile", prompt.SYSTEM, question, constraint=Choice(("yes", "no"))
        ).text
        right += said == g["answer"]
        if said != g["answer"]:
            print(f"wrong ({said}): {g['field']}={g['value']} | {g['sentence']}")
    seconds = (time.monotonic() - start) / len(gold)
    print(f"{args.spec}: {right}/{len(gold)} right, {seconds:.2f} s a question")
    return 0


if __name__ == "__main__":
    sys.exit(main())
