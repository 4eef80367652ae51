"""bench/wiki_gen.py: the read path's bench wiki is grammatical and its queries answerable."""

from __future__ import annotations

from pathlib import Path

from bench.wiki_gen import generate
from dreaming.article.document import parse
from dreaming.article.validate import problems
from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.vault import Vault


def test_every_article_follows_the_grammar_and_every_query_finds_its_gold(
    vault: Vault, ledger: Ledger
) -> None:
    queries = generate(vault.articles, 30)
    files = sorted(vault.articles.glob("*.md"))
    assert len(files) == 30
    for path in files:
        assert problems(parse(path.read_text(encoding="utf-8")), stem=path.stem) == [], path.name
    reader = Reader(vault, ledger)
    assert reader.index.refresh().parsed == 30
    assert len(queries) == 3  # one article in ten holds a query's answer
    for q in queries:
        assert q.gold in reader.search_stems(q.text, limit=5), q
        assert q.section in reader.read(q.gold).text


def test_the_same_seed_writes_the_same_wiki(tmp_path: Path) -> None:
    assert generate(tmp_path / "a", 20) == generate(tmp_path / "b", 20)
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()
