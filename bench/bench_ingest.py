"""Ingest benchmark: ratios measured side by side in one run.

    python bench/bench_ingest.py [--corpus ../shared/corpus] [--big-mb 500]

Prints:
- the CPU model (from /proc/cpuinfo)
- ingest time of one Claude Code session at 1x, 4x and 16x its size, each divided by
  (size multiple x the 1x time) (goal: about 1, linear)
- peak memory (max RSS) of an ingest process on a tool-output-heavy session of 50 MB
  and of --big-mb MB (goal: about the same, memory flat in file size)
- corpus ingest time ÷ time to merely read and JSON-decode the same bytes (goal < 3)
- unchanged re-ingest time ÷ first ingest time, and ledger rows written (goal < 0.10, 0)
- `dreaming init` seconds (goal < 1)
- one 10 MB Claude Code session: ingest seconds (goal < 2)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.ledger import Ledger  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402


def decode_only(files: list[Path]) -> float:
    """The floor: read every byte and JSON-decode what is JSON, nothing else."""
    start = time.perf_counter()
    for path in files:
        data = path.read_bytes()
        if path.suffix == ".jsonl":
            for line in data.splitlines():
                if line.strip():
                    with contextlib.suppress(ValueError):
                        json.loads(line)
        elif path.suffix == ".json":
            json.loads(data)
        else:
            data.decode("utf-8", errors="replace")
    return time.perf_counter() - start


def synthetic_claude_session(path: Path, target_bytes: int) -> int:
    """A Claude Code session JSONL of about `target_bytes`, in the real record shape."""
    rng = random.Random(7)
    words = ["the", "model", "file", "test", "run", "vault", "note", "cache", "index", "fix"]
    session = "0f0e0d0c-0b0a-4909-8807-060504030201"
    parent = None
    n = 0
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < target_bytes:
            uid = f"{n:08x}-0000-4000-8000-000000000000"
            ts = f"2026-01-01T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"
            text = " ".join(rng.choice(words) for _ in range(rng.randint(20, 400)))
            if n % 2 == 0:
                message = {"role": "user", "content": text}
                kind = "user"
            else:
                message = {
                    "model": "claude-x",
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": text},
                        {
                            "type": "tool_use",
                            "id": f"t{n}",
                            "name": "Bash",
                            "input": {"command": "ls -la"},
                        },
                    ],
                }
                kind = "assistant"
            record = {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/work",
                "sessionId": session,
                "version": "2.1.0",
                "type": kind,
                "message": message,
                "uuid": uid,
                "timestamp": ts,
            }
            f.write(json.dumps(record) + "\n")
            parent = uid
            n += 1
    return n


def tool_heavy_session(path: Path, target_bytes: int) -> None:
    """A session as real ones are: most bytes are tool output and file snapshots."""
    session = "0e0e0d0c-0b0a-4909-8807-060504030201"
    output = "".join(f"line {i}: some tool output here\n" for i in range(1500))  # ~45 kB
    n = 0
    with path.open("w", encoding="utf-8") as f:
        while f.tell() < target_bytes:
            base = {"sessionId": session, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
            f.write(
                json.dumps(
                    base
                    | {
                        "type": "user",
                        "uuid": f"u{n}",
                        "message": {"role": "user", "content": f"please look at file {n}"},
                    }
                )
                + "\n"
            )
            f.write(
                json.dumps(
                    base
                    | {
                        "type": "assistant",
                        "uuid": f"a{n}",
                        "message": {
                            "role": "assistant",
                            "id": f"m{n}",
                            "content": [
                                {"type": "text", "text": f"Reading file {n}."},
                                {
                                    "type": "tool_use",
                                    "id": f"t{n}",
                                    "name": "Read",
                                    "input": {"file_path": f"/w/f{n}.py"},
                                },
                            ],
                        },
                    }
                )
                + "\n"
            )
            f.write(
                json.dumps(
                    base
                    | {
                        "type": "user",
                        "uuid": f"r{n}",
                        "message": {
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
                            ],
                        },
                    }
                )
                + "\n"
            )
            if n % 10 == 0:
                f.write(
                    json.dumps(
                        {
                            "type": "file-history-snapshot",
                            "messageId": f"m{n}",
                            "snapshot": {"files": output},
                        }
                    )
                    + "\n"
                )
            n += 1  # fmt: skip


_CHILD = """
import resource, sys
from pathlib import Path
from stages.jobs.ingest import ingest
from dreaming.ledger import Ledger
from dreaming.vault import Vault
vault = Vault.open(sys.argv[1])
with Ledger(vault.ledger_path) as ledger:
    report = ingest(vault, ledger, max_file_bytes=2**40)
assert report.conversations_new == 1, report
# VmHWM is this process's own peak; ru_maxrss on Linux keeps the parent's peak across exec.
status = Path("/proc/self/status")
if status.exists():
    print(next(ln.split()[1] for ln in status.read_text().splitlines() if ln.startswith("VmHWM")))
else:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)  # bytes on macOS
"""


def peak_rss_mb(work: Path, name: str, size_mb: int) -> float:
    """Max RSS of a fresh process that ingests one session of `size_mb` MB."""
    vault = init_vault(work / name).vault
    tool_heavy_session(vault.raw / "session.jsonl", size_mb * 1000 * 1000)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(vault.root)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return int(done.stdout.split()[-1]) / 1024  # kB


def linearity(work: Path, base_mb: int) -> None:
    """Ingest time at 1x, 4x, 16x the size, best of three each, in one run."""
    times: dict[int, float] = {}
    for k in (1, 4, 16):
        session = work / f"lin{k}.jsonl"
        synthetic_claude_session(session, k * base_mb * 1024 * 1024)
        best = []
        for n in range(3):
            (work / f"lin{k}-{n}" / "Raw").mkdir(parents=True)
            shutil.copyfile(session, work / f"lin{k}-{n}" / "Raw" / "session.jsonl")
            best.append(timed_ingest(work / f"lin{k}-{n}")[0])
        times[k] = min(best)
    print(
        "ingest time, one session at "
        + ", ".join(f"{k * base_mb} MB: {t:.3f} s" for k, t in times.items())
    )
    print(
        "time / (size multiple x time at 1x): "
        + ", ".join(f"{k}x: {t / (k * times[1]):.2f}" for k, t in times.items())
        + " (goal about 1: linear)"
    )


def timed_ingest(vault_root: Path) -> tuple[float, int, object]:
    vault = init_vault(vault_root).vault
    with Ledger(vault.ledger_path) as ledger:
        before = ledger.db.total_changes
        start = time.perf_counter()
        report = ingest(vault, ledger)
        return time.perf_counter() - start, ledger.db.total_changes - before, report


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--big-mb", type=int, default=500, help="the large session's size")
    parser.add_argument("--base-mb", type=int, default=2, help="the 1x size for linearity")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dreaming-bench-"))
    print(f"cpu: {cpu()}")
    try:
        linearity(work, args.base_mb)
        small = peak_rss_mb(work, "rss-small", 50)
        big = peak_rss_mb(work, "rss-big", args.big_mb)
        print(
            f"ingest peak RSS: {small:.0f} MB for a 50 MB session, {big:.0f} MB for a "
            f"{args.big_mb} MB one; ratio {big / small:.2f} (goal about 1: flat)"
        )
        shutil.rmtree(work / "rss-big")
        start = time.perf_counter()
        init_vault(work / "init-only")
        init_s = time.perf_counter() - start
        print(f"init: {init_s:.3f} s (goal < 1 s)")

        session = work / "session.jsonl"
        records = synthetic_claude_session(session, 10 * 1024 * 1024)
        for n in range(3):
            (work / f"big{n}" / "Raw").mkdir(parents=True)
            shutil.copyfile(session, work / f"big{n}" / "Raw" / "session.jsonl")
        big_s = min(timed_ingest(work / f"big{n}")[0] for n in range(3))
        print(f"one 10 MB Claude Code session ({records} records): {big_s:.3f} s (goal < 2 s)")

        if not args.corpus.is_dir():
            print(f"corpus ratios: skipped ({args.corpus} is absent)")
            return 0
        for n in range(3):
            shutil.copytree(args.corpus, work / f"corpus{n}" / "Raw")
            (work / f"corpus{n}" / "Raw" / "SOURCES.md").unlink(missing_ok=True)
        files = sorted(p for p in (work / "corpus0" / "Raw").rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in files)
        # Best of three on both sides: the ratio should not depend on a busy neighbour.
        floor_s = min(decode_only(files) for _ in range(3))
        trials = [timed_ingest(work / f"corpus{n}") for n in range(3)]
        first_s, first_rows, report = min(trials, key=lambda t: t[0])
        vault = init_vault(work / "corpus0").vault
        again = []
        with Ledger(vault.ledger_path) as ledger:
            for _ in range(3):
                before = ledger.db.total_changes
                start = time.perf_counter()
                ingest(vault, ledger)
                again.append((time.perf_counter() - start, ledger.db.total_changes - before))
        again_s = min(t for t, _ in again)
        again_rows = max(r for _, r in again)
        print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB, {report}")
        print(
            f"read+decode floor: {floor_s:.3f} s; first ingest: {first_s:.3f} s "
            f"({first_rows} rows written)"
        )
        print(f"ratio ingest / read+decode: {first_s / floor_s:.2f} (goal < 3)")
        print(
            f"ratio unchanged re-ingest / first: {again_s / first_s:.4f} (goal < 0.10), "
            f"rows written: {again_rows} (goal 0)"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
