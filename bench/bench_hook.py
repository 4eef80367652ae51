"""Capture hook benchmark: the hook's wall time as Claude Code runs it, beside plain `cp`.

    python bench/bench_hook.py [--corpus ../shared/corpus] [--mb 10] [--runs 40]

Prints:
- the CPU model
- the hook's wall time p50 / p95 over --runs firings for a --mb MB session with two
  subagent files, each run a fresh copy (the Raw copy removed between runs), run exactly
  as the host runs it: the settings' command through `sh -c`, the SessionEnd JSON on stdin
  (goal: p95 < 200 ms)
- the same for a firing with nothing new (the copy already there)
- `cp` of the same session file through `sh -c`, p50 / p95, and hook p50 ÷ cp p50
- `python -I -S -c pass` p50: the interpreter's own start, the floor of the hook
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.capture.hostfile import hook_argv, shell_command  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402

SESSION = "3f1e2d3c-4b5a-4697-8887-96a5b4c3d2e1"
FIXTURE = ROOT / "tests" / "fixtures" / "raw" / "claude-code"


def source_lines(corpus: Path) -> list[bytes]:
    """Real Claude Code records: the corpus's sessions, else the project's fixture."""
    found = sorted((corpus / "claude-code").glob("*/*.jsonl")) if corpus.is_dir() else []
    files = found or sorted(FIXTURE.glob("*.jsonl"))
    return [line for f in files for line in f.read_bytes().splitlines(keepends=True) if line]


def make_session(folder: Path, lines: list[bytes], size: int) -> Path:
    """A session of about `size` bytes made by repeating real records, with two subagents."""
    folder.mkdir(parents=True)
    path = folder / f"{SESSION}.jsonl"
    with path.open("wb") as f:
        i = 0
        while f.tell() < size:
            f.write(lines[i % len(lines)])
            i += 1
    subagents = folder / SESSION / "subagents"
    subagents.mkdir(parents=True)
    for n in range(2):
        (subagents / f"agent-a{n:016x}.jsonl").write_bytes(b"".join(lines[:50]))
    return path


def timed(argv: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, check=True, capture_output=True, timeout=60, env=env)
    return time.perf_counter() - start


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--mb", type=float, default=10)
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    print(cpu())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        vault = init_vault(root / "vault").vault
        folder = root / "home" / ".claude" / "projects" / "-bench"
        session = make_session(folder, source_lines(args.corpus), int(args.mb * (1 << 20)))
        size = session.stat().st_size
        command = shell_command(hook_argv("claude-code", vault.root))
        payload = json.dumps(
            {
                "session_id": SESSION,
                "transcript_path": str(session),
                "cwd": "/bench",
                "hook_event_name": "SessionEnd",
                "reason": "prompt_input_exit",
            }
        ).encode()
        copy = vault.raw / "claude-code" / "-bench"
        # The hook copies only from the host's own folder: this run's ~/.claude/projects.
        env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
        env["HOME"] = str(root / "home")
        fresh, again, cp = [], [], []
        for _ in range(args.runs):
            shutil.rmtree(copy, ignore_errors=True)
            fresh.append(timed(["sh", "-c", command], payload, env))
            again.append(timed(["sh", "-c", command], payload, env))
            target = root / "cp.jsonl"
            target.unlink(missing_ok=True)
            cp.append(timed(["sh", "-c", f"cp {session} {target}"]))
        assert (copy / session.name).read_bytes() == session.read_bytes()
        start = [timed([sys.executable, "-I", "-S", "-c", "pass"]) for _ in range(args.runs)]
    print(f"session: {size / 1e6:.1f} MB and 2 subagent files; {args.runs} runs each")
    print(f"hook, a fresh copy:    p50 {p(fresh, 0.5):6.1f} ms   p95 {p(fresh, 0.95):6.1f} ms")
    print(f"hook, nothing new:     p50 {p(again, 0.5):6.1f} ms   p95 {p(again, 0.95):6.1f} ms")
    print(f"cp of the session:     p50 {p(cp, 0.5):6.1f} ms   p95 {p(cp, 0.95):6.1f} ms")
    print(f"python -I -S start:    p50 {p(start, 0.5):6.1f} ms")
    ratio = statistics.median(fresh) / statistics.median(cp)
    print(f"hook p50 / cp p50: {ratio:.2f}  (goal: hook p95 < 200 ms)")


if __name__ == "__main__":
    main()
