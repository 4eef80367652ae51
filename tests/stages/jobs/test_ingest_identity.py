"""Which conversation a transcript is when its source gives it no id: distinct chats stay
distinct however alike they open, whether dropped into Raw/ or imported, and the same chat
read again (grown, or dropped twice) stays the one it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dreaming.importing import parse_source, plan, run_import
from dreaming.ledger import Ledger
from dreaming.ledger import conversations as stored
from dreaming.transcript import content_id
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest
from tests.import_support import chatgpt_conversation
from tests.support import drop

MAY_2025 = 1_746_100_000.0
OPENING = "How do I bake bread?"


def unnamed_chat(n: int, *, created: float | None = None, turns: int = 1) -> dict[str, Any]:
    """Chat `n` of an export that gives no ids, opening with the same question as every
    other: only its answers (and when it began, unless `created` is None) tell it apart."""
    chat = chatgpt_conversation(n, MAY_2025 + 100 * n, turns=turns)
    del chat["id"], chat["conversation_id"]
    if created is None:
        del chat["create_time"], chat["update_time"]
    for node in chat["mapping"].values():
        message = node.get("message")
        if message is None:
            continue
        if created is None:
            del message["create_time"]
        user = message["author"]["role"] == "user"
        first = node["id"] == "user-0"
        message["content"]["parts"] = [OPENING if first else f"Chat {n}, turn {node['id']}"]
        if not user:
            message["content"]["parts"] = [f"Answer {n} to {node['id']}"]
    return chat


def export(chats: list[dict[str, Any]]) -> str:
    return json.dumps(chats, indent=2)


def ids(ledger: Ledger) -> set[str]:
    return {c.id for c in stored.by_updated(ledger)}


def answers(ledger: Ledger) -> set[str]:
    return {
        m.text
        for conv_id in ids(ledger)
        for m in stored.messages(ledger, conv_id)
        if m.role == "assistant"
    }


def imported(vault: Vault, ledger: Ledger, path: Path) -> None:
    def ingest_batch(paths: list[Path]) -> None:
        ingest(vault, ledger, paths, record_run=False)

    run_import(vault, ledger, [plan(parse_source(str(path)))], on_batch=ingest_batch)


FOUR = [unnamed_chat(n, created=MAY_2025 + 100 * n) for n in range(4)]
FOUR_UNDATED = [unnamed_chat(n) for n in range(4)]


@pytest.mark.parametrize("chats", [FOUR, FOUR_UNDATED], ids=["dated", "undated"])
def test_four_chats_that_open_alike_in_one_export_dropped_into_raw_are_four(
    vault: Vault, ledger: Ledger, chats: list[dict[str, Any]]
) -> None:
    drop(vault, "conversations.json", export(chats))
    ingest(vault, ledger)
    assert len(ids(ledger)) == 4
    assert answers(ledger) == {f"Answer {n} to assistant-0" for n in range(4)}


def twice_under_one_id() -> list[dict[str, Any]]:
    one, other = chatgpt_conversation(1, MAY_2025), chatgpt_conversation(2, MAY_2025)
    other["id"] = other["conversation_id"] = one["id"]
    return [one, other]


@pytest.mark.parametrize(
    "chats",
    [FOUR, FOUR_UNDATED, [c | {"title": "Bread"} for c in FOUR_UNDATED], twice_under_one_id()],
    ids=["dated", "undated", "undated-titled-alike", "one-id-twice"],
)
def test_an_export_dropped_into_raw_and_imported_gives_the_same_conversations(
    vault: Vault, ledger: Ledger, tmp_path: Path, chats: list[dict[str, Any]]
) -> None:
    drop(vault, "conversations.json", export(chats))
    ingest(vault, ledger)
    source = tmp_path / "conversations.json"
    source.write_text(export(chats), encoding="utf-8")
    other = init_vault(tmp_path / "other").vault
    with Ledger(other.ledger_path) as theirs:
        imported(other, theirs, source)
        assert ids(theirs) == ids(ledger)
        assert len(ids(ledger)) == len(chats)


def test_an_export_whose_chats_grew_keeps_their_ids(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "conversations.json", export(FOUR))
    ingest(vault, ledger)
    before = ids(ledger)
    grown = [unnamed_chat(n, created=MAY_2025 + 100 * n, turns=2) for n in range(4)]
    path.write_text(export(grown), encoding="utf-8")
    ingest(vault, ledger)
    assert ids(ledger) == before
    assert {stored.get(ledger, i).message_count for i in before} == {4}  # type: ignore[union-attr]


def test_an_undated_export_whose_chats_grew_keeps_their_ids(vault: Vault, ledger: Ledger) -> None:
    path = drop(vault, "conversations.json", export(FOUR_UNDATED))
    ingest(vault, ledger)
    before = ids(ledger)
    path.write_text(export([unnamed_chat(n, turns=2) for n in range(4)]), encoding="utf-8")
    ingest(vault, ledger)
    assert ids(ledger) == before


def test_the_same_export_dropped_twice_is_the_same_four_chats(vault: Vault, ledger: Ledger) -> None:
    drop(vault, "may/conversations.json", export(FOUR))
    drop(vault, "june/conversations.json", export(FOUR))
    ingest(vault, ledger)
    assert len(ids(ledger)) == 4


def test_a_later_export_with_grown_chats_beside_the_first_joins_them(
    vault: Vault, ledger: Ledger
) -> None:
    drop(vault, "may/conversations.json", export(FOUR))
    ingest(vault, ledger)
    before = ids(ledger)
    later = [unnamed_chat(n, created=MAY_2025 + 100 * n, turns=2) for n in (3, 0, 1, 2)]
    drop(vault, "june/conversations.json", export(later))
    ingest(vault, ledger)
    assert ids(ledger) == before


def test_two_different_chats_under_one_id_in_one_export_are_both_kept(
    vault: Vault, ledger: Ledger
) -> None:
    drop(vault, "conversations.json", export(twice_under_one_id()))
    ingest(vault, ledger)
    assert len(ids(ledger)) == 2


def test_an_earlier_state_of_a_chat_in_the_same_export_is_one_conversation_kept_whole(
    vault: Vault, ledger: Ledger
) -> None:
    long, short = chatgpt_conversation(1, MAY_2025, turns=2), chatgpt_conversation(1, MAY_2025)
    drop(vault, "conversations.json", export([long, short]))
    ingest(vault, ledger)
    assert [c.message_count for c in stored.by_updated(ledger)] == [4]


AIDER_SESSION = "# aider chat started at 2025-03-14 09:12:45\n\n#### {question}  \n\n{answer}\n\n"


def test_two_aider_sessions_begun_in_the_same_second_alike_are_two(
    vault: Vault, ledger: Ledger
) -> None:
    history = "".join(
        AIDER_SESSION.format(question=OPENING, answer=f"Answer {n}.") for n in range(2)
    )
    drop(vault, "aider.chat.history.md", history)
    ingest(vault, ledger)
    assert answers(ledger) == {"Answer 0.", "Answer 1."}


def test_an_aider_history_that_grew_keeps_its_sessions_ids(vault: Vault, ledger: Ledger) -> None:
    one = AIDER_SESSION.format(question=OPENING, answer="Answer 0.")
    path = drop(vault, "aider.chat.history.md", one + one.replace("0.", "1."))
    ingest(vault, ledger)
    before = ids(ledger)
    path.write_text(path.read_text() + "#### And rye?  \n\nMore water.\n\n", encoding="utf-8")
    ingest(vault, ledger)
    assert ids(ledger) == before


def _note(answer: str) -> str:
    return f"## user\n\n{OPENING}\n\n## assistant\n\n{answer}\n"


def _plain(answer: str) -> str:
    return f"**User:** {OPENING}\n\n**ChatGPT:** {answer}\n"


def _cortexes(answer: str) -> str:
    head = "---\ndate: 2025-03-14\ntime: '09:12:45'\ntype: session\n---\n"
    return f"{head}### User\n{OPENING}\n### Claude\n{answer}\n"


def _pi(answer: str) -> str:
    lines: list[dict[str, Any]] = [
        {"type": "session", "timestamp": "2025-12-01T10:00:00.000Z"},
        {"type": "message", "message": {"role": "user", "content": OPENING}},
        {"type": "message", "message": {"role": "assistant", "content": answer}},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def _codex(answer: str) -> str:
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"timestamp": "2025-12-28T12:18:30.522Z"}},
        *(
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": role,
                    "content": [{"type": kind, "text": text}],
                },
            }
            for role, kind, text in (
                ("user", "input_text", OPENING),
                ("assistant", "output_text", answer),
            )
        ),
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("talk.md", _note),
        ("talk.txt", _plain),
        ("2025/03/14/091245_session_dreaming.md", _cortexes),
        ("session.jsonl", _pi),
        ("rollout-2025-12-28T12-18-30.jsonl", _codex),
    ],
    ids=["raw-markdown", "plain-markdown", "cortexes", "pi", "codex"],
)
def test_two_files_of_chats_that_open_alike_are_two_conversations_that_keep_their_ids(
    vault: Vault, ledger: Ledger, name: str, write: Any
) -> None:
    first = drop(vault, f"a/{name}", write("Answer one."))
    drop(vault, f"b/{name}", write("Answer two."))
    ingest(vault, ledger)
    assert answers(ledger) == {"Answer one.", "Answer two."}
    before = ids(ledger)
    first.write_text(write("Answer one, said better."), encoding="utf-8")
    ingest(vault, ledger)
    assert ids(ledger) == before


def named_by_opening_alone(source: str, *parts: str) -> str:
    """How chats without ids were named before they were told apart by when they began."""
    return content_id(source, parts[-1])


def test_an_export_ingested_under_older_names_keeps_them_when_it_grows(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = [unnamed_chat(n, created=MAY_2025 + 100 * n) for n in range(3)]
    for n, chat in enumerate(chats):
        chat["mapping"]["user-0"]["message"]["content"]["parts"] = [f"Question {n}?"]
    path = drop(vault, "conversations.json", export(chats))
    with monkeypatch.context() as older:
        older.setattr("dreaming.raw.chatgpt.content_id", named_by_opening_alone)
        ingest(vault, ledger)
    before = ids(ledger)
    chats[0]["mapping"]["assistant-0"]["children"] = ["user-1"]
    chats[0]["mapping"]["user-1"] = {
        "id": "user-1",
        "parent": "assistant-0",
        "children": [],
        "message": {"author": {"role": "user"}, "content": {"parts": ["And rye?"]}},
    }
    chats[0]["current_node"] = "user-1"
    path.write_text(export(chats), encoding="utf-8")
    ingest(vault, ledger)
    assert ids(ledger) == before
