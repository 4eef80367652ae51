"""Watcher benchmark: the real `dreaming watch` process on a fresh vault.

    python bench/bench_watch.py [--drops 100] [--burst 1000] [--idle 60]

Prints the CPU, then:
- drop → ingested latency over --drops single drops, p50 and p95 (goal p50 < 1 s,
  debounce included): from the file's rename into Raw/ to its ledger row being `ok`
- a burst of --burst files dropped at once: seconds until every one is ingested, per
  file, and divided by `dreaming ingest` of the same files in one run (the watcher's
  overhead over a plain ingest)
- Meta edit → policy reloaded (the heartbeat's last event names the page; goal < 0.5 s)
- the idle watcher over --idle seconds: CPU share and peak RSS (goals < 1 %, < 150 MB)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402

DREAMING = [sys.executable, "-m", "watcher.cli"]


def transcript(n: int) -> str:
    return (
        f"---\ntitle: Drop {n}\ndate: 2026-01-02\n---\n\n"
        f"## user\n\nHow do I rotate logs in service number {n}?\n\n"
        f"## assistant\n\nUse a rotating handler; keep five files of one megabyte ({n}).\n\n"
    )


def put(raw: Path, name: str, text: str) -> Path:
    """Drop a file as a copy does: written aside, renamed in (one event, whole file)."""
    aside = raw.parent / ".bench-tmp"
    aside.mkdir(exist_ok=True)
    tmp = aside / name
    tmp.write_text(text, encoding="utf-8")
    target = raw / name
    os.replace(tmp, target)
    return target


def ledger_states(vault: Path) -> Callable[[], dict[str, str]]:
    db_path = vault / ".dreaming" / "ledger.sqlite"

    def states() -> dict[str, str]:
        if not db_path.exists():
            return {}
        try:
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
            try:
                return dict(db.execute("SELECT path, status FROM raw_files").fetchall())
            finally:
                db.close()
        except sqlite3.Error:
            return {}

    return states


def wait_for(check: Callable[[], bool], deadline: float, poll: float = 0.005) -> float:
    """Seconds until `check()` holds (raises after `deadline` seconds)."""
    start = time.perf_counter()
    while not check():
        if time.perf_counter() - start > deadline:
            raise TimeoutError("the watcher did not react in time")
        time.sleep(poll)
    return time.perf_counter() - start


def heartbeat(vault: Path) -> dict[str, object]:
    try:
        doc = json.loads((vault / ".dreaming" / "watch.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def start_watcher(vault: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*DREAMING, "watch", "--vault", str(vault)], stdout=out, stderr=out, env=env
        )
    wait_for(lambda: heartbeat(vault).get("pid") == proc.pid, 60, poll=0.05)
    return proc


def rss_and_cpu(pid: int) -> tuple[float, float]:
    """(RSS in MB, CPU seconds used so far) of a running process: from /proc where there
    is one (clock ticks), else from ps (whole seconds only)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        fields = stat.read_text(encoding="ascii").rpartition(")")[2].split()
        ticks = os.sysconf("SC_CLK_TCK")
        pages = int(Path(f"/proc/{pid}/statm").read_text(encoding="ascii").split()[1])
        rss_mb = pages * os.sysconf("SC_PAGE_SIZE") / 1024 / 1024
        return rss_mb, (int(fields[11]) + int(fields[12])) / ticks
    out = subprocess.run(
        ["ps", "-o", "rss=,time=", "-p", str(pid)], capture_output=True, text=True, check=True
    ).stdout.split()
    rss_kb, used = int(out[0]), out[1]
    days, _, clock = used.rpartition("-")
    parts = [float(p) for p in clock.split(":")]
    seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    return rss_kb / 1024, seconds + (int(days) * 86400 if days else 0)


def drops(vault: Path, count: int) -> list[float]:
    states = ledger_states(vault)
    took = []
    for n in range(count):
        name = f"drop-{n:04d}.md"
        put(vault / "Raw", name, transcript(n))
        took.append(wait_for(lambda name=name: states().get(f"Raw/{name}") == "ok", 30))
    return took


def burst(vault: Path, count: int) -> float:
    states = ledger_states(vault)
    folder = vault / "Raw" / "burst"
    folder.mkdir()
    start = time.perf_counter()
    for n in range(count):
        (folder / f"b-{n:04d}.md").write_text(transcript(10_000 + n), encoding="utf-8")

    def all_in() -> bool:
        done = states()
        return sum(1 for k, v in done.items() if k.startswith("Raw/burst/") and v == "ok") == count

    wait_for(all_in, 600, poll=0.05)
    return time.perf_counter() - start


def plain_ingest(count: int, scratch: Path) -> float:
    vault = scratch / "plain"
    subprocess.run([*DREAMING, "init", str(vault)], check=True, capture_output=True)
    folder = vault / "Raw" / "burst"
    folder.mkdir()
    for n in range(count):
        (folder / f"b-{n:04d}.md").write_text(transcript(10_000 + n), encoding="utf-8")
    start = time.perf_counter()
    subprocess.run([*DREAMING, "ingest", "--vault", str(vault)], check=True, capture_output=True)
    return time.perf_counter() - start


def meta_reload(vault: Path) -> float:
    page = vault / "Meta" / "Topics_to_Ignore.md"
    text = page.read_text(encoding="utf-8")

    def reloaded() -> bool:
        event = heartbeat(vault).get("last_event")
        return isinstance(event, dict) and event.get("path") == "Meta/Topics_to_Ignore.md"

    page.write_text(text.replace("# <topic phrase>", "# <topic phrase>\n# <other phrase>"))
    return wait_for(reloaded, 10)


def idle(pid: int, seconds: float) -> tuple[float, float]:
    rss0, cpu0 = rss_and_cpu(pid)
    peak = rss0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        time.sleep(1)
        peak = max(peak, rss_and_cpu(pid)[0])
    wall = time.perf_counter() - start
    rss1, cpu1 = rss_and_cpu(pid)
    return (cpu1 - cpu0) / wall, max(peak, rss1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drops", type=int, default=100)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=60)
    args = parser.parse_args()
    print(f"CPU: {cpu()}")
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        scratch = Path(tmp)
        vault = scratch / "vault"
        subprocess.run([*DREAMING, "init", str(vault)], check=True, capture_output=True)
        proc = start_watcher(vault, scratch / "watch.log")
        try:
            took = sorted(drops(vault, args.drops))
            p50 = statistics.median(took)
            p95 = took[min(len(took) - 1, round(0.95 * (len(took) - 1)))]
            print(f"drop → ingested over {len(took)} drops: p50 {p50:.3f} s, p95 {p95:.3f} s")
            reload_s = meta_reload(vault)
            print(f"Meta edit → reloaded: {reload_s:.3f} s")
            cpu_share, peak = idle(proc.pid, args.idle)
            print(f"idle {args.idle:.0f} s: CPU {cpu_share:.2%}, peak RSS {peak:.0f} MB")
            burst_s = burst(vault, args.burst)
            rss, _ = rss_and_cpu(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(60)
        plain_s = plain_ingest(args.burst, scratch)
        print(
            f"burst of {args.burst}: {burst_s:.2f} s, {burst_s / args.burst * 1000:.2f} ms a file; "
            f"÷ dreaming ingest of the same files ({plain_s:.2f} s): {burst_s / plain_s:.2f}"
        )
        print(f"watcher RSS after the burst: {rss:.0f} MB; exit code on SIGTERM: {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
