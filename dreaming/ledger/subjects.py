"""The pipeline's subjects: the things chunks are about, and where each one lives.

Not the article index: a subject is a name the pipeline extracted, which may
have an article of its own, fold into another's (a redirect) or stay captured.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from dreaming.ledger.connection import Ledger

SubjectStatus = Literal["candidate", "article", "captured", "redirect"]
"""candidate: seen, no home yet; article: has its own; captured: its chunks wait in
`_captured`; redirect: folded into another subject's article."""
SUBJECT_STATUSES: tuple[SubjectStatus, ...] = get_args(SubjectStatus)

RedirectReason = Literal["folded", "captured"]

_SELECT = "SELECT name, display, status, article_stem, first_seen FROM subjects"


@dataclass(frozen=True, slots=True)
class Subject:
    name: str
    """Canonical: the key every surface form of it resolves to."""
    display: str
    status: SubjectStatus
    article_stem: str | None
    """Its own article's stem; set exactly when status is `article`."""
    first_seen: str


@dataclass(frozen=True, slots=True)
class Mention:
    chunk_id: str
    subject: str
    surface: str
    """The name as the chunk wrote it."""
    is_main: bool


def add(ledger: Ledger, name: str, display: str, now: str) -> Subject:
    """The subject `name`, made a candidate if it is new."""
    ledger.db.execute(
        "INSERT INTO subjects(name, display, first_seen) VALUES (?, ?, ?) "
        "ON CONFLICT(name) DO NOTHING",
        (name, display, now),
    )
    return Subject(*ledger.db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone())


def get(ledger: Ledger, name: str) -> Subject | None:
    row = ledger.db.execute(f"{_SELECT} WHERE name = ?", (name,)).fetchone()
    return None if row is None else Subject(*row)


def every(ledger: Ledger) -> list[Subject]:
    """Every subject, by name."""
    return [Subject(*row) for row in ledger.db.execute(f"{_SELECT} ORDER BY name")]


def set_status(
    ledger: Ledger, name: str, status: SubjectStatus, article_stem: str | None = None
) -> None:
    ledger.db.execute(
        "UPDATE subjects SET status = ?, article_stem = ? WHERE name = ?",
        (status, article_stem, name),
    )


def mention(ledger: Ledger, m: Mention) -> None:
    """Record that a chunk names a subject (the first surface form seen is kept)."""
    ledger.db.execute(
        "INSERT INTO chunk_subjects(chunk_id, subject, surface, is_main) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(chunk_id, subject) DO UPDATE SET is_main = max(is_main, excluded.is_main)",
        (m.chunk_id, m.subject, m.surface, int(m.is_main)),
    )


def forget_mentions(ledger: Ledger, chunk_id: str) -> None:
    """Drop what a chunk was found to name, before it is judged again."""
    ledger.db.execute("DELETE FROM chunk_subjects WHERE chunk_id = ?", (chunk_id,))


def mentions_in(ledger: Ledger, chunk_id: str) -> list[Mention]:
    """The subjects a chunk names, main subjects first."""
    return [
        Mention(row[0], row[1], row[2], bool(row[3]))
        for row in ledger.db.execute(
            "SELECT chunk_id, subject, surface, is_main FROM chunk_subjects "
            "WHERE chunk_id = ? ORDER BY is_main DESC, subject",
            (chunk_id,),
        )
    ]


def redirect(ledger: Ledger, name: str, target_stem: str, reason: RedirectReason, now: str) -> None:
    """Send `name` to the article `target_stem` from now on."""
    ledger.db.execute(
        "INSERT INTO subject_redirects(subject, target_stem, reason, created_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT(subject) DO UPDATE SET "
        "target_stem = excluded.target_stem, reason = excluded.reason",
        (name, target_stem, reason, now),
    )


def unfile(ledger: Ledger, stem: str) -> list[str]:
    """Capture again every subject filed under `stem` (its own or folded in), for an
    article that was never written; returns their names."""
    names = [
        row[0]
        for row in ledger.db.execute(
            "SELECT name FROM subjects WHERE status = 'article' AND article_stem = ? "
            "UNION SELECT subject FROM subject_redirects WHERE target_stem = ? ORDER BY 1",
            (stem, stem),
        )
    ]
    for name in names:
        ledger.db.execute("DELETE FROM subject_redirects WHERE subject = ?", (name,))
        set_status(ledger, name, "captured")
    return names


def redirects(ledger: Ledger) -> dict[str, str]:
    """Every redirected subject and the stem it resolves to."""
    return dict(ledger.db.execute("SELECT subject, target_stem FROM subject_redirects").fetchall())


def captured_since(ledger: Ledger, since: str) -> list[Subject]:
    """Subjects first seen at or after `since` that stay captured (no article of their own)."""
    return [
        Subject(*row)
        for row in ledger.db.execute(
            f"{_SELECT} WHERE status = 'captured' AND first_seen >= ? ORDER BY first_seen, name",
            (since,),
        )
    ]


@dataclass(frozen=True, slots=True)
class Reach:
    """How far a subject reaches over every chunk: whether it earns an article."""

    chunks: int
    main: bool
    """Whether some chunk has it as its main subject."""


def with_article(ledger: Ledger) -> list[Subject]:
    """The subjects that have their own article, by name."""
    return [
        Subject(*row)
        for row in ledger.db.execute(f"{_SELECT} WHERE status = 'article' ORDER BY name")
    ]


def conversations_of(ledger: Ledger) -> dict[str, set[str]]:
    """Each subject's name and the conversations whose chunks named it."""
    out: dict[str, set[str]] = {}
    for name, conv in ledger.db.execute(
        "SELECT DISTINCT s.subject, c.conv_id FROM chunk_subjects s "
        "JOIN chunks c ON c.id = s.chunk_id"
    ):
        out.setdefault(str(name), set()).add(str(conv))
    return out


def articles_named(ledger: Ledger) -> dict[str, frozenset[str]]:
    """Each conversation's citation hash → the article stems whose subjects its chunks
    name (a subject's own article, or the one it was folded into)."""
    out: dict[str, set[str]] = {}
    for conv, stem in ledger.db.execute(
        "SELECT DISTINCT v.hash8, coalesce(s.article_stem, r.target_stem) "
        "FROM chunk_subjects m JOIN chunks c ON c.id = m.chunk_id "
        "JOIN conversations v ON v.id = c.conv_id JOIN subjects s ON s.name = m.subject "
        "LEFT JOIN subject_redirects r ON r.subject = m.subject AND r.reason = 'folded' "
        "WHERE s.article_stem IS NOT NULL OR r.target_stem IS NOT NULL"
    ):
        out.setdefault(str(conv), set()).add(str(stem))
    return {conv: frozenset(stems) for conv, stems in out.items()}


def owner(ledger: Ledger, stem: str) -> str | None:
    """The subject whose own article is `stem`."""
    row = ledger.db.execute(
        "SELECT name FROM subjects WHERE article_stem = ? AND status = 'article'", (stem,)
    ).fetchone()
    return None if row is None else str(row[0])


def article_homes(ledger: Ledger) -> list[tuple[str, str, bool]]:
    """(name, stem of the article it resolves to, whether it is that article's own title)
    for every indexed article's title, every redirect and every infobox alias; by stem."""
    return [
        (str(name), str(stem), bool(own))
        for name, stem, own in ledger.db.execute(
            "SELECT title, coalesce(redirect_to, stem), NOT is_redirect FROM article_index "
            "UNION SELECT x.alias, a.stem, 0 FROM article_aliases x "
            "JOIN article_index a ON a.stem = x.stem AND NOT a.is_redirect "
            "ORDER BY 2, 3 DESC, 1"
        )
    ]


def mentions_of(ledger: Ledger, chunk_ids: Sequence[str]) -> list[Mention]:
    """The subjects these chunks name, in the chunks' order, main subjects first."""
    return [
        Mention(row[0], row[1], row[2], bool(row[3]))
        for row in ledger.db.execute(
            "SELECT s.chunk_id, s.subject, s.surface, s.is_main FROM json_each(?) j "
            "JOIN chunk_subjects s ON s.chunk_id = j.value "
            "ORDER BY j.key, s.is_main DESC, s.subject",
            (json.dumps(list(chunk_ids)),),
        )
    ]


def reaches(ledger: Ledger, names: Iterable[str]) -> dict[str, Reach]:
    """`reach` of each of `names` (a name no chunk mentions reaches nothing)."""
    found = {
        name: Reach(int(chunks), bool(main))
        for name, chunks, main in ledger.db.execute(
            "SELECT subject, COUNT(*), max(is_main) FROM chunk_subjects "
            "WHERE subject IN (SELECT value FROM json_each(?)) GROUP BY subject",
            (json.dumps(sorted(set(names))),),
        )
    }
    return {name: found.get(name, Reach(0, False)) for name in names}


def named(ledger: Ledger, names: Iterable[str]) -> dict[str, Subject]:
    """The subjects of these names that exist, by name."""
    return {
        row[0]: Subject(*row)
        for row in ledger.db.execute(
            f"{_SELECT} WHERE name IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(names))),),
        )
    }


@dataclass(frozen=True, slots=True)
class Talked:
    """A conversation that named a subject: id, hash8, title, when it started."""

    conv_id: str
    hash8: str
    title: str | None
    created_at: str | None


def talked_about(ledger: Ledger, name: str) -> list[Talked]:
    """The conversations whose chunks named the subject `name`, oldest first."""
    return [
        Talked(*row)
        for row in ledger.db.execute(
            "SELECT DISTINCT v.id, v.hash8, v.title, v.created_at FROM chunk_subjects s "
            "JOIN chunks c ON c.id = s.chunk_id JOIN conversations v ON v.id = c.conv_id "
            "WHERE s.subject = ? ORDER BY coalesce(v.created_at, ''), v.id",
            (name,),
        )
    ]


def folded_into(ledger: Ledger, name: str) -> str | None:
    """The article stem the subject `name` was folded or filed into, if any."""
    row = ledger.db.execute(
        "SELECT target_stem FROM subject_redirects WHERE subject = ? "
        "UNION ALL SELECT article_stem FROM subjects WHERE name = ? AND status = 'article' "
        "AND article_stem IS NOT NULL",
        (name, name),
    ).fetchone()
    return None if row is None else str(row[0])


def without_article_matching(ledger: Ledger, words: Sequence[str], limit: int) -> list[Subject]:
    """Subjects with no article of their own whose name holds every one of `words`
    (canonical, lower case), most talked about first."""
    if not words:
        return []
    like = " AND ".join("instr(s.name, ?) > 0" for _ in words)
    return [
        Subject(*row[:5])
        for row in ledger.db.execute(
            "SELECT s.name, s.display, s.status, s.article_stem, s.first_seen, "
            "(SELECT COUNT(*) FROM chunk_subjects m WHERE m.subject = s.name) AS n "
            f"FROM subjects s WHERE s.status != 'article' AND {like} "
            "AND EXISTS (SELECT 1 FROM chunk_subjects m WHERE m.subject = s.name) "
            "ORDER BY n DESC, s.name LIMIT ?",
            (*words, limit),
        )
    ]
