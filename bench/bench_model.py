"""Model seam benchmark: per installed preset and backend, in one run, side by side.

Prints load seconds, prompt and generation tok/s, peak RSS (each measured in a fresh
subprocess so RSS is clean), the prefix-cache ratio — prompt tokens computed ÷ prompt
tokens sent over 20 same-stage calls sharing a ~1500-token system text (goal <= 0.5) —
the mlx-cpu vs gguf speed ratio where a llama.cpp binding is importable, and what holding
yes/no answers to a Choice constraint costs (the same answers, free and constrained).

    python bench/bench_model.py                       # every installed preset
    python bench/bench_model.py --presets smollm2-135m --calls 5
    python bench/bench_model.py --llama-site /tmp/llamavenv/lib/python3.11/site-packages

`--llama-site` adds a folder to the gguf child's sys.path, so llama-cpp-python or
ik-llama-cpp-python can live in a throwaway venv instead of the project's. The BLAS
mlx runs on is whatever `dreaming.model.backends.blas` picks (set DREAMING_BLAS to
choose) and is printed per row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402

SPEED_CAP = 64
"""Tokens of the one timed answer: enough for a steady generation rate."""
ANSWER_CAP = 8
"""Tokens per answer in the cache sequence: it measures prompt reuse, not generation."""

POLICY_RULES = [
    "Every claim in an article cites the conversation it came from with a footnote.",
    "An article is about one subject; mentions of other subjects become wikilinks.",
    "The latest statement wins; an earlier position moves to the History section.",
    "Never invent facts that the conversation does not state outright.",
    "Names are written as the person writes them, with their aliases kept as redirects.",
    "A section holds one aspect of the subject: background, use, opinions, plans.",
    "Dates are ISO 8601; relative dates are resolved against the conversation's date.",
    "Quotes are short and attributed; paraphrase anything longer than one sentence.",
]


def policy_system(target_words: int = 1100) -> str:
    """A schematic policy page of about 1500 tokens, like the Meta pages a stage inlines."""
    lines = ["You extract facts for a personal wiki. Follow the editorial policy below.", ""]
    n = 0
    while sum(len(line.split()) for line in lines) < target_words:
        rule = POLICY_RULES[n % len(POLICY_RULES)]
        lines.append(f"Rule {n + 1}. {rule} (Applies to section {n % 7 + 1} of the policy.)")
        n += 1
    lines += ["", "Answer with one line: the subject, a colon, and the fact."]
    return "\n".join(lines)


def chunk(i: int) -> str:
    topics = ["a sourdough starter", "the Rust borrow checker", "a trip to Lisbon", "a used bike"]
    return (
        f"Conversation chunk {i}: the user said they spent the weekend on {topics[i % 4]}, "
        f"that it took {i + 2} hours, and that they would try again next month. "
        "What is the main fact?"
    )


PROBES = [
    "Is Paris the capital of France?",
    "Is the Pacific the smallest ocean?",
    "Does Python use indentation for blocks?",
    "Is 17 an even number?",
    "Is the sun a star?",
    "Can fish fly?",
]
PROBE_SYSTEM = "Answer the question with yes or no."


def peak_rss_mb() -> float:
    """This process's own peak (VmHWM): ru_maxrss keeps the parent's peak across exec."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def choice_overhead(model: Any) -> dict[str, Any]:
    """Seconds of the same yes/no answers free and held to a Choice of the model's own
    free answer (so the same tokens), each prompt cached for both, which of the two goes
    first alternating, so that load from other processes falls on both alike."""
    from dreaming.model import ModelCallError
    from dreaming.model.constraint import Choice

    seconds = {"free": 0.0, "held": 0.0}
    answers = []
    for i, probe in enumerate(PROBES):
        try:
            option = model.complete("probe", PROBE_SYSTEM, probe).text.strip()
        except ModelCallError:
            continue  # prose past the cap: no one answer to hold it to
        choice = Choice((option, "-" if option != "-" else "+"))
        for kind in ("free", "held") if i % 2 == 0 else ("held", "free"):
            constraint = choice if kind == "held" else None
            answer = model.complete("probe", PROBE_SYSTEM, probe, constraint=constraint)
            seconds[kind] += answer.usage.seconds
        answers.append(option)
    return {
        "probe_free_s": seconds["free"],
        "probe_held_s": seconds["held"],
        "probe_answers": answers,
    }


def child(spec: str, calls: int, cache_dir: Path | None) -> dict[str, Any]:
    """One backend in this process: load, one completion, then the cache sequence."""
    import dreaming.model.backends.gguf as gguf_backend
    import dreaming.model.backends.mlx as mlx_backend
    from dreaming.errors import ModelError
    from dreaming.model import ModelCallError, Usage, load
    from dreaming.model.backends.blas import prepare

    blas = prepare() if spec.startswith("mlx:") else f"{gguf_backend.engine_name()} (own kernels)"
    model = load(spec, cache_dir=cache_dir)
    started = time.perf_counter()
    model.warm()  # type: ignore[attr-defined]
    load_seconds = time.perf_counter() - started

    def capped(cap: int, stage: str, system: str | None, user: str) -> Usage:
        # A capped answer fails as a runaway, but its usage was measured all the same.
        mlx_backend.MAX_OUTPUT_TOKENS = gguf_backend.MAX_OUTPUT_TOKENS = cap
        try:
            return model.complete(stage, system, user).usage
        except ModelCallError as e:
            return e.usage or Usage()

    try:
        single = capped(SPEED_CAP, "speed", None, "Explain why the sky is blue, for a child.")
    except ModelError as e:
        return {"spec": spec, "error": str(e)}
    prompt_rate, gen_rate = single.rates()

    sent = computed = 0
    prefill_rate = None
    system = policy_system()
    sequence_started = time.perf_counter()
    for i in range(calls):
        usage = capped(ANSWER_CAP, "extract", system, chunk(i))
        if i == 0:  # nothing cached yet: the whole ~1.5k-token prompt is computed
            prefill_rate = usage.rates()[0]
        sent += usage.prompt_tokens
        computed += usage.computed_prompt_tokens
    sequence_seconds = time.perf_counter() - sequence_started
    mlx_backend.MAX_OUTPUT_TOKENS = gguf_backend.MAX_OUTPUT_TOKENS = SPEED_CAP
    probes = choice_overhead(model)
    return {
        "spec": spec,
        "blas": blas,
        "load_s": load_seconds,
        "prompt_tps": prompt_rate,
        "prefill_tps": prefill_rate,
        "gen_tps": gen_rate,
        "single_prompt_tokens": single.prompt_tokens,
        "single_generated": single.generated_tokens,
        "calls": calls,
        "sent": sent,
        "computed": computed,
        "ratio": computed / sent if sent else None,
        "sequence_s": sequence_seconds,
        "peak_rss_mb": peak_rss_mb(),
        **probes,
    }


def run_child(spec: str, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ)
    if spec.startswith("gguf:") and args.llama_site:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), args.llama_site]))
    command = [sys.executable, __file__, "--child", spec, "--calls", str(args.calls)]
    if args.cache_dir:
        command += ["--cache-dir", str(args.cache_dir)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"spec": spec, "error": tail[0]}


def overhead(r: dict[str, Any]) -> float | None:
    free, held = r.get("probe_free_s"), r.get("probe_held_s")
    return held / free - 1 if free and held else None


def fmt(value: Any, spec: str = ".1f") -> str:
    return "—" if value is None else format(value, spec)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", help="comma-separated; default: every installed preset")
    parser.add_argument("--backends", default="mlx,gguf")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--llama-site", help="folder holding llama_cpp, added for gguf runs")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(child(args.child, args.calls, args.cache_dir)))
        return 0

    from dreaming.model import list_presets

    installed = [p.name for p in list_presets(args.cache_dir) if p.installed]
    presets = args.presets.split(",") if args.presets else installed
    results = []
    for preset in presets:
        for backend in args.backends.split(","):
            spec = f"{backend}:{preset}"
            print(f"… {spec}", file=sys.stderr, flush=True)
            results.append(run_child(spec, args))

    print(f"cpu: {cpu()}")
    print(
        f"{'spec':28} {'load s':>6} {'prompt t/s':>10} {'1.5k t/s':>8} {'gen t/s':>7} "
        f"{'peak RSS':>9} {'cache ratio':>11} {'seq s':>6} {'choice cost':>11}"
    )
    for r in results:
        if "error" in r:
            print(f"{r['spec']:28} not measured: {r['error']}")
            continue
        print(
            f"{r['spec']:28} {fmt(r['load_s']):>6} {fmt(r['prompt_tps']):>10} "
            f"{fmt(r['prefill_tps']):>8} {fmt(r['gen_tps']):>7} "
            f"{fmt(r['peak_rss_mb'], '.0f') + ' MB':>9} "
            f"{fmt(r['ratio'], '.3f'):>11} {fmt(r['sequence_s'], '.0f'):>6} "
            f"{fmt(overhead(r), '+.1%'):>11}"
        )
    by_spec_all = {r["spec"]: r for r in results}
    by_spec = {k: r for k, r in by_spec_all.items() if "error" not in r}
    print()
    for preset in presets:
        mlx, gguf = by_spec.get(f"mlx:{preset}"), by_spec.get(f"gguf:{preset}")
        if mlx and gguf and mlx["gen_tps"] and gguf["gen_tps"]:
            gen = gguf["gen_tps"] / mlx["gen_tps"]
            prompt = gguf["prompt_tps"] / mlx["prompt_tps"]
            print(f"{preset}: gguf/mlx-cpu speed: generation {gen:.2f}x, prompt {prompt:.2f}x")
        else:
            why = [
                f"{b}:{preset} " + (r["error"] if r else "not in this run")
                for b, r in (
                    ("mlx", by_spec_all.get(f"mlx:{preset}")),
                    ("gguf", by_spec_all.get(f"gguf:{preset}")),
                )
                if not r or "error" in r
            ]
            why = why or ["a backend generated no tokens to the speed prompt"]
            print(f"{preset}: gguf/mlx ratio not measured: {'; '.join(why)}")
    blas = {r.get("blas") for r in results if r.get("spec", "").startswith("mlx:")} - {None}
    for line in sorted(blas):
        print(f"mlx BLAS: {line}")
    print("prompt t/s: a ~40-token prompt, first-token latency included; 1.5k t/s: the first")
    print("call of the cache sequence, uncached. cache ratio: prompt tokens computed ÷ sent over")
    print(f"{args.calls} same-stage calls sharing a ~1.5k-token system text (goal <= 0.5).")
    print("choice cost: seconds of yes/no probes held to a Choice of the model's own free")
    print("answer, over the same probes free (the same tokens; goal: a few percent)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
