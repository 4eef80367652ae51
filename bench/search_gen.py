"""A generated wiki whose titles compete with the prose: search's hard case at scale.

    python bench/search_gen.py VAULT --articles 10000

Titles are two words drawn from a pool of rare words (a word holds about three titles),
and each rare-word query names two such words, A from one article's title and B from
another's, that occur together in exactly one other article's prose (its gold). So the
articles titled with A or B hold one of the words where BM25 weighs most (the title,
and the lead that names it), while only the gold holds both. Title and alias queries
come with it, so a ranking that favours the prose match can be checked not to lose the
titled article. Articles are written by the grammar's renderer (`dreaming.article.build`);
deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.wiki_gen import HEADINGS, _vocabulary  # noqa: E402
from dreaming.article import build  # noqa: E402
from dreaming.article.markup import Footnote, words  # noqa: E402
from dreaming.article.queries import THIN_WORDS  # noqa: E402
from dreaming.article.validate import KINDS  # noqa: E402

PROSE_WORDS = 3000
"""The common vocabulary the prose is written in; no title word is among them."""
TITLES_A_WORD = 3
QUERIES = 16
NAMES = 17
"""Title queries, and as many alias queries."""


@dataclass(frozen=True, slots=True)
class Asked:
    kind: str
    """title | alias | rare"""
    text: str
    gold: str


class _Wiki:
    def __init__(self, n: int, seed: int) -> None:
        self.rng = random.Random(seed)
        vocab = _vocabulary(self.rng, PROSE_WORDS + max(60, 2 * n // TITLES_A_WORD))
        self.prose, self.pool = vocab[:PROSE_WORDS], vocab[PROSE_WORDS:]
        self.titles = self._titles(n)

    def _titles(self, n: int) -> list[str]:
        seen: set[str] = set()
        titles: list[str] = []
        while len(titles) < n:
            name = " ".join(w.capitalize() for w in self.rng.sample(self.pool, 2))
            if name.casefold() not in seen:
                seen.add(name.casefold())
                titles.append(name)
        return titles

    def sentence(self, extra: tuple[str, ...] = ()) -> str:
        said = self.rng.choices(self.prose, k=self.rng.randint(8, 16))
        for word in extra:
            said.insert(self.rng.randrange(len(said) + 1), word)
        text = " ".join(said)
        return text[0].upper() + text[1:] + ".[^1]"

    def article(self, i: int, pair: tuple[str, str] | None) -> tuple[str, str]:
        """(stem, text); `pair` goes into one sentence of one section."""
        rng, title = self.rng, self.titles[i]
        headings = rng.sample(HEADINGS, rng.randint(3, 5))
        at = rng.randrange(len(headings))
        sections = []
        for j, heading in enumerate(headings):
            said = [self.sentence() for _ in range(rng.randint(3, 7))]
            if pair is not None and j == at:
                said[rng.randrange(len(said))] = self.sentence(pair)
            sections.append((heading, " ".join(said)))
        lead = f"{title} is a {rng.choice(KINDS)} the person uses. {self.sentence()}"
        prose = words(lead) + sum(words(body) for _, body in sections)
        text = build(
            title,
            lead=lead,
            sections=sections,
            infobox={"kind": rng.choice(KINDS), "aliases": alias(title, i), "status": "active"},
            footnotes=[Footnote(1, f"{i:08x}", "2026-02-01", "claude-code", f"talk {i}")],
            categories=[f"Group {i % 40}"],
            stub=prose < THIN_WORDS,
        )
        return stem(title), text


def alias(title: str, i: int) -> str:
    return "".join(w[0] for w in title.split()).upper() + str(i)


def stem(title: str) -> str:
    return title.replace(" ", "_")


def generate(articles_dir: Path, n: int, *, seed: int = 7) -> list[Asked]:
    """Write n articles into articles_dir; the title, alias and rare-word queries."""
    wiki = _Wiki(n, seed)
    rng = random.Random(seed + 1)
    titled: dict[str, list[int]] = {}
    for i, title in enumerate(wiki.titles):
        for word in title.casefold().split():
            titled.setdefault(word, []).append(i)
    asked: list[Asked] = []
    pairs: dict[int, tuple[str, str]] = {}
    shared = sorted(w for w, held in titled.items() if len(held) >= 2)
    while len(pairs) < min(QUERIES, n // 10):
        a, b = rng.sample(shared, 2)
        gold = rng.randrange(n)
        if gold in pairs or {a, b} & set(wiki.titles[gold].casefold().split()):
            continue
        if any({a, b} & set(p) for p in pairs.values()):
            continue  # each pair's words go into one article's prose only
        pairs[gold] = (a, b)
        asked.append(Asked("rare", f"{a} {b}", stem(wiki.titles[gold])))
    for i in rng.sample(range(n), min(NAMES, n)):
        asked.append(Asked("title", wiki.titles[i], stem(wiki.titles[i])))
    for i in rng.sample(range(n), min(NAMES, n)):
        asked.append(Asked("alias", alias(wiki.titles[i], i), stem(wiki.titles[i])))
    articles_dir.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        name, text = wiki.article(i, pairs.get(i))
        (articles_dir / f"{name}.md").write_text(text, encoding="utf-8")
    return asked


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path, help="a vault made by `dreaming init`")
    ap.add_argument("--articles", type=int, default=10_000)
    args = ap.parse_args()
    asked = generate(args.vault / "articles", args.articles)
    for a in asked:
        print(f"{a.kind}\t{a.text}\t{a.gold}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
