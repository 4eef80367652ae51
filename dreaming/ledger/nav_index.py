"""The navigation index: the read path's per-article cache of `articles/` (dreaming.query).

Derived, like the article index: Markdown is the truth and any row can be dropped
and rebuilt from the file. Unlike the article index it is kept per article, so a
query refreshes only the files that changed. Link targets and redirects are
stored as names and resolved when read, so an article created later is found
without re-indexing the ones that link to it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from dreaming.errors import LedgerError
from dreaming.ledger.connection import Ledger


@dataclass(frozen=True, slots=True)
class Stamp:
    """What the refresh compares with the file on disk."""

    mtime_ns: int
    size: int
    checksum: str


@dataclass(frozen=True, slots=True)
class NavSection:
    position: int
    heading: str
    level: int
    body: str


@dataclass
class NavArticle:
    """Everything the index holds for one file of `articles/`."""

    stem: str
    stamp: Stamp
    title: str
    unreadable: str | None = None
    kind: str | None = None
    type: str | None = None
    redirect: str | None = None
    redirect_key: str | None = None
    names: set[tuple[str, str, str]] = field(default_factory=set)
    """(key, name, how: title | stem | alias)"""
    sections: list[NavSection] = field(default_factory=list)
    footnotes: dict[str, str] = field(default_factory=dict)
    """label → its definition line"""
    facts: list[tuple[str, str]] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=dict)
    """key → name"""
    links: set[tuple[str, str, str]] = field(default_factory=set)
    """(key, target, via)"""


@dataclass(frozen=True, slots=True)
class Entry:
    """One indexed article as the tools see it."""

    stem: str
    title: str
    unreadable: str | None
    kind: str | None
    type: str | None
    redirect: str | None
    redirect_key: str | None


@dataclass(frozen=True, slots=True)
class Hit:
    stem: str
    heading: str
    snippet: str


@contextmanager
def brief_wait(ledger: Ledger, ms: int) -> Iterator[None]:
    """Inside: wait at most `ms` for another writer (a night) before giving up, so a read
    answers from the index as it is instead of waiting out a long write."""
    (before,) = ledger.db.execute("PRAGMA busy_timeout").fetchone()
    ledger.db.execute(f"PRAGMA busy_timeout = {int(ms)}")
    try:
        yield
    finally:
        ledger.db.execute(f"PRAGMA busy_timeout = {int(before)}")


def stamps(ledger: Ledger) -> dict[str, Stamp]:
    return {
        stem: Stamp(mtime, size, digest)
        for stem, mtime, size, digest in ledger.db.execute(
            "SELECT stem, mtime_ns, size, checksum FROM nav_articles"
        )
    }


def restamp(ledger: Ledger, stem: str, stamp: Stamp) -> None:
    """The file was touched but its bytes are the indexed ones."""
    ledger.db.execute(
        "UPDATE nav_articles SET mtime_ns = ?, size = ? WHERE stem = ?",
        (stamp.mtime_ns, stamp.size, stem),
    )


def drop(ledger: Ledger, stems: Iterable[str]) -> None:
    for stem in stems:
        # One id at a time: FTS5 answers `rowid = ?` from its index, `rowid IN (…)` by a scan.
        ids = ledger.db.execute("SELECT id FROM nav_sections WHERE stem = ?", (stem,)).fetchall()
        ledger.db.executemany("DELETE FROM nav_fts WHERE rowid = ?", ids)
        ledger.db.execute("DELETE FROM nav_articles WHERE stem = ?", (stem,))


def put(ledger: Ledger, a: NavArticle, *, new: bool = False) -> None:
    """Replace one article's rows (call inside a transaction). `new`: this reader has
    seen no row for it, so none is looked for first; another reader of the same vault
    may have written one meanwhile, and then it is replaced as usual."""
    db = ledger.db
    row = (a.stem, a.stamp.mtime_ns, a.stamp.size, a.stamp.checksum, a.unreadable, a.title,
           a.kind, a.type, a.redirect, a.redirect_key)  # fmt: skip
    insert = (
        "INSERT INTO nav_articles(stem, mtime_ns, size, checksum, unreadable, title, kind, "
        "type, redirect, redirect_key) VALUES (?,?,?,?,?,?,?,?,?,?)"
    )
    if not new:
        drop(ledger, [a.stem])
        db.execute(insert, row)
    else:
        try:
            db.execute(insert, row)
        except LedgerError as e:
            if not isinstance(e.__cause__, sqlite3.IntegrityError):
                raise
            drop(ledger, [a.stem])
            db.execute(insert, row)
    db.executemany(
        "INSERT OR IGNORE INTO nav_names(name_key, stem, name, how) VALUES (?,?,?,?)",
        [(key, a.stem, name, how) for key, name, how in sorted(a.names)],
    )
    aliases = " ".join(name for _, name, how in sorted(a.names) if how == "alias")
    for s in a.sections:
        cur = db.execute(
            "INSERT INTO nav_sections(stem, position, heading, level, body) VALUES (?,?,?,?,?)",
            (a.stem, s.position, s.heading, s.level, s.body),
        )
        if a.redirect is None and a.unreadable is None:
            db.execute(
                "INSERT INTO nav_fts(rowid, heading, title, aliases, body) VALUES (?,?,?,?,?)",
                (cur.lastrowid, s.heading, a.title, aliases, s.body),
            )
    db.executemany(
        "INSERT INTO nav_footnotes VALUES (?,?,?)",
        [(a.stem, label, line) for label, line in a.footnotes.items()],
    )
    db.executemany(
        "INSERT INTO nav_facts VALUES (?,?,?,?)",
        [(a.stem, i, k, v) for i, (k, v) in enumerate(a.facts)],
    )
    db.executemany(
        "INSERT INTO nav_categories VALUES (?,?,?)",
        [(a.stem, key, name) for key, name in sorted(a.categories.items())],
    )
    db.executemany(
        "INSERT OR IGNORE INTO nav_links VALUES (?,?,?,?)",
        [(a.stem, target, key, via) for key, target, via in sorted(a.links)],
    )


_ENTRY = "SELECT stem, title, unreadable, kind, type, redirect, redirect_key FROM nav_articles"


def entry(ledger: Ledger, stem: str) -> Entry | None:
    row = ledger.db.execute(f"{_ENTRY} WHERE stem = ?", (stem,)).fetchone()
    return None if row is None else Entry(*row)


def entries(ledger: Ledger, stems: Sequence[str]) -> list[Entry]:
    """The entries of `stems` that exist, in stem order."""
    found = [Entry(*row) for row in ledger.each_in(f"{_ENTRY} WHERE stem IN ({{marks}})", stems)]
    return sorted(found, key=lambda e: e.stem)


def stems_named(ledger: Ledger, key: str) -> list[tuple[str, str]]:
    """(stem, how) of every article one of whose names has this key."""
    return [
        (stem, how)
        for stem, how in ledger.db.execute(
            "SELECT stem, how FROM nav_names WHERE name_key = ? ORDER BY stem, how", (key,)
        )
    ]


def all_names(ledger: Ledger) -> list[tuple[str, str, str]]:
    """(key, name, stem) of every name, for the nearest-name fallback."""
    return [tuple(row) for row in ledger.db.execute("SELECT name_key, name, stem FROM nav_names")]


def name_keys(ledger: Ledger, stem: str) -> list[str]:
    return [
        k for (k,) in ledger.db.execute("SELECT name_key FROM nav_names WHERE stem = ?", (stem,))
    ]


def redirects_to(ledger: Ledger, keys: Sequence[str]) -> list[str]:
    """The stems of redirect articles whose target has one of these keys."""
    return [
        stem
        for (stem,) in ledger.each_in(
            "SELECT stem FROM nav_articles WHERE redirect_key IN ({marks})", keys
        )
    ]


def sections(ledger: Ledger, stem: str) -> list[NavSection]:
    return [
        NavSection(*row)
        for row in ledger.db.execute(
            "SELECT position, heading, level, body FROM nav_sections WHERE stem = ? "
            "ORDER BY position",
            (stem,),
        )
    ]


def footnotes(ledger: Ledger, stem: str) -> dict[str, str]:
    return dict(ledger.db.execute("SELECT label, line FROM nav_footnotes WHERE stem = ?", (stem,)))


def facts(ledger: Ledger, stem: str) -> list[tuple[str, str]]:
    return [
        (k, v)
        for k, v in ledger.db.execute(
            "SELECT field, value FROM nav_facts WHERE stem = ? ORDER BY position", (stem,)
        )
    ]


def links_out(ledger: Ledger, stem: str) -> list[tuple[str, str, str]]:
    """(target, key, via) in target order."""
    return [
        (t, k, v)
        for t, k, v in ledger.db.execute(
            "SELECT target, target_key, via FROM nav_links WHERE src = ? ORDER BY target, via",
            (stem,),
        )
    ]


def links_in(ledger: Ledger, keys: Sequence[str], stem: str) -> list[str]:
    """The stems linking to any of these keys (not `stem` itself), sorted."""
    found = {
        src
        for (src,) in ledger.each_in(
            "SELECT DISTINCT src FROM nav_links WHERE target_key IN ({marks})", keys
        )
    }
    return sorted(found - {stem})


def stems_where(
    ledger: Ledger,
    *,
    kind: str | None = None,
    type: str | None = None,
    category_key: str | None = None,
) -> list[tuple[str, str]]:
    """(stem, title) of readable articles with every one given: this kind, this type
    (both casefolded) and this category."""
    where = ["a.unreadable IS NULL"]
    args: list[str] = []
    for column, value in (("kind", kind), ("type", type)):
        if value is not None:
            where.append(f"lower(a.{column}) = lower(?)")
            args.append(value)
    if category_key is not None:
        where.append(
            "EXISTS (SELECT 1 FROM nav_categories c WHERE c.stem = a.stem AND c.category_key = ?)"
        )
        args.append(category_key)
    sql = f"SELECT a.stem, a.title FROM nav_articles a WHERE {' AND '.join(where)} ORDER BY a.stem"
    return [(s, t) for s, t in ledger.db.execute(sql, args)]


def values_of(ledger: Ledger, column: str) -> list[tuple[str, int]]:
    """Each kind or type with how many articles have it."""
    if column not in ("kind", "type"):
        raise ValueError(column)
    return [
        (v, n)
        for v, n in ledger.db.execute(
            f"SELECT {column}, COUNT(*) FROM nav_articles WHERE {column} IS NOT NULL "
            f"GROUP BY {column} ORDER BY {column}"
        )
    ]


def in_category(ledger: Ledger, key: str) -> list[tuple[str, str]]:
    return [
        (s, t)
        for s, t in ledger.db.execute(
            "SELECT c.stem, a.title FROM nav_categories c JOIN nav_articles a USING (stem) "
            "WHERE c.category_key = ? ORDER BY c.stem",
            (key,),
        )
    ]


def categories(ledger: Ledger) -> list[tuple[str, str, int]]:
    """(key, a name, articles) of every category."""
    return [
        (k, n, c)
        for k, n, c in ledger.db.execute(
            "SELECT category_key, min(name), COUNT(*) FROM nav_categories GROUP BY category_key "
            "ORDER BY category_key"
        )
    ]


def counts(ledger: Ledger) -> dict[str, int]:
    row = ledger.db.execute(
        "SELECT COUNT(*), "
        "coalesce(SUM(unreadable IS NULL AND redirect IS NULL), 0), "
        "coalesce(SUM(redirect IS NOT NULL AND unreadable IS NULL), 0), "
        "coalesce(SUM(unreadable IS NOT NULL), 0) FROM nav_articles"
    ).fetchone()
    convs = ledger.db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0]
    msgs = ledger.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    return {
        "files": row[0],
        "articles": row[1],
        "redirects": row[2],
        "unreadable": row[3],
        "conversations": convs,
        "messages": msgs,
    }


def unreadable(ledger: Ledger) -> list[tuple[str, str]]:
    return [
        (s, r)
        for s, r in ledger.db.execute(
            "SELECT stem, unreadable FROM nav_articles WHERE unreadable IS NOT NULL ORDER BY stem"
        )
    ]


def search(ledger: Ledger, match: str, limit: int) -> list[Hit]:
    """BM25 over the sections (title and aliases weigh most), the best section per
    article, best first. `match` is an FTS5 query the caller made safe."""
    rows = ledger.db.execute(
        "SELECT s.stem, s.heading, snippet(nav_fts, 3, '', '', '…', 24) "
        "FROM nav_fts JOIN nav_sections s ON s.id = nav_fts.rowid "
        "WHERE nav_fts MATCH ? ORDER BY bm25(nav_fts, 2.0, 10.0, 6.0, 1.0), s.stem, s.position "
        "LIMIT ?",
        (match, limit * 20),
    )
    best: dict[str, Hit] = {}
    for stem, heading, snippet in rows:
        if stem not in best:
            best[stem] = Hit(stem, heading, snippet)
        if len(best) == limit:
            break
    return list(best.values())


def conversation(ledger: Ledger, ref: str) -> list[tuple[str, str, str | None, int]]:
    """(id, hash8, title, message_count) of the conversations `ref` names: an id or a hash8."""
    return [
        (i, h, t, n)
        for i, h, t, n in ledger.db.execute(
            "SELECT id, hash8, title, message_count FROM conversations "
            "WHERE id = ? OR hash8 = ? ORDER BY id",
            (ref, ref),
        )
    ]


def messages(ledger: Ledger, conv_id: str, first: int, last: int) -> list[tuple[int, str, str]]:
    """(position, role, text) of the messages first..last (inclusive), in order."""
    return [
        (p, r, t)
        for p, r, t in ledger.db.execute(
            "SELECT position, role, text FROM messages WHERE conv_id = ? "
            "AND position BETWEEN ? AND ? ORDER BY position",
            (conv_id, first, last),
        )
    ]


def name_keys_of(ledger: Ledger, stems: Sequence[str]) -> list[str]:
    return [
        k
        for (k,) in ledger.each_in("SELECT name_key FROM nav_names WHERE stem IN ({marks})", stems)
    ]


def citing(ledger: Ledger, hash8s: Sequence[str]) -> dict[str, int]:
    """Each article citing any of these conversations → how many of them it cites."""
    if not hash8s:
        return {}
    return {
        str(stem): int(n)
        for stem, n in ledger.db.execute(
            "SELECT f.stem, COUNT(DISTINCT j.value) FROM json_each(?) j "
            "JOIN nav_footnotes f ON instr(f.line, '`conv:' || j.value || '`') > 0 "
            "GROUP BY f.stem",
            (json.dumps(list(hash8s)),),
        )
    }


def cited_conversations(ledger: Ledger, hash8s: Sequence[str]) -> dict[str, str]:
    """hash8 → the id of the conversation these citations name; of two sharing a hash8
    (a collision), the smaller id, so a read is deterministic."""
    found: dict[str, str] = {}
    for h, i in ledger.each_in(
        "SELECT hash8, id FROM conversations WHERE hash8 IN ({marks}) ORDER BY id",
        list(dict.fromkeys(hash8s)),
    ):
        found.setdefault(str(h), str(i))
    return found


def user_messages(
    ledger: Ledger,
    conv_id: str,
    ranges: Sequence[tuple[int, int]],
    limit: int,
    chars: int,
) -> list[tuple[int, str]]:
    """(position, text) of the person's messages in `conv_id`, newest first, at most
    `limit`; only those inside one of `ranges` (first, last) when any are given. A text
    over twice `chars` characters comes as its head and tail, `chars` each: a question
    after a long paste is at the end, and no read holds a pasted megabyte."""
    where = ""
    args: list[object] = [chars * 2, chars, chars, conv_id]
    if ranges:
        where = (
            " AND EXISTS (SELECT 1 FROM json_each(?) r WHERE m.position "
            "BETWEEN json_extract(r.value, '$[0]') AND json_extract(r.value, '$[1]'))"
        )
        args.append(json.dumps([list(r) for r in ranges]))
    args.append(limit)
    return [
        (int(p), str(t))
        for p, t in ledger.db.execute(
            "SELECT m.position, CASE WHEN length(m.text) <= ? THEN m.text "
            "ELSE substr(m.text, 1, ?) || char(10) || substr(m.text, -?) END "
            f"FROM messages m WHERE m.conv_id = ? AND m.role = 'user'{where} "
            "ORDER BY m.position DESC LIMIT ?",
            args,
        )
    ]
