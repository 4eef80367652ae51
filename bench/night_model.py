"""A real model's night over three corpus conversations: where the time goes.

Ingests three single-conversation corpus files into a fresh vault and runs one
whole night (`run_night`, every stage of `stages.runner.pipeline.STAGES`) with the model
of the spec given, then prints, from the run's `model_calls` rows:

- wall time split into model time (its calls and its load) and the rest (goal: rest < 5 %);
- model calls and prompt tokens per chunk, per stage and in all;
- the prefix cache: prompt tokens computed / sent (lower is better).

    PYTHONPATH=$PWD:/tmp/iksite python bench/night_model.py              # gguf, the default
    python bench/night_model.py mlx:qwen2.5-coder-1.5b                    # the same through mlx
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.ledger import Ledger, chunks, conversations, model_calls  # noqa: E402
from dreaming.model.loader import load_seconds  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402
from stages.runner.pipeline import run_night  # noqa: E402
from watcher.app import App  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
CONVERSATIONS = (
    "claude-code/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl",
    "claude-code/-src-experiments-claude_p/256ba646-2c15-437a-98e9-4171aafd030e.jsonl",
    "claude-code/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
)
"""Three one-conversation files of the segment gold set: a lint rule change, a research
question, a proposal's pros and cons (10, 33 and 51 kB)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the shared corpus folder")
    parser.add_argument("--keep", type=Path, help="make the vault here and keep it (to read)")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    files = [args.corpus / name for name in CONVERSATIONS]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"corpus files missing: {', '.join(missing)}; pass --corpus")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        vault = init_vault(args.keep or Path(tmp) / "vault").vault
        with Ledger(vault.ledger_path) as ledger:
            ingest(vault, ledger, files)
        settings = replace(Settings(vault=vault.root), model=args.spec, keep_model_resident=True)
        with App(vault, settings) as app:
            started = time.perf_counter()
            report = run_night(app)
            wall = time.perf_counter() - started
            loaded = load_seconds(args.spec)
            ledger = app.ledger
            usage = model_calls.usage(ledger, report.run_id)
            convs = conversations.by_updated(ledger)
            chunk_count = sum(len(chunks.of_conversation(ledger, c.id)) for c in convs)
    print(f"{args.spec}: {len(convs)} conversations, {chunk_count} chunks, "
          f"{sum(c.message_count for c in convs)} messages")  # fmt: skip
    for s in report.stages:
        print(f"  {s.stage}: {s.done} done, {len(s.failures)} failed")
    per = max(chunk_count, 1)
    for stage, u in usage.items():
        computed = u["prompt_tokens"] - u["cached_tokens"]
        print(f"  {stage}: {u['calls']} calls ({u['calls'] / per:.1f} a chunk), "
              f"{u['prompt_tokens']} prompt tokens ({u['prompt_tokens'] / per:.0f} a chunk), "
              "computed/sent "
              f"{computed / max(u['prompt_tokens'], 1):.2f}, {u['generated_tokens']} generated, "
              f"{u['seconds']:.1f} s, {u['errors']} errors")  # fmt: skip
    calls = sum(u["calls"] for u in usage.values())
    prompt = sum(u["prompt_tokens"] for u in usage.values())
    cached = sum(u["cached_tokens"] for u in usage.values())
    calls_s = sum(u["seconds"] for u in usage.values())
    model_s = calls_s + (loaded or 0.0)
    rest = wall - model_s
    ratio = (prompt - cached) / max(prompt, 1)
    print(f"all: {calls} calls ({calls / per:.1f} a chunk), {prompt} prompt tokens "
          f"({prompt / per:.0f} a chunk), computed/sent {ratio:.2f}")  # fmt: skip
    print(f"wall {wall:.1f} s = model {model_s:.1f} s (calls {calls_s:.1f} s, load "
          f"{loaded or 0:.1f} s) + rest "
          f"{rest:.1f} s ({rest / max(wall, 1e-9):.1%}; goal < 5 %)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
