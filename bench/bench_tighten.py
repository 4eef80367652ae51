"""EDITORIAL tighten's questions on labelled examples: does a later sentence that shares
most words with an earlier one add anything? (dropped when the model says no, and yes
to "does the earlier say it all?")

bench/gold/tighten.jsonl holds pairs labelled by hand before any tuning: paraphrases
and reorderings that add nothing, and near-copies that add one detail (a platform, a
condition, a reason, an item). Each pair is first put to the code's own test
(`dreaming.article.tighten`: is it a near repeat the model is asked about at all?).
Prints the CPU, each wrong answer, the share right, the wrong drops (a detail the
model would lose: the error that matters) and seconds a call.

    python bench/bench_tighten.py [SPEC]        # default gguf:qwen2.5-coder-1.5b
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
from dreaming.article import parse  # noqa: E402
from dreaming.article.tighten import repeats  # noqa: E402
from dreaming.model import Choice  # noqa: E402
from dreaming.model.loader import load  # noqa: E402
from dreaming.resources import data_dir  # noqa: E402
from stages.prompts import tighten as prompt  # noqa: E402

GOLD = ROOT / "bench" / "gold" / "tighten.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]
    for g in gold:
        text = f"# {g['title']}\n\n{g['earlier']}\n\n## Body\n\n{g['later']}\n"
        found = repeats(parse(text))
        kind = "sure" if found and found[0].sure else "near" if found else "none"
        if kind != "near":
            print(f"code calls it {kind}, not near: {g['later']}")
    system = prompt.system(
        (data_dir("meta_templates") / "Editorial_Guidelines.md").read_text(encoding="utf-8")
    )
    model = load(args.spec)
    right = lost = 0
    said_by = {"adds": [0, 0], "covers": [0, 0]}
    start = time.monotonic()
    for g in gold:
        answers = {}
        for name, ask in (("adds", prompt.adds), ("covers", prompt.covers)):
            answers[name] = model.complete(
                "editorial",
                system,
                ask(g["title"], g["earlier"], g["later"]),
                constraint=Choice(("yes", "no")),
            ).text
            said_by[name][answers[name] == "yes"] += 1
        drop = answers["adds"] == "no" and answers["covers"] == "yes"
        right += drop == (g["adds"] == "no")
        lost += drop and g["adds"] == "yes"
        if drop != (g["adds"] == "no"):
            print(f"wrong ({'drop' if drop else 'keep'}): {g['earlier']} | {g['later']}")
    seconds = (time.monotonic() - start) / len(gold) / 2
    for name, (no, yes) in said_by.items():
        print(f"{name}?: yes {yes}, no {no}")
    adds = sum(g["adds"] == "yes" for g in gold)
    print(
        f"{args.spec}: {right}/{len(gold)} decided right; wrong drops {lost}/{adds} "
        f"(a detail lost); {seconds:.2f} s a question"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
