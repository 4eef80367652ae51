from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import dreaming.raw
from dreaming.checks.status import reclaimable, status
from dreaming.errors import TranscriptError
from dreaming.ledger import Ledger, conversations
from dreaming.transcript import Conversation
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.support import drop, raw_note

# One Claude Code record; a file ending in half of one is still being written.
CLAUDE_LINE = (
    '{"type":"user","sessionId":"11111111-2222-3333-4444-555555555555",'
    '"uuid":"u1","timestamp":"2026-01-01T00:00:00Z",'
    '"message":{"role":"user","content":"hello"}}\n'
)
TALK = raw_note(("user", "How do I keep bread fresh?"), ("assistant", "Freeze it in slices."))


def messages(ledger: Ledger) -> list[tuple[str, str]]:
    return [
        (r["role"], r["text"])
        for r in ledger.db.execute("SELECT role, text FROM messages ORDER BY conv_id, position")
    ]


def test_a_dropped_transcript_becomes_a_conversation(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "bread.md", TALK)
    report = ingest(vault, ledger)
    assert report.conversations_new == 1
    assert messages(ledger) == [
        ("user", "How do I keep bread fresh?"),
        ("assistant", "Freeze it in slices."),
    ]


def test_raw_is_read_recursively(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "2026/01/bread.md", TALK)
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 1


def test_reingesting_unchanged_files_writes_nothing(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "bread.md", TALK)
    ingest(vault, ledger)
    before = ledger.db.total_changes
    report = ingest(vault, ledger)
    assert report.unchanged == 1
    assert ledger.db.total_changes == before


def test_a_touched_but_unchanged_file_is_not_read_again(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "bread.md", TALK)
    ingest(vault, ledger)
    os.utime(path, ns=(1, 1))
    report = ingest(vault, ledger)
    assert report.unchanged == 1
    assert report.conversations_updated == 0


def test_a_grown_transcript_updates_its_conversation_in_place(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "bread.md", TALK)
    ingest(vault, ledger)
    path.write_text(TALK + "## user\n\nAnd rolls?\n\n## assistant\n\nSame.\n", encoding="utf-8")
    report = ingest(vault, ledger)
    assert report.conversations_updated == 1
    assert report.messages_added == 2
    assert status(ledger)["conversations"] == 1
    assert messages(ledger)[-1] == ("assistant", "Same.")


def test_a_bad_file_is_recorded_and_the_rest_goes_on(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "broken.jsonl", b"\x00\x01\x02 not a transcript \xff\xfe")
    drop(vault, "bread.md", TALK)
    report = ingest(vault, ledger)
    assert report.conversations_new == 1
    failed = status(ledger)["failed"]
    assert [f["file"] for f in failed] == ["Raw/broken.jsonl"]
    assert failed[0]["reason"]
    assert "\n" not in failed[0]["reason"]


def test_a_fixed_file_leaves_the_failed_list(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "talk.md", b"\x00\x01binary")
    ingest(vault, ledger)
    path.write_text(TALK, encoding="utf-8")
    ingest(vault, ledger)
    assert status(ledger)["failed"] == []
    assert status(ledger)["conversations"] == 1


def test_a_half_written_jsonl_is_left_pending_not_half_ingested(
    vault: Vault, ledger: Ledger
) -> None:
    drop(vault, "s.jsonl", CLAUDE_LINE + CLAUDE_LINE[: len(CLAUDE_LINE) // 2])
    report = ingest(vault, ledger)
    assert [p for p, _ in report.pending] == ["Raw/s.jsonl"]
    assert status(ledger)["conversations"] == 0


def test_a_copy_of_a_shorter_version_is_reported_for_reclaim(vault: Vault, ledger: Ledger) -> None:
    old = drop(vault, "old/bread.md", TALK)
    new = drop(vault, "new/bread.md", TALK + "## user\n\nAnd rolls?\n\n")
    for path in (old, new):  # written an hour ago: no longer being written
        os.utime(path, (time.time() - 3600,) * 2)
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 1
    assert reclaimable(ledger, vault)[0] == [
        {
            "file": "Raw/old/bread.md",
            "superseded_by": "Raw/new/bread.md",
            "bytes": old.stat().st_size,
        }
    ]


def test_a_file_outside_the_vault_is_copied_into_raw(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    outside = tmp_path / "export.md"
    outside.write_text(TALK, encoding="utf-8")
    ingest(vault, ledger, [outside])
    assert (vault.raw / "export.md").read_text(encoding="utf-8") == TALK
    assert outside.read_text(encoding="utf-8") == TALK
    assert status(ledger)["conversations"] == 1


def test_the_seeded_readme_in_raw_is_not_a_transcript(vault: Vault, ledger: Ledger) -> None:
    ingest(vault, ledger)
    assert status(ledger)["files"]["total"] == 0


def test_a_cut_off_file_unchanged_for_long_is_reported_truncated(
    vault: Vault, ledger: Ledger
) -> None:
    path = drop(vault, "s.jsonl", CLAUDE_LINE + CLAUDE_LINE[: len(CLAUDE_LINE) // 2])
    os.utime(path, (1_000_000_000, 1_000_000_000))
    ingest(vault, ledger)
    (failed,) = status(ledger)["failed"]
    assert failed["file"] == "Raw/s.jsonl"
    assert "truncated" in (failed["reason"] or "")


def test_a_file_deleted_from_raw_is_forgotten_but_its_conversation_kept(
    vault: Vault, ledger: Ledger
) -> None:
    drop(vault, "a/bread.md", TALK)
    copy = drop(vault, "b/bread.md", TALK)
    ingest(vault, ledger)
    (vault.raw / "a" / "bread.md").unlink()
    report = ingest(vault, ledger)
    doc = status(ledger)
    assert report.removed == 1
    assert doc["files"]["total"] == 1
    assert conversations.superseded(ledger) == []
    assert doc["conversations"] == 1
    held = ledger.db.execute("SELECT file FROM conversations").fetchone()[0]
    assert held == vault.rel(copy)


def test_an_import_never_overwrites_a_different_file_of_the_same_name(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    mine = drop(vault, "talk.md", TALK)
    outside = tmp_path / "talk.md"
    other = raw_note(("user", "Another question"), ("assistant", "Another answer"))
    outside.write_text(other, encoding="utf-8")
    ingest(vault, ledger, [outside])
    assert mine.read_text(encoding="utf-8") == TALK
    assert (vault.raw / "talk-1.md").read_text(encoding="utf-8") == other
    assert not [p for p in vault.raw.iterdir() if p.name.startswith(".import-")]


def test_naming_a_missing_file_is_a_clear_error(vault: Vault, ledger: Ledger) -> None:
    with pytest.raises(TranscriptError, match="no such file"):
        ingest(vault, ledger, [vault.raw / "typo.jsonl"])


def test_a_named_unchanged_file_is_skipped_without_a_write(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "bread.md", TALK)
    ingest(vault, ledger, [path])
    before = ledger.db.total_changes
    report = ingest(vault, ledger, [path])
    assert report.unchanged == 1
    assert ledger.db.total_changes == before


def test_a_reader_bug_fails_the_file_with_its_traceback_kept(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path, text: str) -> list[Conversation]:
        raise KeyError("a reader bug")

    monkeypatch.setitem(dreaming.raw._READERS, "raw", broken)
    drop(vault, "bread.md", TALK)
    report = ingest(vault, ledger)
    [(rel, reason)] = report.failed
    assert rel == "Raw/bread.md"
    assert reason == (
        "internal error reading it as raw (KeyError); "
        "please report it with .dreaming/logs/internal.log"
    )
    assert "a reader bug" in (vault.logs / "internal.log").read_text(encoding="utf-8")
