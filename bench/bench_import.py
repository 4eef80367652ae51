"""History import benchmark: ratios measured side by side in one run.

    python bench/bench_import.py [--corpus ../shared/corpus] [--files 10000] [--export-mb 150]

Prints:
- the CPU model (from /proc/cpuinfo)
- the copy phase of `dreaming import` (finding the files, the cursor, atomic copies with
  a sync per batch; no INGEST) against `cp -r` and `shutil.copytree` of the same tree,
  best of 3, on the corpus's Claude Code projects copied 8 times and on --files small
  sessions: `cp -r` seconds ÷ import seconds (goal ≥ 0.5); `cp -r` then `sync` for
  reference (the import's copies are on disk when it ends, cp's are not)
- peak memory (max RSS, a child process each) of a whole `dreaming import` (copy and
  INGEST) of 1,000 and of --files small sessions (goal flat, < 200 MB)
- a ChatGPT export of --export-mb MB: peak memory and seconds of splitting it into one
  file per conversation against reading it whole as one transcript (why it is split)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.importing import parse_source, plan, run_import  # noqa: E402
from dreaming.ledger import Ledger  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from tests.import_support import chatgpt_conversation, claude_session, session_id  # noqa: E402


def best(runs: int, fn: Callable[[int], float]) -> float:
    return min(fn(i) for i in range(runs))


def copy_phase(src: Path, scratch: Path) -> tuple[float, float, float, float]:
    """(cp -r, cp -r + sync, copytree, import without INGEST) seconds, best of 3."""

    def cp(i: int, then_sync: bool = False) -> float:
        dst = scratch / f"cp{i}{then_sync}"
        start = time.perf_counter()
        subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
        if then_sync:
            subprocess.run(["sync"], check=True)
        took = time.perf_counter() - start
        shutil.rmtree(dst)
        return took

    def copytree(i: int) -> float:
        dst = scratch / f"tree{i}"
        start = time.perf_counter()
        shutil.copytree(src, dst)
        took = time.perf_counter() - start
        shutil.rmtree(dst)
        return took

    def dreaming_import(i: int) -> float:
        vault = init_vault(scratch / f"vault{i}").vault
        with Ledger(vault.ledger_path) as ledger:
            start = time.perf_counter()
            plans = [plan(parse_source(f"claude-code={src}"))]
            report = run_import(vault, ledger, plans)
            took = time.perf_counter() - start
        assert report.copied == sum(1 for p in src.rglob("*") if p.is_file())
        shutil.rmtree(vault.root)
        return took

    subprocess.run(["sync"], check=True)
    return (
        best(3, cp),
        best(3, lambda i: cp(i, then_sync=True)),
        best(3, copytree),
        best(3, dreaming_import),
    )


def small_sessions(root: Path, count: int) -> Path:
    """`count` small Claude Code sessions in projects of 500, as ~/.claude/projects holds them."""
    for n in range(count):
        folder = root / f"-home-ada-src-project-{n // 500}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id(n)}.jsonl").write_text(claude_session(session_id(n)))
    return root


def import_peak_mb(src: Path, scratch: Path, name: str) -> tuple[float, float]:
    """(peak RSS MB, seconds) of `dreaming import` with INGEST in a child of a fresh
    process, so RUSAGE_CHILDREN holds that import alone."""
    vault = init_vault(scratch / name).vault
    code = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "took = time.perf_counter() - start\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, took)\n"
    )
    command = [sys.executable, "-m", "watcher.cli", "import", f"claude-code={src}"]
    run = subprocess.run(
        [sys.executable, "-c", code, *command, "--vault", str(vault.root)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    peak, took = run.stdout.split()
    return float(peak), float(took)


def export_file(path: Path, target_mb: int) -> int:
    """A conversations.json of about `target_mb` MB; how many conversations it holds."""
    n = 0
    with path.open("w", encoding="utf-8") as f:
        f.write("[\n")
        while f.tell() < target_mb * 1_000_000:
            if n:
                f.write(",\n")
            f.write(json.dumps(chatgpt_conversation(n, 1_746_100_000.0, turns=60), indent=2))
            n += 1
        f.write("\n]\n")
    return n


SPLIT = """
import resource, sys, time
from pathlib import Path
path = Path(sys.argv[2])
start = time.perf_counter()
if sys.argv[1] == "split":
    from dreaming.importing.chatgpt_export import ReadCount, conversations, json_export
    n = sum(1 for _ in conversations(json_export(path, path.stat()), ReadCount(), 1 << 31))
else:
    from dreaming.raw import read_transcript
    n = len(read_transcript(path, max_bytes=1 << 31).conversations)
took = time.perf_counter() - start
print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, took)
"""


def split_or_whole(how: str, path: Path) -> tuple[int, float, float]:
    run = subprocess.run(
        [sys.executable, "-c", SPLIT, how, str(path)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    n, peak, took = run.stdout.split()
    return int(n), float(peak), float(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--export-mb", type=int, default=150)
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        scratch = Path(tmp)
        trees: list[tuple[str, Path]] = []
        projects = args.corpus / "claude-code"
        if projects.is_dir():
            corpus = scratch / "corpus-x8"
            for i in range(8):
                shutil.copytree(projects, corpus / f"copy{i}")
            trees.append(("corpus claude-code x8", corpus))
        else:
            print(f"(no {projects}: the corpus row is left out)")
        many = small_sessions(scratch / "small", args.files)
        trees.append((f"{args.files} small sessions", many))
        for label, tree in trees:
            files = [p for p in tree.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files) / 1e6
            cp, cp_sync, copytree, imported = copy_phase(tree, scratch)
            print(
                f"{label} ({len(files)} files, {size:.1f} MB): import {imported:.2f} s, "
                f"cp -r {cp:.2f} s, cp -r + sync {cp_sync:.2f} s, copytree {copytree:.2f} s; "
                f"cp -r / import = {cp / imported:.2f} (goal >= 0.5), "
                f"cp -r + sync / import = {cp_sync / imported:.2f}"
            )
        few = small_sessions(scratch / "few", 1000)
        peak_few, took_few = import_peak_mb(few, scratch, "v-few")
        peak_many, took_many = import_peak_mb(many, scratch, "v-many")
        print(
            f"import with INGEST, peak RSS: 1000 sessions {peak_few:.0f} MB ({took_few:.1f} s), "
            f"{args.files} sessions {peak_many:.0f} MB ({took_many:.1f} s); "
            f"ratio {peak_many / peak_few:.2f} (goal flat, < 200 MB)"
        )
        export = scratch / "conversations.json"
        count = export_file(export, args.export_mb)
        mb = export.stat().st_size / 1e6
        n_split, peak_split, took_split = split_or_whole("split", export)
        n_whole, peak_whole, took_whole = split_or_whole("whole", export)
        assert n_split == n_whole == count
        print(
            f"ChatGPT export {mb:.0f} MB, {count} conversations: split {peak_split:.0f} MB peak "
            f"in {took_split:.1f} s; read whole {peak_whole:.0f} MB peak in {took_whole:.1f} s "
            f"(whole / split memory = {peak_whole / peak_split:.1f})"
        )


if __name__ == "__main__":
    main()
