"""BUCKET's "same story?" and RESOLVE's "same thing?" judged on a hand-labelled set,
per model spec, and the calls a real night's ledger shows per chunk.

Prints, per model: yes/no accuracy on each set (tests/fixtures/bucket_resolve/gold.py,
all near misses, half of them `yes`), the wrong answers with --verbose, calls and
seconds. With --vault: the chunks that vault's ledger holds, and the model calls
per chunk each stage made there (from `model_calls`), so a night run with
`dreaming synthesize --vault V --model SPEC` can be read off.

    PYTHONPATH=$PWD:/tmp/iksite python bench/bucket_resolve.py gguf:qwen2.5-coder-1.5b
    python bench/bucket_resolve.py --vault /tmp/night-vault
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.ledger import Ledger, chunks, model_calls  # noqa: E402
from dreaming.model import TextModel, load  # noqa: E402
from dreaming.vault import Vault  # noqa: E402
from stages.bucket import continues  # noqa: E402
from stages.prompts import bucket  # noqa: E402
from stages.resolve import same_thing  # noqa: E402
from tests.fixtures.bucket_resolve.gold import STORIES, THINGS  # noqa: E402


def judged(model: TextModel, verbose: bool) -> None:
    story_system = bucket.system((ROOT / "meta_templates" / "Bucketing.md").read_text("utf-8"))
    for name, pairs, ask in (
        (
            "same story?",
            STORIES,
            lambda p: continues(model, story_system, p.story, p.label, "bench"),
        ),
        (
            "same thing?",
            THINGS,
            lambda p: same_thing(model, p.name, p.context, p.title, "bench"),
        ),
    ):
        right, start = 0, time.perf_counter()
        yes_right = no_right = 0
        for p in pairs:
            said = ask(p)
            ok = said == p.same
            right += ok
            yes_right += ok and p.same
            no_right += ok and not p.same
            if verbose and not ok:
                print(f"    wrong: said {'yes' if said else 'no'} to {p}")
        seconds = time.perf_counter() - start
        yes = sum(1 for p in pairs if p.same)
        print(
            f"  {name:12} accuracy {right}/{len(pairs)} = {right / len(pairs):.2f} "
            f"(yes {yes_right}/{yes}, no {no_right}/{len(pairs) - yes}) "
            f"calls={len(pairs)} {seconds:.1f}s"
        )


def night(vault_path: Path) -> None:
    vault = Vault(vault_path)
    with Ledger(vault.ledger_path) as ledger:
        count = len(chunks.in_order(ledger))
        print(f"{vault_path}: {count} chunks")
        for stage, use in model_calls.usage(ledger).items():
            per = use["calls"] / count if count else 0.0
            print(
                f"  {stage:10} calls={use['calls']:5} per chunk={per:.2f} "
                f"prompt tokens={use['prompt_tokens']} seconds={use['seconds']:.0f}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="model specs to judge with")
    parser.add_argument("--verbose", action="store_true", help="print the wrong answers")
    parser.add_argument("--vault", type=Path, help="a vault a real night ran on")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    for spec in args.specs:
        print(spec)
        judged(load(spec), args.verbose)
    if args.vault is not None:
        night(args.vault)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
