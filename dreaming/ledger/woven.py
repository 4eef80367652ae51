"""`woven`: which chunk SYNTHESIZE has folded into which article, and where chunks point.

A chunk fans out to every article a subject it names resolves to (its own
article, or the one a redirect sends it to). Progress is kept per (chunk,
article), so a chunk woven into one article and refused by another is only
tried again for the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.ledger.connection import Ledger


@dataclass(frozen=True, slots=True)
class Target:
    chunk_id: str
    stem: str
    """The article a subject the chunk names resolves to."""
    subject: str
    surface: str
    """The name as the chunk wrote it."""


def targets(ledger: Ledger, chunk_ids: Sequence[str]) -> list[Target]:
    """Where each chunk's subjects live, in the order of `chunk_ids`, then by stem and
    subject; a subject with no article and no redirect (captured, candidate) has none."""
    order = {c: i for i, c in enumerate(chunk_ids)}
    found = [
        Target(*row)
        for row in ledger.each_in(
            "SELECT cs.chunk_id, "
            "CASE WHEN s.status = 'article' THEN s.article_stem ELSE r.target_stem END, "
            "cs.subject, cs.surface FROM chunk_subjects cs "
            "JOIN subjects s ON s.name = cs.subject "
            "LEFT JOIN subject_redirects r ON r.subject = cs.subject "
            "WHERE cs.chunk_id IN ({marks}) "
            "AND (s.status = 'article' "
            "OR (s.status = 'redirect' AND r.target_stem IS NOT NULL))",
            chunk_ids,
        )
    ]
    return sorted(found, key=lambda t: (order[t.chunk_id], t.stem, t.subject))


def record(ledger: Ledger, stem: str, chunk_ids: Sequence[str], run_id: str, now: str) -> None:
    """These chunks are folded into the article `stem` (again: no change)."""
    ledger.db.executemany(
        "INSERT INTO woven(chunk_id, stem, run_id, woven_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(chunk_id, stem) DO NOTHING",
        [(c, stem, run_id, now) for c in chunk_ids],
    )


def into(ledger: Ledger, chunk_ids: Sequence[str]) -> set[tuple[str, str]]:
    """(chunk, stem) for each of these chunks already woven into an article."""
    return {
        (row[0], row[1])
        for row in ledger.each_in(
            "SELECT chunk_id, stem FROM woven WHERE chunk_id IN ({marks})", chunk_ids
        )
    }


def waiting(ledger: Ledger) -> set[str]:
    """Stems of filed articles with a chunk not yet woven into them: an article whose
    writing failed (or has not run yet) and is tried again next night."""
    return {
        row[0]
        for row in ledger.db.execute(
            "SELECT DISTINCT s.article_stem FROM subjects s "
            "JOIN chunk_subjects cs ON cs.subject = s.name "
            "LEFT JOIN woven w ON w.chunk_id = cs.chunk_id AND w.stem = s.article_stem "
            "WHERE s.status = 'article' AND w.chunk_id IS NULL"
        )
    }


def unhomed(ledger: Ledger, chunk_ids: Sequence[str]) -> set[str]:
    """Those of `chunk_ids` naming a subject with no home yet (captured or candidate):
    they stay in `_captured` until it graduates."""
    return {
        row[0]
        for row in ledger.each_in(
            "SELECT DISTINCT cs.chunk_id FROM chunk_subjects cs "
            "JOIN subjects s ON s.name = cs.subject "
            "WHERE cs.chunk_id IN ({marks}) AND s.status IN ('captured', 'candidate')",
            chunk_ids,
        )
    }


def ranges(ledger: Ledger, stem: str) -> dict[str, list[tuple[int, int]]]:
    """conversation id → the (first, last) message ranges of the chunks woven into the
    article `stem`: the very messages it was written from."""
    found: dict[str, list[tuple[int, int]]] = {}
    for conv_id, first, last in ledger.db.execute(
        "SELECT c.conv_id, c.first_message, c.last_message FROM woven w "
        "JOIN chunks c ON c.id = w.chunk_id WHERE w.stem = ? ORDER BY c.conv_id, c.first_message",
        (stem,),
    ):
        found.setdefault(conv_id, []).append((int(first), int(last)))
    return found
