"""EXTRACT on the wiki gold set: how many of the subjects it keeps are right.

For one split of `tests/fixtures/wiki_gold.jsonl`, reads each conversation as one chunk
as EXTRACT reads it, proposes candidates as EXTRACT does and judges them with the model
of the spec given (`stages.extract.judge`: a yes/no each, the surest `KEPT` kept);
prints the proposer's recall and, for the subjects kept, precision (the share its gold
conversation lists), recall (gold subjects kept), and the model calls and seconds.

    python bench/bench_judge.py --split tune                       # the default model
    python bench/bench_judge.py --split tune gguf:qwen2.5-coder-0.5b --verbose
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.corpus import ingested  # noqa: E402
from bench.machine import cpu  # noqa: E402
from dreaming.checks.gold import load_gold, names_key  # noqa: E402
from dreaming.ledger import conversations  # noqa: E402
from dreaming.model.loader import load  # noqa: E402
from dreaming.model.metered import MeteredModel  # noqa: E402
from dreaming.subjects.names import AliasIndex  # noqa: E402
from stages.extract import candidates_of, chunk_text, judge  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
GOLD = ROOT / "tests" / "fixtures" / "wiki_gold.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    parser.add_argument("--split", choices=("tune", "heldout"), required=True)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--verbose", action="store_true", help="per conversation: kept, gold")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}; pass --corpus")
        return 2
    gold = [g for g in load_gold(GOLD) if g.split == args.split]
    model = MeteredModel(load(args.spec))
    total = proposed = found = kept_n = on_gold = 0
    started = time.perf_counter()
    with ingested(args.corpus) as ledger:
        for g in gold:
            messages = list(conversations.messages(ledger, g.conv))
            title = conversations.title(ledger, g.conv)
            candidates = candidates_of(messages, AliasIndex.build(), title)
            kept = [c.key for c, _ in judge(model, chunk_text(messages), candidates, g.conv)]
            names = {names_key(n) for s in g.subjects for n in s.names}
            kept_n += len(kept)
            on_gold += sum(k in names for k in kept)
            for s in g.subjects:
                keys = {names_key(n) for n in s.names}
                total += 1
                proposed += any(c.key in keys for c in candidates)
                found += bool(keys & set(kept))
            if args.verbose:
                print(f"  {g.conv[:8]} kept {['*' * (k in names) + k for k in kept]}")
                print(f"           gold {[s.names[0] for s in g.subjects]}")
    seconds = time.perf_counter() - started
    print(f"{args.spec} on {args.split}: {len(gold)} conversations, {total} gold subjects")
    print(f"  proposed {proposed}/{total} = {proposed / max(1, total):.0%}")
    print(f"  kept: precision {on_gold}/{kept_n} = {on_gold / max(1, kept_n):.0%}, "
          f"recall {found}/{total} = {found / max(1, total):.0%}")  # fmt: skip
    print(f"  {model.calls} model calls, {model.seconds:.0f} s of model time, {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
