"""Ingest against careless and hostile input: nothing lost, nothing leaked."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dreaming.checks.status import status
from dreaming.ledger import Ledger, conversations
from dreaming.raw import read_transcript
from dreaming.transcript import Conversation
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.support import FIXTURES, drop, raw_note
from tests.watcher.test_cli import dreaming

SESSION = "11111111-2222-3333-4444-555555555555"


def chat(*texts: str) -> str:
    """A hand-written Raw Markdown chat without an id: user and assistant alternate."""
    roles = ("user", "assistant")
    return raw_note(*((roles[i % 2], t) for i, t in enumerate(texts)))


def conversation_texts(ledger: Ledger) -> set[tuple[str, ...]]:
    rows = ledger.db.execute("SELECT conv_id, text FROM messages ORDER BY conv_id, position")
    by_conv: dict[str, list[str]] = {}
    for row in rows:
        by_conv.setdefault(row["conv_id"], []).append(row["text"])
    return {tuple(texts) for texts in by_conv.values()}


# --- 1. identity comes from the file, never from an opening line ---------------


def test_chats_that_open_alike_stay_distinct(vault: Vault, ledger: Ledger) -> None:
    chats = [chat("hello", f"Hi! Topic {n}.", f"Tell me about {n}") for n in "abcd"]
    for n, text in enumerate(chats):
        drop(vault, f"chat{n}.md", text)
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 4
    assert len(conversation_texts(ledger)) == 4


def test_a_renamed_chat_keeps_its_conversation(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "a.md", chat("hello", "Bread stays fresh frozen."))
    second = drop(vault, "b.md", chat("hello", "Cars need oil."))
    ingest(vault, ledger)
    before = {row["id"] for row in ledger.db.execute("SELECT id FROM conversations")}
    second.rename(vault.raw / "renamed.md")
    ingest(vault, ledger)
    after = {row["id"] for row in ledger.db.execute("SELECT id FROM conversations")}
    assert after == before


def test_markdown_chats_that_open_alike_stay_distinct(vault: Vault, ledger: Ledger) -> None:
    for n in range(3):
        drop(vault, f"c{n}.md", f"**User:** hello\n\n**Assistant:** answer {n}\n")
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 3


def test_a_longer_different_chat_never_replaces_a_shorter_one(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "a.md", chat("hello", "Bread stays fresh frozen."))
    ingest(vault, ledger)
    drop(vault, "b.md", chat("hello", "Cars need oil.", "more?", "Yes."))
    ingest(vault, ledger)
    assert ("hello", "Bread stays fresh frozen.") in conversation_texts(ledger)
    assert status(ledger)["conversations"] == 2


def test_a_grown_copy_in_another_file_is_growth(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "a.md", chat("hello", "Bread stays fresh frozen."))
    ingest(vault, ledger)
    drop(vault, "b.md", chat("hello", "Bread stays fresh frozen.", "And rolls?", "Same."))
    report = ingest(vault, ledger)
    assert report.conversations_updated == 1
    assert status(ledger)["conversations"] == 1


def test_a_file_edited_in_place_keeps_its_conversation(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "a.md", chat("hello", "Bread stays fresh frozen."))
    ingest(vault, ledger)
    path.write_text(chat("hello there", "Bread stays fresh when frozen."), encoding="utf-8")
    report = ingest(vault, ledger)
    assert report.conversations_updated == 1
    assert conversation_texts(ledger) == {("hello there", "Bread stays fresh when frozen.")}


def aider_session(when: str, prompt: str) -> str:
    return f"\n# aider chat started at {when}\n\n#### {prompt}  \n\nSure.\n"


def test_a_history_that_gains_a_session_keeps_both(vault: Vault, ledger: Ledger) -> None:
    first = aider_session("2026-01-01 10:00:00", "rename the module")
    path = drop(vault, "proj.aider.chat.history.md", first)
    ingest(vault, ledger)
    path.write_text(first + aider_session("2026-01-02 10:00:00", "add a test"), encoding="utf-8")
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 2


def pi_session(*lines: dict[str, object]) -> str:
    header = {"type": "session", "id": "pi-session-1", "timestamp": "2026-01-01T00:00:00Z"}
    return "".join(json.dumps(x) + "\n" for x in (header, *lines))


def pi_message(role: str, text: str) -> dict[str, object]:
    return {"type": "message", "message": {"role": role, "content": text}}


def test_a_pi_copy_with_a_duplicated_line_does_not_replace_the_original(
    vault: Vault, ledger: Ledger
) -> None:
    q, a = pi_message("user", "question"), pi_message("assistant", "answer")
    q2, a2 = pi_message("user", "more"), pi_message("assistant", "done")
    drop(vault, "a.jsonl", pi_session(q, a, q2, a2))
    ingest(vault, ledger)
    drop(vault, "b.jsonl", pi_session(q, a, a, q2, a2))
    ingest(vault, ledger)
    assert ("question", "answer", "more", "done") in conversation_texts(ledger)


# --- 3. size is checked before reading; one bad file never rolls back others ----


def test_a_file_over_the_limit_is_skipped_unread(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = drop(vault, "big.md", chat("x" * 3000, "y"))
    drop(vault, "small.md", chat("hi", "hello"))

    def no_reading(self: Path) -> bytes:
        raise AssertionError(f"{self} was read whole")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    report = ingest(vault, ledger, max_file_bytes=2048)
    assert report.conversations_new == 1
    ((rel, reason),) = report.failed
    assert rel == vault.rel(big)
    assert "max_raw_file_mb" in reason


@pytest.mark.slow  # the console script in a child process
def test_the_cli_takes_the_limit_from_the_vault_settings(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / ".dreaming" / "config.toml").write_text("max_raw_file_mb = 1\n")
    (root / "Raw" / "big.md").write_text(chat("x" * (1024 * 1024), "y"), encoding="utf-8")
    done = dreaming("ingest", "--vault", str(root))
    assert "big.md: file is 2 MB, over the 1 MB limit" in done.stderr
    assert "max_raw_file_mb in .dreaming/config.toml" in done.stderr


def test_a_memory_error_in_one_file_fails_only_that_file(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stages.jobs.ingest as ingest_module

    drop(vault, "a.md", chat("hi", "hello"))
    drop(vault, "b.md", chat("boom", "x"))
    real = read_transcript

    def exploding(path: Path, *args: object, **kwargs: object) -> object:
        if path.name == "b.md":
            raise MemoryError
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_module, "read_transcript", exploding)
    report = ingest(vault, ledger)
    assert report.conversations_new == 1
    assert [rel for rel, _ in report.failed] == ["Raw/b.md"]


def test_a_lone_surrogate_escape_fails_nothing(vault: Vault, ledger: Ledger) -> None:
    record = {"type": "user", "sessionId": "s\ud800", "message": {"role": "user",
              "content": "bad \ud800 here"}}  # fmt: skip
    drop(vault, "s.jsonl", json.dumps(record) + "\n")
    drop(vault, "a.md", chat("hi", "hello"))
    report = ingest(vault, ledger)
    assert report.conversations_new == 2
    assert ("bad \ufffd here",) in conversation_texts(ledger)


def test_a_file_that_fails_to_store_fails_alone(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    drop(vault, "a.md", chat("hi", "hello"))
    drop(vault, "b.md", chat("boom", "x"))
    real = conversations._sync_messages

    def failing(ledger: Ledger, conv: Conversation) -> int:
        if conv.messages[0].text == "boom":
            raise ValueError("a bug in storing")
        return real(ledger, conv)

    monkeypatch.setattr(conversations, "_sync_messages", failing)
    report = ingest(vault, ledger)
    assert (report.conversations_new, report.messages_added) == (1, 2)
    assert conversation_texts(ledger) == {("hi", "hello")}
    assert [rel for rel, _ in report.failed] == ["Raw/b.md"]


def claude_session_lines(n: int, result_bytes: int) -> Iterator[str]:
    """A Claude Code session whose bytes are mostly tool results, as real ones are."""
    big = "z" * result_bytes
    for i in range(n):
        base = {"sessionId": SESSION, "timestamp": "2026-01-01T00:00:00Z"}
        yield (
            json.dumps(
                base
                | {
                    "type": "assistant",
                    "uuid": f"a{i}",
                    "message": {
                        "role": "assistant",
                        "id": f"m{i}",
                        "content": [
                            {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"p": "x"}}
                        ],
                    },
                }
            )
            + "\n"
        )
        yield (
            json.dumps(
                base
                | {
                    "type": "user",
                    "uuid": f"u{i}",
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"t{i}", "content": big}
                        ],
                    },
                }
            )
            + "\n"
        )


def test_a_jsonl_session_is_streamed_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "user", "sessionId": SESSION, "message": {
            "role": "user", "content": "hello"}}) + "\n")  # fmt: skip
        f.writelines(claude_session_lines(200, 40_000))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        result = read_transcript(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.conversations
    assert peak < size / 4


# --- 5. nothing outside the vault is read ---------------------------------------


def test_a_link_in_raw_to_a_file_outside_the_vault_is_skipped(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(chat("my password", "is hunter2"), encoding="utf-8")
    (vault.raw / "passwd.md").symlink_to(secret)
    report = ingest(vault, ledger)
    assert status(ledger)["conversations"] == 0
    ((rel, reason),) = report.failed
    assert rel == "Raw/passwd.md"
    assert "outside the vault" in reason


def test_a_named_link_leaving_the_vault_is_not_copied_in(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(chat("my password", "is hunter2"), encoding="utf-8")
    link = vault.raw / "passwd.md"
    link.symlink_to(secret)
    report = ingest(vault, ledger, [link])
    assert status(ledger)["conversations"] == 0
    assert [rel for rel, _ in report.failed] == ["Raw/passwd.md"]
    assert sorted(
        p.name for p in vault.raw.iterdir() if p.name not in {"README.md", ".gitignore"}
    ) == ["passwd.md"]


def test_a_folder_link_leaving_the_vault_is_not_read(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text(chat("my password", "is hunter2"), encoding="utf-8")
    (vault.raw / "linked").symlink_to(outside, target_is_directory=True)
    ingest(vault, ledger)
    ingest(vault, ledger, [vault.raw / "linked" / "secret.md"])
    assert status(ledger)["conversations"] == 0


def test_a_subagent_sidecar_linking_outside_the_vault_is_not_read(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"agentType": "x", "description": "the secret"}))
    line = {"type": "user", "sessionId": SESSION, "agentId": "a1", "isSidechain": True,
            "message": {"role": "user", "content": "do it"}}  # fmt: skip
    drop(vault, "agent-a1.jsonl", json.dumps(line) + "\n")
    (vault.raw / "agent-a1.meta.json").symlink_to(secret)
    ingest(vault, ledger)
    (title,) = [r[0] for r in ledger.db.execute("SELECT title FROM conversations")]
    assert "secret" not in title


@pytest.mark.timeout(20)
def test_a_named_pipe_as_a_subagent_sidecar_does_not_hang_ingest(
    vault: Vault, ledger: Ledger
) -> None:
    line = {"type": "user", "sessionId": SESSION, "agentId": "a1", "isSidechain": True,
            "message": {"role": "user", "content": "do it"}}  # fmt: skip
    drop(vault, "agent-a1.jsonl", json.dumps(line) + "\n")
    os.mkfifo(vault.raw / "agent-a1.meta.json")
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 1


def test_a_link_inside_the_vault_is_read(vault: Vault, ledger: Ledger) -> None:
    real = drop(vault, "real/a.md", chat("hi", "hello"))
    (vault.raw / "alias.md").symlink_to(real)
    ingest(vault, ledger)
    assert status(ledger)["conversations"] == 1


# --- 6. names are escaped wherever they are printed -----------------------------

HOSTILE = "evil\x1b[2J\x1b]0;owned\x07\nname.md"


@pytest.mark.slow  # the console script in a child process
def test_control_characters_in_names_never_reach_the_terminal(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / "Raw" / HOSTILE).write_bytes(b"\x00\x01binary")
    ingested = dreaming("ingest", "--vault", str(root))
    shown = dreaming("status", "--vault", str(root))
    for out in (ingested.stdout, ingested.stderr, shown.stdout, shown.stderr):
        assert "\x1b" not in out
        assert "\x07" not in out
    (line,) = [ln for ln in ingested.stderr.splitlines() if "evil" in ln]
    assert "binary" in line
    assert "\\x1b" in line


# --- 7. counts are read under the lock ------------------------------------------


def test_a_concurrent_ingest_reports_what_this_one_did(vault: Vault, ledger: Ledger) -> None:
    for n in range(3):
        drop(vault, f"c{n}.md", chat(f"question {n}", "answer"))
    real = ledger.transaction

    @contextmanager
    def other_ingest_first() -> Iterator[sqlite3.Connection]:
        with Ledger(vault.ledger_path) as other:
            ingest(vault, other)
        with real() as db:
            yield db

    ledger.transaction = other_ingest_first  # type: ignore[method-assign]
    report = ingest(vault, ledger)
    assert (report.ingested, report.unchanged) == (0, 3)


# --- 8. one copy of an external file, updated in place --------------------------


def test_a_growing_external_file_keeps_one_copy_in_raw(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    outside = tmp_path / "export.md"
    texts = ["q0", "a0"]
    for n in range(5):
        outside.write_text(chat(*texts), encoding="utf-8")
        ingest(vault, ledger, [outside])
        texts += [f"q{n + 1}", f"a{n + 1}"]
    copies = [p.name for p in vault.raw.iterdir() if p.name not in {"README.md", ".gitignore"}]
    assert copies == ["export.md"]
    assert status(ledger)["conversations"] == 1


def test_an_import_is_copied_without_reading_the_file_whole(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "export.md"
    outside.write_text(chat("hi", "hello"), encoding="utf-8")

    def no_reading(self: Path) -> bytes:
        raise AssertionError(f"{self} was read whole")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    ingest(vault, ledger, [outside])
    ingest(vault, ledger, [outside])
    assert [p.name for p in vault.raw.iterdir() if p.name not in {"README.md", ".gitignore"}] == [
        "export.md"
    ]
    assert status(ledger)["conversations"] == 1


# --- 9. small ones ----------------------------------------------------------------


def test_python_m_watcher_cli_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "watcher.cli", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert "ingest" in done.stdout


@pytest.mark.slow  # the console script in a child process
def test_a_pending_file_is_printed_with_its_reason_alone(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / "Raw" / "s.jsonl").write_text('{"type":"user","sessionId":"x","message":{"ro')
    printed = dreaming("ingest", "--vault", str(root)).stderr.strip()
    (pending,) = json.loads(dreaming("status", "--vault", str(root), "--json").stdout)["pending"]
    assert printed == f"dreaming: Raw/s.jsonl: {pending['reason']}"


def test_a_json_error_names_the_place(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "bad.jsonl", '{"type":"user","sessionId":"x\x01y"}\n')
    ((_, reason),) = ingest(vault, ledger).failed
    assert "at)" not in reason
    assert "line 1 column" in reason


@pytest.mark.parametrize("doc", ["null", "42", '"text"', "true"])
def test_a_json_scalar_is_called_json_not_told_to_add_headings(
    vault: Vault, ledger: Ledger, doc: str
) -> None:
    drop(vault, "x.json", doc)
    ((_, reason),) = ingest(vault, ledger).failed
    assert "## user" not in reason
    assert "JSON" in reason


def test_a_hidden_file_named_on_the_command_line_keeps_its_record(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    outside = tmp_path / ".talk.md"
    outside.write_text(chat("hi", "hello"), encoding="utf-8")
    ingest(vault, ledger, [outside])
    report = ingest(vault, ledger)
    assert report.removed == 0
    assert status(ledger)["files"]["total"] == 1


def test_a_hidden_file_inside_raw_named_by_path_is_reported_not_ingested(
    vault: Vault, ledger: Ledger
) -> None:
    hidden = drop(vault, ".draft.md", chat("hi", "hello"))
    report = ingest(vault, ledger, [hidden])
    assert status(ledger)["conversations"] == 0
    assert status(ledger)["files"]["total"] == 0
    ((rel, reason),) = report.failed
    assert rel == "Raw/.draft.md"
    assert "hidden" in reason


def test_names_escaped_in_status_json_stay_exact(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "a b.md", b"\x00\x01binary")
    ingest(vault, ledger)
    assert status(ledger)["failed"][0]["file"] == "Raw/a b.md"


# --- 10. control characters never reach the ledger ---------------------------------


def chatgpt_export(title: str, question: str, answer: str) -> str:
    """One conversation in a ChatGPT conversations.json, as an export holds it."""
    conv = json.loads((FIXTURES / "raw" / "chatgpt" / "conversations.json").read_text())[1]
    conv["title"] = title
    conv["mapping"]["q"]["message"]["content"]["parts"] = [question]
    conv["mapping"]["a"]["message"]["content"]["parts"] = [answer]
    return json.dumps([conv])


CONTROLLED = chatgpt_export(
    "\x1b[1;31mBuild\x1b[0m fails\u202e on CI\x9c",
    "why does \x1b[2Jthe build\x00 fail?",
    "A \u2066bidi\u2069 isolate and a C1\x85 next line.",
)
"""Nine controls: four in the title (two escape sequences, a bidi override, a C1),
two in the question, three in the answer."""


def stored_texts(ledger: Ledger) -> list[str]:
    titles = ledger.db.execute("SELECT title FROM conversations").fetchall()
    texts = ledger.db.execute("SELECT text FROM messages ORDER BY position").fetchall()
    return [row[0] for row in (*titles, *texts)]


def test_titles_and_messages_are_stored_without_control_characters(
    vault: Vault, ledger: Ledger
) -> None:
    drop(vault, "conversations.json", CONTROLLED)
    report = ingest(vault, ledger)
    assert stored_texts(ledger) == [
        "Build fails on CI",
        "why does the build fail?",
        "A bidi isolate and a C1 next line.",
    ]
    assert report.controls == 9
    assert status(ledger)["controls"] == 9


@pytest.mark.slow  # the console script in a child process
def test_status_says_how_many_control_characters_were_removed(tmp_path: Path) -> None:
    root = tmp_path / "v"
    dreaming("init", str(root))
    (root / "Raw" / "conversations.json").write_text(CONTROLLED, encoding="utf-8")
    dreaming("ingest", "--vault", str(root))
    said = dreaming("status", "--vault", str(root)).stdout
    assert "0 secrets redacted, 9 control characters removed" in said
    assert "\x1b" not in said
