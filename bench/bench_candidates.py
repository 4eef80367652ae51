"""How well code proposes subjects, on gold, with no model: the ceiling of EXTRACT.

EXTRACT only judges what `dreaming/subjects/candidates.py` proposes, so a gold subject no
chunk proposes can never get a home, and every proposed non-subject is one more
yes/no the model may get wrong. For each split of the gold set, ingests and
segments the corpus conversations and prints:

- recall: the share of gold subjects some chunk of their conversation proposes
  (any of the subject's names), and the same for main subjects;
- on-gold: the share of proposals that name a gold subject (gold lists only what a
  careful reader would file, so this is a floor of precision, not precision);
- proposals per chunk, and the proposals that named nothing on gold (the first 40,
  to read).

    python bench/bench_candidates.py            # both splits
    python bench/bench_candidates.py --misses   # also list the gold subjects missed
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.corpus import ingested  # noqa: E402
from bench.machine import cpu  # noqa: E402
from dreaming.checks.gold import Gold, load_gold, names_key  # noqa: E402
from dreaming.ledger import Ledger, conversations  # noqa: E402
from dreaming.subjects.names import AliasIndex  # noqa: E402
from stages.extract import candidates_of  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
GOLD = ROOT / "tests" / "fixtures" / "wiki_gold.jsonl"


def proposals(ledger: Ledger, conv: str) -> list[list[str]]:
    """The proposals (names_key form) for conversation `conv`, read as one chunk as
    EXTRACT reads it: most gold conversations are one chunk, and segmenting takes the
    model."""
    messages = list(conversations.messages(ledger, conv))
    title = conversations.title(ledger, conv)
    found = candidates_of(messages, AliasIndex.build(), title)
    return [[names_key(c.display) for c in found]] if messages else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}; pass --corpus")
        return 2
    gold = load_gold(args.gold)
    with ingested(args.corpus) as ledger:
        started = time.perf_counter()
        by_conv = {g.conv: proposals(ledger, g.conv) for g in gold}
        seconds = time.perf_counter() - started
    for split in ("tune", "heldout"):
        _report(split, [g for g in gold if g.split == split], by_conv, args.misses)
    print(f"\nproposing took {seconds:.2f} s for {len(gold)} conversations")
    return 0


def _report(
    split: str, gold: list[Gold], by_conv: dict[str, list[list[str]]], misses: bool
) -> None:
    found = total = main_found = main_total = on_gold = proposed = n_chunks = 0
    junk: Counter[str] = Counter()
    missed: list[str] = []
    for g in gold:
        names = {names_key(n) for s in g.subjects for n in s.names}
        chunk_lists = by_conv.get(g.conv, [])
        n_chunks += len(chunk_lists)
        seen = {k for c in chunk_lists for k in c}
        for c in chunk_lists:
            proposed += len(c)
            on_gold += sum(1 for k in c if k in names)
            junk.update(k for k in c if k not in names)
        for s in g.subjects:
            hit = any(names_key(n) in seen for n in s.names)
            total += 1
            found += hit
            if s.main:
                main_total += 1
                main_found += hit
            if not hit:
                missed.append(f"{g.conv[:8]} {s.names[0]!r}")
    print(f"\n{split}: {len(gold)} conversations, {n_chunks} chunks")
    print(f"  recall {found}/{total} = {found / max(1, total):.0%}; main {main_found}/{main_total}")
    print(
        f"  on-gold {on_gold}/{proposed} = {on_gold / max(1, proposed):.0%}; "
        f"{proposed / max(1, n_chunks):.1f} proposals per chunk"
    )
    print("  not on gold: " + ", ".join(k for k, _ in junk.most_common(40)))
    if misses:
        print("  missed: " + "; ".join(missed))


if __name__ == "__main__":
    sys.exit(main())
