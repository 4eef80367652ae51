"""SEGMENT against a hand-labelled gold set: boundary precision/recall/F1 and label lengths.

The gold set is the synthetic conversations in tests/fixtures/gold/segment_synthetic.jsonl
(always present) plus, when ../shared/corpus exists, the corpus conversations listed in
tests/fixtures/gold/segment_corpus.jsonl (by corpus file and conversation id; the
transcripts are not copied: not every source allows it). `baseline` is one chunk per
conversation, no model.

    python bench/bench_segment.py --corpus /work/shared/corpus     # baseline only
    PYTHONPATH=$PWD:/tmp/iksite python bench/bench_segment.py gguf:qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.config import load_settings  # noqa: E402
from dreaming.ledger import Ledger, chunks, conversations  # noqa: E402
from dreaming.model import TextModel, load  # noqa: E402
from dreaming.policy.pages import Policy  # noqa: E402
from dreaming.vault import Vault  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402
from stages.runner.contract import StageContext  # noqa: E402
from stages.segment.stage import SegmentStage  # noqa: E402

GOLD = ROOT / "tests" / "fixtures" / "gold"
CORPUS = ROOT.parent / "shared" / "corpus"


@dataclass(frozen=True)
class Gold:
    name: str
    conv_id: str
    boundaries: frozenset[int]


@dataclass(frozen=True)
class Scores:
    precision: float | None
    recall: float | None
    f1: float | None


def scores(pairs: Sequence[tuple[frozenset[int], frozenset[int]]]) -> Scores:
    """Micro-averaged boundary scores over (gold, predicted) pairs; exact positions."""
    hits = sum(len(g & p) for g, p in pairs)
    predicted = sum(len(p) for _, p in pairs)
    wanted = sum(len(g) for g, _ in pairs)
    precision = hits / predicted if predicted else None
    recall = hits / wanted if wanted else None
    f1 = None
    if precision is not None and recall is not None:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    elif wanted:
        f1 = 0.0
    elif predicted == 0:
        f1 = 1.0
    return Scores(precision, recall, f1)


def _note(turns: Sequence[Sequence[str]]) -> str:
    body = "".join(f"## {role}\n\n{text}\n\n" for role, text in turns)
    return f"---\ntitle: gold\ndate: 2026-01-02\n---\n\n{body}"


def build(vault: Vault, ledger: Ledger, corpus: Path) -> list[Gold]:
    """Ingest the gold conversations into `vault` and say where their boundaries are."""
    golds: list[Gold] = []
    for line in (GOLD / "segment_synthetic.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        path = vault.raw / f"{row['id']}.md"
        path.write_text(_note(row["messages"]), encoding="utf-8")
        golds.append(Gold(row["id"], vault.rel(path), frozenset(row["boundaries"])))
    corpus_rows = []
    listed = GOLD / "segment_corpus.jsonl"
    if corpus.is_dir() and listed.is_file():
        corpus_rows = [json.loads(x) for x in listed.read_text(encoding="utf-8").splitlines()]
    files = sorted({corpus / r["path"] for r in corpus_rows})
    ingest(vault, ledger)
    if files:
        ingest(vault, ledger, files)
    for i, gold in enumerate(golds):
        golds[i] = Gold(gold.name, conversations.in_file(ledger, gold.conv_id)[0], gold.boundaries)
    for r in corpus_rows:
        if conversations.get(ledger, r["conv_id"]) is None:
            print(f"corpus gold {r['path']}: no conversation {r['conv_id']} (ids changed?)")
            continue
        golds.append(Gold(r["conv_id"][:8], r["conv_id"], frozenset(r["boundaries"])))
    return golds


def measure(spec: str, vault: Vault, ledger: Ledger, golds: Sequence[Gold]) -> None:
    pairs = []
    lengths: list[int] = []
    started = time.perf_counter()
    failed = 0
    if spec == "baseline":
        pairs = [(g.boundaries, frozenset[int]()) for g in golds]
    else:
        model: TextModel = load(spec)
        ctx = StageContext(
            vault=vault,
            ledger=ledger,
            settings=load_settings(vault.root, model=spec),
            policy=Policy(vault),
            run_id="bench",
            model=lambda: model,
            now=lambda: "2026-01-02T00:00:00Z",
        )
        stage = SegmentStage()
        units = {u.key: u for u in stage.units(ctx)}
        for g in golds:
            result = stage.run(ctx, units[g.conv_id])
            got = chunks.of_conversation(ledger, g.conv_id)
            if result.status != "done":
                failed += 1
                print(f"  {g.name}: {result.status} {result.detail}")
            predicted = frozenset(c.first_message for c in got[1:])
            pairs.append((g.boundaries, predicted))
            lengths += [len(c.label.split()) for c in got]
            print(f"  {g.name}: gold {sorted(g.boundaries)} got {sorted(predicted)}")
            for c in got:
                print(f"    {c.first_message}-{c.last_message}: {c.label}")
    s = scores(pairs)
    single = [p for g, p in pairs if not g]
    whole = f"one-topic kept whole {sum(not p for p in single)}/{len(single)}"
    seconds = time.perf_counter() - started

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    label_stats = (
        f"label words min/median/max {min(lengths)}/{statistics.median(lengths)}/{max(lengths)}"
        if lengths
        else "no labels"
    )
    print(
        f"{spec}: {len(golds)} conversations, P {fmt(s.precision)} R {fmt(s.recall)} "
        f"F1 {fmt(s.f1)}, {whole}, {failed} failed, {label_stats}, {seconds:.0f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="model specs (baseline always runs)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the shared corpus folder")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = init_vault(Path(tmp) / "vault").vault
        with Ledger(vault.ledger_path) as ledger:
            golds = build(vault, ledger, args.corpus)
            for spec in ["baseline", *args.specs]:
                measure(spec, vault, ledger, golds)


if __name__ == "__main__":
    main()
