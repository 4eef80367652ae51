from __future__ import annotations

import os
from pathlib import Path

import pytest

from dreaming.article.document import build
from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.query.index import NavIndex
from dreaming.query.reindex import reindex
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.support import raw_note

CITE = Footnote(1, "0a1b2c3d", "2026-01-02", "raw", "bread talk")


def write_article(vault: Vault, stem: str, text: str) -> None:
    (vault.articles / f"{stem}.md").write_text(text, encoding="utf-8")


def sourdough(vault: Vault) -> None:
    write_article(
        vault,
        "Sourdough",
        build(
            "Sourdough",
            lead="Sourdough is the bread the person bakes weekly with [[Rye Flour]].[^1]",
            sections=[("Starter", "The starter lives in the fridge.[^1]")],
            infobox={
                "kind": "thing",
                "aliases": "levain bread, sourdough loaf",
                "made_with": "[[Rye Flour]]",
            },
            see_also=["Baking"],
            footnotes=[CITE],
            categories=["Bread"],
        ),
    )
    write_article(
        vault,
        "Rye_Flour",
        build("Rye Flour", lead="A flour.", sections=[], infobox={"kind": "thing"}),
    )


def rows(ledger: Ledger, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in ledger.db.execute(sql)]


def test_articles_enter_the_index_with_their_names(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    reindex(vault, ledger)
    assert rows(ledger, "SELECT stem, title, kind FROM article_index ORDER BY stem") == [
        ("Rye_Flour", "Rye Flour", "thing"),
        ("Sourdough", "Sourdough", "thing"),
    ]
    aliases = rows(ledger, "SELECT alias FROM article_aliases WHERE stem = 'Sourdough'")
    assert {a[0] for a in aliases} == {"sourdough", "levain bread", "sourdough loaf"}


def test_links_are_recorded_with_where_they_came_from(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    reindex(vault, ledger)
    assert set(rows(ledger, "SELECT dst, via FROM links WHERE src = 'Sourdough'")) == {
        ("Rye_Flour", "prose"),
        ("Rye_Flour", "infobox"),
        ("Baking", "seealso"),
    }


def test_categories_are_emergent_from_the_articles(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    reindex(vault, ledger)
    assert rows(ledger, "SELECT * FROM article_categories") == [("Sourdough", "Bread")]


def test_reindex_is_deterministic(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    reindex(vault, ledger)
    tables = ("article_index", "article_aliases", "links", "infobox_facts", "article_categories")
    first = {t: rows(ledger, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables}
    reindex(vault, ledger)
    assert {t: rows(ledger, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables} == first


def test_a_deleted_article_leaves_the_index(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    reindex(vault, ledger)
    (vault.articles / "Rye_Flour.md").unlink()
    reindex(vault, ledger)
    assert rows(ledger, "SELECT stem FROM article_index") == [("Sourdough",)]


def test_reindex_never_touches_the_conversations(vault: Vault, ledger: Ledger) -> None:
    (vault.raw / "t.md").write_text(raw_note(("user", "hi"), ("assistant", "hello")))
    ingest(vault, ledger)
    sourdough(vault)
    reindex(vault, ledger)
    assert rows(ledger, "SELECT COUNT(*) FROM messages") == [(2,)]


def test_an_article_that_is_not_utf8_is_reported_not_fatal(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    (vault.articles / "Broken.md").write_bytes(b"# Broken\n\xff\xfe\n")
    report = reindex(vault, ledger)
    assert report.articles == 2
    assert report.unreadable[0][0] == "articles/Broken.md"


def test_a_decomposed_file_name_resolves_links_written_composed(
    vault: Vault, ledger: Ledger
) -> None:
    write_article(vault, "Cafe\u0301", build("Café", lead="A place.", sections=[]))
    write_article(vault, "Menu", build("Menu", lead="Served at [[Café]].", sections=[]))
    reindex(vault, ledger)
    assert rows(ledger, "SELECT src, dst FROM links") == [("Menu", "Cafe\u0301")]
    assert ("café", "Cafe\u0301") in rows(ledger, "SELECT alias, stem FROM article_aliases")


def test_an_article_with_a_bom_keeps_its_kind_and_aliases(vault: Vault, ledger: Ledger) -> None:
    text = build(
        "Rye Flour", lead="A flour.", sections=[], infobox={"kind": "thing", "aliases": "rye"}
    )
    write_article(vault, "Rye_Flour", "\ufeff" + text)
    reindex(vault, ledger)
    assert rows(ledger, "SELECT title, kind FROM article_index") == [("Rye Flour", "thing")]
    assert ("rye", "Rye_Flour") in rows(ledger, "SELECT alias, stem FROM article_aliases")


def test_a_cr_only_article_is_read_line_by_line(vault: Vault, ledger: Ledger) -> None:
    text = "# Bread\r\r```info\rkind: thing\r```\r\r*Main article: [[Sourdough]]*\r\rA loaf.\r"
    write_article(vault, "Bread", text)
    reindex(vault, ledger)
    assert rows(ledger, "SELECT title, kind FROM article_index") == [("Bread", "thing")]
    assert ("Bread", "Sourdough", "main") in rows(ledger, "SELECT src, dst, via FROM links")


@pytest.mark.timeout(10)
def test_a_named_pipe_in_articles_is_skipped_with_a_line(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    os.mkfifo(vault.articles / "Pipe.md")
    report = reindex(vault, ledger)
    assert report.articles == 2
    assert report.unreadable == [("articles/Pipe.md", "a named pipe, not a file; delete it")]


def test_a_link_in_articles_to_a_file_outside_the_vault_is_never_read(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    secret = tmp_path / "passwd"
    secret.write_text(build("Passwd", lead="root:x:0:0:the secret lead", sections=[]))
    (vault.articles / "Passwd.md").symlink_to(secret)
    report = reindex(vault, ledger)
    assert rows(ledger, "SELECT stem, lead FROM article_index") == []
    assert [rel for rel, _ in report.unreadable] == ["articles/Passwd.md"]
    assert report.unreadable[0][1].startswith("a link;")


def test_a_link_to_another_article_is_skipped_too(vault: Vault, ledger: Ledger) -> None:
    sourdough(vault)
    (vault.articles / "Levain.md").symlink_to(vault.articles / "Sourdough.md")
    report = reindex(vault, ledger)
    assert [rel for rel, _ in report.unreadable] == ["articles/Levain.md"]
    assert rows(ledger, "SELECT stem FROM article_index ORDER BY stem") == [
        ("Rye_Flour",),
        ("Sourdough",),
    ]


def test_reindex_leaves_the_query_index_built_too(vault: Vault, ledger: Ledger) -> None:
    # One read and parse of each file serves both indexes: a first build of a big vault
    # is paid once, not once by reindex and again by the first query.
    sourdough(vault)
    reindex(vault, ledger)
    assert NavIndex(vault, ledger).refresh().parsed == 0
    assert Reader(vault, ledger).resolve_stems("levain bread") == ["Sourdough"]
