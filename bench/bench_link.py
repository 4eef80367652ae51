"""LINK's cost on a generated wiki (bench/wiki_gen.py): listing its units (every
article read, linked and normalized to key it) and linking every article, against
only reading and parsing them; then one touched article.

    python bench/bench_link.py [--articles 1000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from bench.wiki_gen import generate  # noqa: E402
from dreaming.article import parse  # noqa: E402
from dreaming.article.linking import link_article  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.link import _articles, _target  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=1000)
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    with tempfile.TemporaryDirectory() as tmp:
        vault = init_vault(Path(tmp) / "vault").vault
        generate(vault.articles, args.articles, queries=0)
        t0 = time.perf_counter()
        texts = _articles(vault)
        read = time.perf_counter() - t0
        t0 = time.perf_counter()
        for text in texts.values():
            parse(text)
        parsed = time.perf_counter() - t0
        t0 = time.perf_counter()
        targets = [t for t in (_target(s, x) for s, x in texts.items()) if t]
        names = time.perf_counter() - t0
        t0 = time.perf_counter()
        links = 0
        for stem, text in texts.items():
            linked, _ = link_article(text, targets, stem)
            links += linked.count("[[") - text.count("[[")
        linking = time.perf_counter() - t0
        stem, text = next(iter(texts.items()))
        t0 = time.perf_counter()
        link_article(text, targets, stem)
        one = time.perf_counter() - t0
    n = len(texts)
    print(f"{n} articles: read {read:.2f} s, parse {parsed:.2f} s, names {names:.2f} s")
    print(f"link all {linking:.2f} s ({links} links added), one article {one * 1000:.0f} ms")
    print(f"linking / parsing: {linking / max(parsed, 1e-9):.1f}x; goal: all < 10 s, one < 0.5 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
