"""The pipeline's tables: work units, chunks, subjects, buckets, runs, gate rejections."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest

from dreaming.errors import LedgerError
from dreaming.ledger import (
    Ledger,
    buckets,
    chunks,
    conversations,
    gate_rejections,
    runs,
    subjects,
    work,
)
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.gate_rejections import GateRejection
from dreaming.ledger.raw_files import FileState
from dreaming.ledger.runs import Run, RunKind, RunStatus
from dreaming.ledger.subjects import Mention, SubjectStatus
from dreaming.ledger.work import WorkStatus
from dreaming.transcript import Message

NOW = "2026-03-02T03:00:00+00:00"
LATER = "2026-03-03T03:00:00+00:00"


def conversation(ledger: Ledger, conv_id: str, updated_at: str = NOW) -> None:
    conversations.put(
        ledger,
        NewConversation(conv_id, conv_id[:8], "raw", "Raw/a.md", None, None, None, updated_at,
                        4, "sha"),
        NOW,
    )  # fmt: skip


def chunk(conv_id: str, first: int, last: int, label: str = "bread") -> Chunk:
    return Chunk(conv_id, first, last, label, f"h{first}{last}", "seg-1")


def night(ledger: Ledger, run_id: str = "n1") -> str:
    runs.put(ledger, Run(run_id, "night", NOW, None, "running"))
    return run_id


# --- work -----------------------------------------------------------------------


def test_nothing_new_means_no_unit_to_do(ledger: Ledger) -> None:
    run = night(ledger)
    for unit in ("c1", "c2"):
        work.record(ledger, "segment", unit, "h-" + unit, "done", run_id=run, now=NOW)
    assert work.todo(ledger, "segment", {"c1": "h-c1", "c2": "h-c2"}) == []


def test_a_unit_whose_input_changed_is_to_do_again(ledger: Ledger) -> None:
    work.record(ledger, "segment", "c1", "old", "done", run_id=None, now=NOW)
    assert work.todo(ledger, "segment", {"c1": "new", "c2": "h"}) == ["c1", "c2"]


def test_done_in_one_stage_is_not_done_in_another(ledger: Ledger) -> None:
    work.record(ledger, "segment", "c1", "h", "done", run_id=None, now=NOW)
    assert work.todo(ledger, "extract", {"c1": "h"}) == ["c1"]


def test_a_failed_or_rejected_unit_is_retried_and_its_attempts_counted(ledger: Ledger) -> None:
    run = night(ledger)
    work.record(ledger, "synthesize", "b1", "h", "failed", run_id=run, now=NOW, error="timeout")
    work.record(ledger, "synthesize", "b1", "h", "rejected", run_id=run, now=LATER, error="x")
    assert work.todo(ledger, "synthesize", {"b1": "h"}) == ["b1"]
    item = work.get(ledger, "synthesize", "b1")
    assert item is not None
    assert (item.status, item.attempts, item.last_error, item.run_id) == ("rejected", 2, "x", run)


def test_a_new_input_starts_the_attempts_again(ledger: Ledger) -> None:
    work.record(ledger, "extract", "k", "h1", "failed", run_id=None, now=NOW, error="e")
    work.record(ledger, "extract", "k", "h2", "done", run_id=None, now=LATER)
    item = work.get(ledger, "extract", "k")
    assert item is not None
    assert (item.input_hash, item.status, item.attempts, item.last_error) == ("h2", "done", 1, None)


def test_the_backlog_is_conversations_no_night_took_through_extract(ledger: Ledger) -> None:
    run = night(ledger)
    for conv in ("new", "segmented", "extracted", "given-up"):
        conversation(ledger, conv)
    chunks.replace(ledger, "segmented", [chunk("segmented", 0, 3)], NOW)
    chunks.replace(ledger, "extracted", [chunk("extracted", 0, 3)], NOW)
    for conv in ("segmented", "extracted"):
        work.record(ledger, "segment", conv, "h", "done", run_id=run, now=NOW)
    work.record(ledger, "extract", "extracted:0-3", "h", "done", run_id=run, now=NOW)
    for _ in range(work.MAX_ATTEMPTS):
        work.record(ledger, "segment", "given-up", "h", "failed", run_id=run, now=NOW)
    assert work.backlog(ledger) == 2  # "new" and "segmented"
    work.record(ledger, "extract", "segmented:0-3", "h", "failed", run_id=run, now=NOW)
    assert work.backlog(ledger) == 2
    work.record(ledger, "extract", "segmented:0-3", "h", "done", run_id=run, now=NOW)
    assert work.backlog(ledger) == 1


def test_the_backlog_rows_say_each_waiting_conversation_s_size_time_and_progress(
    ledger: Ledger,
) -> None:
    run = night(ledger)
    conversation(ledger, "old", "2025-01-05T10:00:00+00:00")
    conversation(ledger, "new", "2026-02-01T10:00:00+00:00")
    conversation(ledger, "half", "2025-06-01T10:00:00+00:00")
    conversation(ledger, "done", "2025-07-01T10:00:00+00:00")
    for conv in ("half", "done"):
        chunks.replace(ledger, conv, [chunk(conv, 0, 3)], NOW)
        work.record(ledger, "segment", conv, "h", "done", run_id=run, now=NOW)
    work.record(ledger, "extract", "done:0-3", "h", "done", run_id=run, now=NOW)
    found = {r.id: r for r in work.backlog_rows(ledger)}
    assert set(found) == {"old", "new", "half"}
    assert found["old"] == work.BacklogRow("old", 4, "2025-01-05T10:00:00+00:00", False)
    assert found["half"].segmented
    assert len(found) == work.backlog(ledger)


# --- runs' pace -----------------------------------------------------------------


def test_a_run_s_pace_is_kept_and_the_recent_nights_that_took_conversations_are_read(
    ledger: Ledger,
) -> None:
    for i, taken in enumerate((3, 0, 5, 2)):
        run_id = f"n{i}"
        runs.put(ledger, Run(run_id, "night", f"2026-03-0{i + 1}T03:00:00+00:00", None, "running"))
        runs.record_pace(ledger, run_id, runs.RunPace(taken, taken * 10, 9.0 * taken, 10.0, 7))
    runs.put(ledger, Run("s", "stage", "2026-03-09T03:00:00+00:00", None, "running"))
    runs.record_pace(ledger, "s", runs.RunPace(4, 40, 1.0, 1.0, 1))
    found = runs.measured(ledger, nights=2)
    assert [p.conversations for p in found] == [2, 5], "newest first; none that took nothing"
    assert found[0] == runs.RunPace(2, 20, 18.0, 10.0, 7)
    assert runs.pace_of(ledger, "n1") == runs.RunPace(0, 0, 0.0, 10.0, 7)
    runs.put(ledger, Run("old", "night", NOW, None, "running"))
    assert runs.pace_of(ledger, "old") is None


# --- chunks ---------------------------------------------------------------------


def test_chunk_ids_follow_their_range() -> None:
    assert chunk("conv", 2, 5).id == "conv:2-5"


def test_resegmenting_keeps_unchanged_chunks_and_what_hangs_off_them(ledger: Ledger) -> None:
    conversation(ledger, "conv")
    chunks.replace(ledger, "conv", [chunk("conv", 0, 1), chunk("conv", 2, 3)], NOW)
    subjects.add(ledger, "bread", "Bread", NOW)
    subjects.mention(ledger, Mention("conv:0-1", "bread", "bread", True))
    subjects.mention(ledger, Mention("conv:2-3", "bread", "loaf", False))
    chunks.replace(ledger, "conv", [chunk("conv", 0, 1, "bread, again"), chunk("conv", 2, 2)], NOW)
    assert [(c.id, c.label) for c in chunks.of_conversation(ledger, "conv")] == [
        ("conv:0-1", "bread, again"),
        ("conv:2-2", "bread"),
    ]
    assert [m.surface for m in subjects.mentions_in(ledger, "conv:0-1")] == ["bread"]
    assert subjects.mentions_in(ledger, "conv:2-3") == []


def test_a_chunk_needs_its_conversation(ledger: Ledger) -> None:
    with pytest.raises(LedgerError, match="FOREIGN KEY"):
        chunks.replace(ledger, "nobody", [chunk("nobody", 0, 1)], NOW)


def test_a_chunk_range_runs_forwards(ledger: Ledger) -> None:
    conversation(ledger, "conv")
    with pytest.raises(LedgerError, match="CHECK"):
        chunks.replace(ledger, "conv", [chunk("conv", 3, 1)], NOW)


def test_every_chunk_comes_with_its_messages_in_one_pass_oldest_conversation_first(
    ledger: Ledger,
) -> None:
    for conv_id, updated in (("late", LATER), ("early", NOW)):
        conversation(ledger, conv_id, updated)
        conversations.add_messages(
            ledger, conv_id, 0, [Message("user", f"{conv_id} {i}") for i in range(4)]
        )
    chunks.replace(ledger, "late", [chunk("late", 0, 2), chunk("late", 3, 3)], NOW)
    chunks.replace(ledger, "early", [chunk("early", 0, 3)], NOW)
    found = [(c.id, [m.text for m in ms]) for c, ms in chunks.in_order_with_messages(ledger)]
    assert found == [
        ("early:0-3", ["early 0", "early 1", "early 2", "early 3"]),
        ("late:0-2", ["late 0", "late 1", "late 2"]),
        ("late:3-3", ["late 3"]),
    ]
    assert [c.id for c, _ in chunks.in_order_with_messages(ledger)] == [
        c.id for c in chunks.in_order(ledger)
    ]


# --- subjects -------------------------------------------------------------------


def test_a_subject_is_added_once_as_a_candidate(ledger: Ledger) -> None:
    first = subjects.add(ledger, "sourdough", "Sourdough", NOW)
    again = subjects.add(ledger, "sourdough", "sourdough", LATER)
    assert first == again
    assert (first.display, first.status, first.first_seen) == ("Sourdough", "candidate", NOW)


def test_a_subject_with_an_article_names_it(ledger: Ledger) -> None:
    subjects.add(ledger, "sourdough", "Sourdough", NOW)
    subjects.set_status(ledger, "sourdough", "article", "Sourdough")
    found = subjects.get(ledger, "sourdough")
    assert found is not None
    assert (found.status, found.article_stem) == ("article", "Sourdough")
    with pytest.raises(LedgerError, match="CHECK"):
        subjects.set_status(ledger, "sourdough", "article", None)


def test_a_main_mention_stays_main(ledger: Ledger) -> None:
    conversation(ledger, "conv")
    chunks.replace(ledger, "conv", [chunk("conv", 0, 1)], NOW)
    subjects.add(ledger, "bread", "Bread", NOW)
    subjects.mention(ledger, Mention("conv:0-1", "bread", "Bread", True))
    subjects.mention(ledger, Mention("conv:0-1", "bread", "loaf", False))
    assert subjects.mentions_in(ledger, "conv:0-1") == [Mention("conv:0-1", "bread", "Bread", True)]


def test_a_folded_subject_resolves_to_its_home(ledger: Ledger) -> None:
    subjects.add(ledger, "levain", "Levain", NOW)
    subjects.set_status(ledger, "levain", "redirect")
    subjects.redirect(ledger, "levain", "Sourdough", "folded", NOW)
    subjects.redirect(ledger, "levain", "Sourdough_Starter", "folded", LATER)
    assert subjects.redirects(ledger) == {"levain": "Sourdough_Starter"}


# --- buckets --------------------------------------------------------------------


def test_the_captured_bucket_is_always_there(ledger: Ledger) -> None:
    conversation(ledger, "conv")
    chunks.replace(ledger, "conv", [chunk("conv", 0, 1)], NOW)
    buckets.add_chunk(ledger, buckets.CAPTURED, "conv:0-1", NOW)
    assert buckets.with_delta(ledger) == [
        buckets.Bucket(buckets.CAPTURED, "_captured", "_captured")
    ]


def test_no_story_takes_the_captured_key(ledger: Ledger) -> None:
    with pytest.raises(LedgerError, match="CHECK"):
        buckets.for_label(ledger, "_captured", "_captured", NOW)


def test_the_same_story_finds_its_bucket(ledger: Ledger) -> None:
    one = buckets.for_label(ledger, "Bread freezing", "bread freezing", NOW)
    two = buckets.for_label(ledger, "bread  freezing", "bread freezing", LATER)
    assert one == two
    assert one.id != buckets.CAPTURED


def test_a_bucket_delta_is_its_unsynthesized_chunks_oldest_first(ledger: Ledger) -> None:
    run = night(ledger)
    conversation(ledger, "new", updated_at=LATER)
    conversation(ledger, "old", updated_at=NOW)
    chunks.replace(ledger, "new", [chunk("new", 0, 1)], NOW)
    chunks.replace(ledger, "old", [chunk("old", 0, 1), chunk("old", 2, 3)], NOW)
    story = buckets.for_label(ledger, "Bread", "bread", NOW)
    for c in ("new:0-1", "old:2-3", "old:0-1", "old:0-1"):
        buckets.add_chunk(ledger, story.id, c, NOW)
    assert buckets.delta(ledger, story.id) == ["old:0-1", "old:2-3", "new:0-1"]
    assert buckets.with_delta(ledger) == [story]
    buckets.mark_synthesized(ledger, story.id, ["old:0-1", "old:2-3"], run)
    assert buckets.delta(ledger, story.id) == ["new:0-1"]
    buckets.mark_synthesized(ledger, story.id, ["new:0-1"], run)
    assert buckets.with_delta(ledger) == []


# --- runs and gate rejections ---------------------------------------------------


def test_a_run_records_its_outcome_and_commit(ledger: Ledger) -> None:
    run = night(ledger)
    runs.finish(ledger, run, "ok", LATER, {"articles": 2}, commit_sha="ab" * 20)
    assert runs.get(ledger, run) == Run(run, "night", NOW, LATER, "ok", {"articles": 2}, "ab" * 20)


@pytest.mark.parametrize(
    "bad",
    [
        Run("r", "nap", NOW, NOW, "ok"),  # type: ignore[arg-type]
        Run("r", "night", NOW, NOW, "fine"),  # type: ignore[arg-type]
        Run("r", "night", NOW, NOW, "running"),
        Run("r", "night", NOW, None, "ok"),
        Run("r", "night", NOW, NOW, "ok", commit_sha="abc"),
    ],
)
def test_the_ledger_refuses_a_run_that_cannot_be(ledger: Ledger, bad: Run) -> None:
    with pytest.raises(LedgerError, match="CHECK"):
        runs.put(ledger, bad)


def test_gate_rejections_are_kept_per_run_in_order(ledger: Ledger) -> None:
    run = night(ledger)
    night(ledger, "n2")
    made = [
        GateRejection(run, "synthesize", "b1", "Bread", "citation_lost", "[^2]", NOW),
        GateRejection("n2", "link", "Bread", "Bread", "words_lost", "-40", NOW),
        GateRejection(run, "editorial", "Bread", "Bread", "words_lost", "-9", NOW),
    ]  # fmt: skip
    for r in made:
        gate_rejections.record(ledger, r)
    assert gate_rejections.of_run(ledger, run) == [made[0], made[2]]


# --- the types say what the schema allows ---------------------------------------


@pytest.mark.parametrize(
    ("table", "column", "literal"),
    [
        ("raw_files", "status", FileState),
        ("runs", "kind", RunKind),
        ("runs", "status", RunStatus),
        ("work", "status", WorkStatus),
        ("subjects", "status", SubjectStatus),
    ],
)
def test_each_literal_type_lists_what_the_schema_allows(
    ledger: Ledger, table: str, column: str, literal: Any
) -> None:
    (sql,) = ledger.db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    m = re.search(rf"\b{column} IN \(([^)]*)\)", sql)
    assert m is not None
    allowed = tuple(v.strip().strip("'") for v in m.group(1).split(","))
    assert allowed == get_args(literal)


# Every SQLite keyword (https://sqlite.org/lang_keywords.html).
SQL_KEYWORDS = frozenset(
    re.findall(
        r"\w+",
        """
ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN
BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS
CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE
DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL
FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE
IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST
LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR
ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE
REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS
SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION
UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT
""",
    )
)


def test_no_column_is_named_with_an_sql_keyword(ledger: Ledger) -> None:
    tables = [
        r[0] for r in ledger.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ]
    named = {
        f"{t}.{col[1]}"
        for t in tables
        for col in ledger.db.execute(f"PRAGMA table_info({t})")
        if col[1].upper() in SQL_KEYWORDS
    }
    assert named == set()
