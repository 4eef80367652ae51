"""Fresh vault to first article: a person with a 20-session Claude Code history runs
the first command's steps, answers yes to the import (no to the hook), and the night
starts; the time to the vault's first commit holding an article is printed.

    python bench/bench_first_hour.py [--corpus ../shared/corpus] [--sessions 20]
        [--model gguf:qwen2.5-coder-1.5b] [--timeout-min 40]

The history is the corpus's Claude Code sessions (the largest first, up to
--sessions) in a scratch $HOME. `dreaming init --find-history` runs on a pseudo
terminal (`script`) with the answers typed in, as a person would; then
`dreaming synthesize` runs the night until the first article is committed, and is
stopped there (SIGINT: it stops cleanly). The model must be installed already (the
first command's download is measured by its own progress bar, not here).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402

BIN = ROOT / ".venv" / "bin" / "dreaming"


def history(corpus: Path, home: Path, sessions: int) -> int:
    found = sorted(
        (p for p in (corpus / "claude-code").rglob("*.jsonl") if "subagents" not in p.parts),
        key=lambda p: p.stat().st_size,
        reverse=True,
    )[:sessions]
    for p in found:
        dst = home / ".claude" / "projects" / p.relative_to(corpus / "claude-code")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, dst)
    return len(found)


def first_article(vault: Path) -> str | None:
    out = subprocess.run(
        ["git", "-C", str(vault), "log", "--format=%h %s", "--", "articles/*.md"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return out.splitlines()[-1] if out else None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--model", default=None)
    parser.add_argument("--timeout-min", type=float, default=40)
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory() as tmp:
        home, vault = Path(tmp) / "home", Path(tmp) / "vault"
        n = history(args.corpus, home, args.sessions)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DREAMING_")}
        cache = str(Path.home() / ".cache" / "dreaming")
        env |= {"HOME": str(home), "DREAMING_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        if args.model:
            env["DREAMING_MODEL"] = args.model
        start = time.monotonic()
        init = subprocess.run(
            ["script", "-qc", f"{BIN} init {vault} --find-history", "/dev/null"],
            input="y\nn\n",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        imported = time.monotonic() - start
        said = [
            ln
            for ln in init.stdout.splitlines()
            if ln.startswith(("found", "ingested", "dreaming:"))
        ]
        print(f"{n} sessions in $HOME; init, found, imported and ingested in {imported:.1f} s")
        for line in said:
            print(f"  {line.strip()}")
        night = subprocess.Popen(
            [str(BIN), "synthesize", "--vault", str(vault)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        commit = None
        while commit is None and night.poll() is None:
            if time.monotonic() - start > args.timeout_min * 60:
                break
            time.sleep(2)
            commit = first_article(vault)
        took = time.monotonic() - start
        if night.poll() is None:
            night.send_signal(signal.SIGINT)
            try:
                night.wait(timeout=600)
            except subprocess.TimeoutExpired:
                night.kill()  # a unit on a loaded machine can outlast the wait
                night.wait()
        commit = commit or first_article(vault)
        if commit is None:
            print(f"no article committed in {took / 60:.1f} min")
            return 1
        print(
            f"first article committed {took:.0f} s ({took / 60:.1f} min) after the start: {commit}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
