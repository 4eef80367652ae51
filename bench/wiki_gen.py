"""A generated wiki for the read path's bench: N articles in the canonical layout, and
search queries whose answer is known.

    python bench/wiki_gen.py VAULT --articles 10000 [--queries FILE]

Every article is written by the grammar's own renderer (`dreaming.article.build`)
and breaks none of its rules (`dreaming.article.validate`): a lead, an infobox with
a kind and aliases, three to six sections, wikilinks to
other generated articles, See also, cited footnotes and categories. Words come
from a fixed vocabulary with a Zipf-like spread, so search sees common and rare
terms as a real wiki does. Each query is two rare words found only in its gold
article's one section (in one paragraph), so top-1 and top-5 are checkable.
Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dreaming.article import build  # noqa: E402
from dreaming.article.markup import Footnote, words  # noqa: E402
from dreaming.article.queries import THIN_WORDS  # noqa: E402
from dreaming.article.validate import KINDS  # noqa: E402

SYLLABLES = [
    "ka",
    "to",
    "ri",
    "ne",
    "su",
    "mo",
    "la",
    "pe",
    "vi",
    "do",
    "ra",
    "ge",
    "shi",
    "nu",
    "ta",
    "ko",
    "mi",
    "za",
    "be",
    "lo",
    "fu",
    "ha",
    "yo",
    "qu",
    "ex",
    "ar",
    "on",
    "el",
    "is",
    "um",
    "an",
    "or",
    "en",
]
HEADINGS = (
    "Overview",
    "History",
    "Configuration",
    "Usage",
    "Design",
    "Problems",
    "Decisions",
    "Performance",
    "Testing",
    "Deployment",
)


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    gold: str
    section: str


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


class Generator:
    def __init__(self, n: int, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng, 20_000)
        # Zipf-like: word i is drawn with weight 1/(i+1).
        weights = [1.0 / (i + 1) for i in range(len(self.words))]
        self.cum = list(itertools.accumulate(weights))
        self.titles = self._titles(n)
        self.rare = iter(self.rng.sample(self.words[5000:], 15_000))
        """Drawn without replacement: each goes into one article only."""

    def _titles(self, n: int) -> list[str]:
        seen: set[str] = set()
        titles: list[str] = []
        while len(titles) < n:
            name = " ".join(w.capitalize() for w in self.rng.sample(self.words[:3000], 2))
            if name.lower() not in seen:
                seen.add(name.lower())
                titles.append(name)
        return titles

    def _sentence(self, extra: tuple[str, ...] = ()) -> str:
        words = self.rng.choices(self.words, cum_weights=self.cum, k=self.rng.randint(8, 18))
        for word in extra:
            words.insert(self.rng.randrange(len(words)), word)
        if self.rng.random() < 0.3:
            words.insert(self.rng.randrange(len(words)), f"[[{self.rng.choice(self.titles)}]]")
        text = " ".join(words)
        return text[0].upper() + text[1:] + ".[^1]"

    def article(self, i: int) -> tuple[str, str, Query | None]:
        """(stem, text, a query whose gold is this article or None)."""
        rng = self.rng
        title = self.titles[i]
        headings = rng.sample(HEADINGS, rng.randint(3, 6))
        # One article in ten holds the answer to a query: two rare words, used nowhere else.
        answer_at = rng.randrange(len(headings)) if i % 10 == 0 else -1
        query = None
        sections = []
        for j, heading in enumerate(headings):
            paras: list[str] = []
            for _ in range(rng.randint(1, 3)):
                extra: tuple[str, ...] = ()
                if j == answer_at and not paras:
                    extra = (next(self.rare), next(self.rare))
                    query = Query(" ".join(extra), title.replace(" ", "_"), heading)
                paras.append(" ".join(self._sentence(extra) for _ in range(rng.randint(2, 5))))
            sections.append((heading, "\n\n".join(paras)))
        alias = "".join(w[0] for w in title.split()).upper() + str(i)
        lead = f"{title} is a {rng.choice(KINDS)} the person uses. {self._sentence()}"
        prose = words(lead) + sum(words(body) for _, body in sections)
        text = build(
            title,
            lead=lead,
            sections=sections,
            infobox={"kind": rng.choice(KINDS), "aliases": alias, "status": "active"},
            see_also=[rng.choice(self.titles) for _ in range(rng.randint(0, 3))],
            footnotes=[Footnote(1, f"{i:08x}", "2026-02-01", "claude-code", f"talk {i}")],
            categories=[f"Group {i % 40}"],
            stub=prose < THIN_WORDS,  # the grammar: a thin article carries {{stub}}
        )
        return title.replace(" ", "_"), text, query


def generate(articles_dir: Path, n: int, *, queries: int = 50, seed: int = 7) -> list[Query]:
    """Write n articles into articles_dir; `queries` of the known-answer queries."""
    gen = Generator(n, seed)
    articles_dir.mkdir(parents=True, exist_ok=True)
    found: list[Query] = []
    for i in range(n):
        stem, text, query = gen.article(i)
        (articles_dir / f"{stem}.md").write_text(text, encoding="utf-8")
        if query is not None:
            found.append(query)
    picks = random.Random(seed + 1).sample(found, min(queries, len(found)))
    return picks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path, help="a vault made by `dreaming init`")
    ap.add_argument("--articles", type=int, default=10_000)
    ap.add_argument("--queries", type=Path, help="write the 50 search queries here (JSONL)")
    args = ap.parse_args()
    picks = generate(args.vault / "articles", args.articles)
    if args.queries:
        lines = [json.dumps({"query": q.text, "gold": q.gold, "section": q.section}) for q in picks]
        args.queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{args.articles} articles in {args.vault / 'articles'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
