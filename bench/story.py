"""A self-healing story on a real model: three conversations over three dates (a plan,
a change of mind, the result), one night after each, and what the articles say after
every night: whether RECONCILE leaves lead, body and infobox on the latest position.

    python bench/story.py                                   # gguf:qwen2.5-coder-1.5b
    python bench/story.py 'record:ANSWERS.jsonl|gguf:qwen2.5-coder-1.5b'

The conversations are tests/fixtures/story/*.md; a recording of the default model's
answers (cut to stage, key, text, usage) is what tests/stages/runner/test_story.py
replays.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.runner.pipeline import run_night  # noqa: E402
from watcher.app import App  # noqa: E402

STORY = ROOT / "tests" / "fixtures" / "story"


def nights(root: Path, spec: str) -> list[float]:
    """One night after each conversation of the story lands in Raw/; seconds a night."""
    vault = init_vault(root).vault
    settings = replace(Settings(vault=vault.root), model=spec)
    spent = []
    for note in sorted(STORY.glob("*.md")):
        shutil.copy(note, vault.raw / note.name)
        start = time.monotonic()
        with App(vault, settings) as app:
            report = run_night(app)
        spent.append(time.monotonic() - start)
        print(
            f"== after {note.name}: {report.status}, {report.model_calls} calls, {spent[-1]:.0f} s"
        )
        for article in sorted(vault.articles.glob("*.md")):
            print(f"--- {article.name}\n{article.read_text(encoding='utf-8')}")
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", nargs="?", default="gguf:qwen2.5-coder-1.5b")
    parser.add_argument("--keep", type=Path, help="make the vault here and keep it (to read)")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory() as tmp:
        spent = nights(args.keep or Path(tmp) / "vault", args.spec)
    print(f"nights: {', '.join(f'{s:.0f} s' for s in spent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
