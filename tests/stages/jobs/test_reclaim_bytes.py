"""`dreaming reclaim` removes a Raw file only when a newer copy holds every byte of it.

The readers keep a reduced text (no thinking, a tool result as its line count, one
argument of a tool call, no `uuid`): a copy that differs only where they do not look
reads the same, but holds bytes the newer copy lacks, and is kept, saying where.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.checks.status import reclaimable
from dreaming.ledger import Ledger, conversations
from dreaming.raw import folder as raw_folder
from dreaming.raw.folder import byte_prefix
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from stages.jobs.reclaim import Reclaimed, Skipped, reclaim
from tests.import_support import chatgpt_conversation
from tests.stages.jobs.test_reclaim import LONG, SESSION, SHORT, put, run_cli
from tests.support import draws

Record = dict[str, Any]
PER_TURN = 5
"""Records a turn writes: the question, thinking, a tool call, its result, the answer."""


def records(turns: int, session_id: str = SESSION) -> list[Record]:
    """A Claude Code session in its real record shape: one record per content block."""
    return [r for i in range(turns) for r in turn(i, session_id)]


def turn(i: int, session_id: str) -> list[Record]:
    edit = {"file_path": "/home/ada/src/w.py", "old_string": "a = 1", "new_string": "a = 2"}
    call = {"type": "tool_use", "id": f"t{i}", "name": "Edit", "input": edit}
    result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "one\ntwo"}
    messages: list[tuple[str, Record]] = [
        ("user", {"role": "user", "content": f"Question {i} about the watcher?"}),
        ("assistant", assistant(f"m{i}", {"type": "thinking", "thinking": "Hm."})),
        ("assistant", assistant(f"m{i}", call)),
        ("user", {"role": "user", "content": [result]}),
        ("assistant", assistant(f"n{i}", {"type": "text", "text": f"Answer {i}."})),
    ]
    return [
        {
            "type": kind,
            "sessionId": session_id,
            "cwd": "/home/ada/src",
            "uuid": f"{i}-{n}",
            "parentUuid": f"{i}-{n - 1}" if n else (f"{i - 1}-{PER_TURN - 1}" if i else None),
            "timestamp": f"2026-01-01T00:{i:02d}:{n:02d}.000Z",
            "message": message,
        }
        for n, (kind, message) in enumerate(messages)
    ]


def assistant(msg_id: str, block: Record) -> Record:
    return {"role": "assistant", "id": msg_id, "content": [block]}


def jsonl(recs: list[Record]) -> str:
    return "".join(json.dumps(r) + "\n" for r in recs)


def _tool_result(r: Record) -> None:
    r["message"]["content"][0]["content"] = "one\n2"  # still two lines


def _thinking(r: Record) -> None:
    r["message"]["content"][0]["thinking"] = "Hm, the other way."


def _tool_input(r: Record) -> None:
    r["message"]["content"][0]["input"]["new_string"] = "a = 3"


def _cwd(r: Record) -> None:
    r["cwd"] = "/home/ada/elsewhere"


def _uuid(r: Record) -> None:
    r["uuid"] = "another-uuid"


# Each kind of difference, in a record of the second turn (lines 6 to 10).
DIFFERENCES: dict[str, tuple[int, Callable[[Record], None]]] = {
    "tool result": (9, _tool_result),
    "thinking block": (7, _thinking),
    "tool input": (8, _tool_input),
    "cwd": (6, _cwd),
    "uuid": (10, _uuid),
}


def copies(vault: Vault, ledger: Ledger, older: str, newer: str) -> None:
    put(vault, SHORT, older)
    put(vault, LONG, newer)
    ingest(vault, ledger)


@pytest.mark.parametrize("kind", sorted(DIFFERENCES))
def test_an_older_copy_differing_where_the_reader_does_not_look_is_kept(
    kind: str, vault: Vault, ledger: Ledger
) -> None:
    line, change = DIFFERENCES[kind]
    older = records(4)
    change(older[line - 1])
    copies(vault, ledger, jsonl(older), jsonl(records(6)))
    # The reader keeps none of the difference: by the text, the file is a prefix.
    assert [s.path for s in conversations.superseded(ledger)] == [SHORT]
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert report.skipped == [Skipped(SHORT, f"holds bytes {LONG} lacks (line {line} differs)")]
    assert (vault.root / SHORT).read_text(encoding="utf-8") == jsonl(older)


def test_the_older_copy_of_a_resumed_session_still_goes(vault: Vault, ledger: Ledger) -> None:
    copies(vault, ledger, jsonl(records(4)), jsonl(records(6)))
    size = len(jsonl(records(4)).encode())
    report = reclaim(vault, ledger)
    assert report.removed == [Reclaimed(SHORT, (LONG,), False, size)]
    assert not (vault.root / SHORT).exists()


def test_an_older_copy_with_a_line_past_the_newer_copys_end_is_kept(
    vault: Vault, ledger: Ledger
) -> None:
    # The newer copy ends inside the older one's last record: a summary line the
    # reader skips, which the newer copy does not have.
    summary = {"type": "summary", "summary": "Watcher work", "leafUuid": "elsewhere"}
    copies(vault, ledger, jsonl([*records(4), summary]), jsonl(records(4)))
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert [s.reason for s in report.skipped] == [
        f"holds bytes {LONG} lacks (from line 21, past its end)"
    ]


def test_status_lists_as_reclaimable_only_what_reclaim_removes(
    vault: Vault, ledger: Ledger
) -> None:
    older = records(4)
    _uuid(older[9])
    copies(vault, ledger, jsonl(older), jsonl(records(6)))
    put(vault, "Raw/backup/session.jsonl", jsonl(records(2)))
    ingest(vault, ledger)
    listed, kept = reclaimable(ledger, vault)
    report = reclaim(vault, ledger, dry_run=True)
    assert [r["file"] for r in listed] == [r.file for r in report.removed]
    assert [r["file"] for r in listed] == ["Raw/backup/session.jsonl"]
    assert kept == [{"file": SHORT, "reason": f"holds bytes {LONG} lacks (line 10 differs)"}]
    assert [(s.file, s.reason) for s in report.skipped] == [(k["file"], k["reason"]) for k in kept]


def test_the_commands_say_why_a_copy_is_kept(vault: Vault, ledger: Ledger) -> None:
    older = records(4)
    _thinking(older[6])
    copies(vault, ledger, jsonl(older), jsonl(records(6)))
    why = f"holds bytes {LONG} lacks (line 7 differs)"
    done = run_cli("reclaim", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"kept {SHORT}: {why}", "freed 0 bytes (0 files)"]
    shown = run_cli("status", "--vault", str(vault.root))
    assert shown.returncode == 0, shown.stderr
    assert f"kept {SHORT}: {why}" in shown.stdout
    assert "reclaimable" not in shown.stdout
    doc = json.loads(run_cli("status", "--vault", str(vault.root), "--json").stdout)
    assert (doc["reclaimable"], doc["reclaim_kept"]) == ([], [{"file": SHORT, "reason": why}])


def chatgpt_file(**changes: Any) -> str:
    return json.dumps(chatgpt_conversation(1, 1_700_000_000.0, turns=3) | changes)


def test_chatgpt_copies_differing_in_title_and_time_are_not_reclaimable(
    vault: Vault, ledger: Ledger
) -> None:
    first = put(vault, "Raw/export-2025/chat.json", chatgpt_file())
    second = put(
        vault,
        "Raw/export-2026/chat.json",
        chatgpt_file(title="Bread, renamed", create_time=1_600_000_000.0),
    )
    ingest(vault, ledger)
    # Same conversation id, same messages: the text calls one a copy of the other.
    (copy,) = conversations.superseded(ledger)
    assert copy.exact
    why = f"holds bytes {copy.holders[0]} lacks (line 1 differs)"
    assert reclaimable(ledger, vault) == ([], [{"file": copy.path, "reason": why}])
    report = reclaim(vault, ledger)
    assert report.removed == []
    assert first.exists()
    assert second.exists()


def test_an_identical_chatgpt_copy_is_removed(vault: Vault, ledger: Ledger) -> None:
    put(vault, "Raw/export-2025/chat.json", chatgpt_file())
    put(vault, "Raw/export-2026/chat.json", chatgpt_file())
    ingest(vault, ledger)
    (removed,) = reclaim(vault, ledger).removed
    assert removed.exact


# An edit a hypothesis draws: where in the older copy, what, and which character.
EDIT = st.tuples(
    st.floats(min_value=0, max_value=1),
    st.sampled_from(["insert", "delete", "replace"]),
    st.sampled_from('"\\{}[]:, \n0a-é') | st.characters(codec="utf-8"),
)
_examples = itertools.count()


def edited(text: str, edit: tuple[float, str, str]) -> str:
    where, op, char = edit
    at = min(int(where * len(text)), len(text) - 1)
    if op == "insert":
        return text[:at] + char + text[at:]
    if op == "delete":
        return text[:at] + text[at + 1 :]
    return text[:at] + char + text[at + 1 :]


@settings(
    max_examples=draws(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(edit=EDIT)
def test_an_edited_older_copy_is_removed_only_when_its_bytes_are_held(
    vault: Vault, ledger: Ledger, edit: tuple[float, str, str]
) -> None:
    n = next(_examples)
    sid = f"{n:08x}-1b2d-4c3e-8f4a-6b7c8d9e0f1a"
    newer = jsonl(records(3, sid)).encode()
    older = edited(jsonl(records(2, sid)), edit).encode()
    rel = f"Raw/old-{n}/session.jsonl"
    path = put(vault, rel, older)
    put(vault, f"Raw/new-{n}/session.jsonl", newer)
    ingest(vault, ledger)
    report = reclaim(vault, ledger)
    if rel in [r.file for r in report.removed]:
        assert newer.startswith(older)
    else:
        assert path.read_bytes() == older


LINES = st.lists(st.sampled_from([b"{}\n", b'{"a": 1}\n', b"x", b"\n", b"\r\n", b"\xc3\xa9"]))


@settings(max_examples=draws(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(start=LINES, first_rest=LINES, second_rest=LINES, block=st.integers(1, 9))
def test_byte_prefix_finds_where_two_files_part_across_blocks(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    start: list[bytes],
    first_rest: list[bytes],
    second_rest: list[bytes],
    block: int,
) -> None:
    monkeypatch.setattr(raw_folder, "_BLOCK", block)
    a, b = b"".join(start + first_rest), b"".join(start + second_rest)
    (tmp_path / "a").write_bytes(a)
    (tmp_path / "b").write_bytes(b)
    found = byte_prefix(tmp_path / "a", tmp_path / "b")
    assert (found.size, found.sha256) == (len(a), hashlib.sha256(a).hexdigest())
    pairs = enumerate(zip(a, b, strict=False))
    same = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
    if b.startswith(a):
        assert found.line is None
    else:
        assert found.line == a[:same].count(b"\n") + 1
        assert found.past_end == (same == len(b))
