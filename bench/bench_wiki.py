"""The wiki a real model writes from labelled corpus conversations, scored on gold.

For one split of the gold set (`tests/fixtures/wiki_gold.jsonl`, labelled before any
tuning: `tune` or `heldout`), copies the Raw files holding its conversations into a
fresh vault and runs one night per file, in order, with the model of the spec given;
then prints the scorecard of `dreaming eval wiki` for that split, and the model calls
and model seconds each conversation cost (median and per stage).

    python bench/bench_wiki.py --split heldout                         # the default model
    python bench/bench_wiki.py --split heldout gguf:qwen2.5-coder-0.5b --max 10 --smallest
    python bench/bench_wiki.py --split tune --keep /tmp/tunevault       # keep it to read

One night per file makes each file's cost its own: a later night that revises an
earlier article counts to the conversation that brought the new text.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.checks.gold import load_gold  # noqa: E402
from dreaming.checks.wiki import scorecard  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.ledger import Ledger, model_calls  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402
from stages.runner.pipeline import run_night  # noqa: E402
from watcher.app import App  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
GOLD = ROOT / "tests" / "fixtures" / "wiki_gold.jsonl"


def corpus_files(corpus: Path, wanted: set[str]) -> list[tuple[Path, list[str]]]:
    """The corpus files holding `wanted` conversations, each with the wanted ids it
    holds, in the order a person's history would arrive (oldest file first)."""
    with tempfile.TemporaryDirectory() as tmp:
        index = init_vault(Path(tmp) / "index").vault
        for path in sorted(corpus.rglob("*")):
            if path.is_file() and path.name != "SOURCES.md":
                target = index.raw / path.relative_to(corpus)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        with Ledger(index.ledger_path) as ledger:
            ingest(index, ledger)
            rows = ledger.db.execute(
                "SELECT fc.path, c.id, c.created_at FROM file_conversations fc "
                "JOIN conversations c ON c.id = fc.conv_id"
            ).fetchall()
    held: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for path, conv, created in rows:
        if conv in wanted:
            held.setdefault(path, []).append(conv)
            first[path] = min(first.get(path, created or ""), created or "")
    rel = [(p, ids) for p, ids in held.items()]
    rel.sort(key=lambda item: (first[item[0]], item[0]))
    return [(corpus / Path(p).relative_to("Raw"), ids) for p, ids in rel]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    parser.add_argument("--split", choices=("tune", "heldout"), required=True)
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--max", type=int, default=0, help="at most N files (0: all)")
    parser.add_argument(
        "--smallest", action="store_true", help="take the smallest files first (a quick run)"
    )
    parser.add_argument("--keep", type=Path, help="make the vault here and keep it")
    parser.add_argument("--json", type=Path, help="also write the scorecard here")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}; pass --corpus")
        return 2
    gold = [g for g in load_gold(args.gold) if g.split == args.split]
    files = corpus_files(args.corpus, {g.conv for g in gold})
    if args.smallest:
        files.sort(key=lambda item: item[0].stat().st_size)
    if args.max:
        files = files[: args.max]
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "vault"
        vault = init_vault(root).vault
        settings = replace(Settings(vault=vault.root), model=args.spec, keep_model_resident=True)
        costs: list[tuple[str, int, float, dict[str, float]]] = []
        with App(vault, settings) as app:
            for n, (path, ids) in enumerate(files, 1):
                target = vault.raw / path.relative_to(args.corpus)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                started = time.perf_counter()
                report = run_night(app)
                wall = time.perf_counter() - started
                usage = model_calls.usage(app.ledger, report.run_id)
                calls = sum(u["calls"] for u in usage.values())
                seconds = sum(u["seconds"] for u in usage.values())
                per_stage = {stage: u["seconds"] for stage, u in usage.items()}
                costs.append((path.name, calls, seconds, per_stage))
                print(
                    f"[{n}/{len(files)}] {path.name[:50]} ({len(ids)} conv): {calls} calls, "
                    f"model {seconds:.1f} s, wall {wall:.1f} s",
                    flush=True,
                )
            card = scorecard(vault, app.ledger, gold)
    convs = sum(len(ids) for _, ids in files)
    print(f"\n{args.spec} on {args.split}: {len(files)} files, {convs} conversations")
    seconds = [c[2] / max(1, len(ids)) for c, (_, ids) in zip(costs, files, strict=True)]
    calls = [c[1] / max(1, len(ids)) for c, (_, ids) in zip(costs, files, strict=True)]
    if seconds:
        print(
            f"model seconds per conversation: median {statistics.median(seconds):.1f}, "
            f"mean {statistics.mean(seconds):.1f}; calls per conversation: median "
            f"{statistics.median(calls):.1f}, mean {statistics.mean(calls):.1f}"
        )
        stages: dict[str, float] = {}
        for *_, per in costs:
            for stage, s in per.items():
                stages[stage] = stages.get(stage, 0.0) + s
        print(
            "model seconds per conversation by stage: "
            + ", ".join(f"{k} {v / max(1, convs):.1f}" for k, v in stages.items())
        )
    print(card.text())
    if args.json:
        args.json.write_text(json.dumps(card.as_json(), indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
