"""LINK's cost on a generated wiki (bench/wiki_gen.py), run as a night runs it
(`run_night`, LINK alone, committing each article it writes): the whole wiki linked,
against only reading and parsing it; then one touched article. Each time split into
LINK's own work, the commits (one a unit written) and the rest of the night (INGEST,
the index refresh, the audit and scorecard of the run report).

    python bench/bench_link.py [--articles 1000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from bench.wiki_gen import generate  # noqa: E402
from dreaming.article import parse  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.vault.files import read_articles  # noqa: E402
from dreaming.vault.repo import VaultRepo  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.runner import pipeline  # noqa: E402
from stages.runner.pipeline import run_night  # noqa: E402
from watcher.app import App  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=1000)
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = init_vault(Path(tmp) / "vault").vault
        generate(vault.articles, args.articles, queries=0)
        git = ["git", "-C", str(vault.root)]
        subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
        subprocess.run([*git, "commit", "-qm", "generated"], check=True, capture_output=True)
        t0 = time.perf_counter()
        texts = read_articles(vault)
        for text in texts.values():
            parse(text)
        parsing = time.perf_counter() - t0
        with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
            whole = _night(app)
            stem = next(iter(texts))
            path = vault.articles / f"{stem}.md"
            path.write_text(path.read_text(encoding="utf-8") + "\nOne more line.\n")
            one = _night(app)
    print(f"{len(texts)} articles: read and parse {parsing:.2f} s")
    for what, t in (("whole wiki", whole), ("one touched article", one)):
        print(
            f"LINK, {what}: night {t.night:.2f} s = LINK {t.link:.2f} s + {t.commits} commits "
            f"{t.committing:.2f} s + the rest {t.night - t.link - t.committing:.2f} s"
        )
    print(
        f"LINK (less commits) / read+parse, whole wiki: {whole.link / max(parsing, 1e-9):.1f}x; "
        "goal: whole < 10 s, one < 0.5 s"
    )
    return 0


class _Timed:
    night = link = committing = 0.0
    commits = 0


def _night(app: App) -> _Timed:
    """One LINK night, timed: the whole, LINK's stage and its commits."""
    timed = _Timed()
    commit = VaultRepo.commit_pipeline_blobs
    stage = pipeline.run_stage

    def counted(self: VaultRepo, *args: object, **kwargs: object) -> object:
        t0 = time.perf_counter()
        try:
            return commit(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            timed.committing += time.perf_counter() - t0
            timed.commits += 1

    def staged(*args: object, **kwargs: object) -> object:
        t0 = time.perf_counter()
        try:
            return stage(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            timed.link += time.perf_counter() - t0

    VaultRepo.commit_pipeline_blobs = counted  # type: ignore[method-assign,assignment]
    pipeline.run_stage = staged  # type: ignore[assignment]
    try:
        t0 = time.perf_counter()
        run_night(app, only="link")
        timed.night = time.perf_counter() - t0
    finally:
        VaultRepo.commit_pipeline_blobs = commit  # type: ignore[method-assign]
        pipeline.run_stage = stage
    timed.link -= timed.committing
    return timed


if __name__ == "__main__":
    sys.exit(main())
