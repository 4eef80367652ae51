"""The Codex and pi readers keep only what a record says, not the record, while they read;
they read every session as the readers did that kept every record to the end (kept here
as the reference)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.raw import codex
from dreaming.raw.common import Lines, Turns, as_str, iter_jsonl, span, title_from
from dreaming.transcript import Conversation, content_id
from tests.support import draws

SAME = settings(max_examples=draws(300), deadline=None)
PATH = Path("rollout.jsonl")

TEXT = st.sampled_from(
    ["hi", "", "  ", "ok\n", "a\nb", "[image]", "over the \ud800 edge", "x" * 130]
)
STAMP = st.sampled_from([None, "", "2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z", "later", 7])
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), TEXT)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def record(
    required: dict[str, st.SearchStrategy[Any]] | None = None, **fields: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    """The required fields, and any of the others: each mostly the value the format
    expects, now and then any JSON in its place."""
    return st.fixed_dictionaries(
        required or {}, optional={k: st.one_of(v, v, v, JSON) for k, v in fields.items()}
    )


def outcome(parse: Any, lines: list[str]) -> object:
    try:
        return parse(PATH, iter(lines))
    except Exception as e:
        return type(e).__name__, str(e)


# --- Codex -------------------------------------------------------------------------

CODEX_SAID = st.sampled_from(
    [
        "which docs?",
        "<environment_context>cwd</environment_context>",
        "# AGENTS.md instructions\nbe terse",
        "<user_instructions>x</user_instructions> and this",
        "  ",
        "done.",
    ]
)
CODEX_ITEM = record(
    {
        "type": st.just("message")
        | st.sampled_from(
            [
                "message",
                "function_call",
                "function_call_output",
                "custom_tool_call",
                "custom_tool_call_output",
                "local_shell_call",
                "web_search_call",
                "reasoning",
                "other",
            ]
        ),
        "role": st.sampled_from(["user", "assistant", "developer"]),
        "content": st.one_of(
            CODEX_SAID,
            st.lists(record({"type": st.just("input_text"), "text": CODEX_SAID}), max_size=2),
        ),
    },
    name=st.sampled_from(["shell", "apply_patch"]),
    arguments=st.sampled_from(['{"command": ["bash", "-lc", "ls"]}', '{"path": "a"}', "{"]),
    input=TEXT,
    output=st.sampled_from(['{"output": "a\\nb"}', "one line", "{", ""]),
    action=st.sampled_from([{"command": ["ls", "-la"]}, {"query": "jsonl spec"}, {}]),
)
CODEX_EVENT = record(
    {
        "type": st.sampled_from(["user_message", "agent_message", "token_count"]),
        "message": CODEX_SAID,
    }
)
CODEX_ITEM_RECORD = record(
    {"type": st.just("response_item"), "payload": CODEX_ITEM}, timestamp=STAMP
)
CODEX_EVENT_RECORD = record({"type": st.just("event_msg"), "payload": CODEX_EVENT}, timestamp=STAMP)
CODEX_RECORD = st.sampled_from(
    [
        *[CODEX_ITEM_RECORD] * 4,
        *[CODEX_EVENT_RECORD] * 3,
        record(
            {"type": st.just("session_meta")},
            timestamp=STAMP,
            payload=record(id=TEXT, cwd=TEXT, cli_version=TEXT, timestamp=STAMP),
        ),
        record(
            {"type": st.sampled_from(["turn_context", "compacted"])}, payload=record(model=TEXT)
        ),
        CODEX_ITEM,  # pre-wrapper rollouts write the items bare
        record({"id": TEXT}, timestamp=STAMP),  # after a first line holding the session
        st.dictionaries(TEXT, JSON, max_size=2),
    ]
).flatmap(lambda r: r)


def _a_message(rec: dict[str, Any]) -> bool:
    item = rec.get("payload", rec)
    return isinstance(item, dict) and item.get("type") == "message"


# Rollouts whose items say nothing are read from their events: as many of those.
CODEX_ROLLOUT = st.lists(CODEX_RECORD, max_size=12) | st.lists(CODEX_RECORD, max_size=12).map(
    lambda recs: [r for r in recs if not _a_message(r)]
)


def _old_codex(path: Path, text: Lines) -> list[Conversation]:
    session: dict[str, Any] = {}
    items: list[tuple[dict[str, Any], str | None]] = []
    events: list[tuple[dict[str, Any], str | None]] = []
    model: str | None = None
    for lineno, rec in iter_jsonl(path, text):
        kind = as_str(rec.get("type"))
        ts = as_str(rec.get("timestamp"))
        payload = rec.get("payload")
        if kind in codex._WRAPPERS and isinstance(payload, dict):
            if kind == "session_meta":
                session = session or payload
            elif kind == "response_item":
                items.append((payload, ts))
            elif kind == "event_msg":
                events.append((payload, ts))
            elif kind == "turn_context":
                model = model or as_str(payload.get("model"))
        elif kind in codex._ITEMS:
            items.append((rec, ts))
        elif lineno == 1 and "id" in rec and kind is None:
            session = rec
    turns = Turns()
    if any(i.get("type") == "message" for i, _ in items):
        for item, ts in items:
            codex._add_item(turns, item, ts)
    else:
        for ev, ts in events:
            msg = as_str(ev.get("message"))
            if ev.get("type") == "user_message" and msg and codex._user_text(msg):
                turns.add("user", codex._user_text(msg), ts)
            elif ev.get("type") == "agent_message" and msg:
                turns.add("assistant", msg, ts, merge=True)
    messages = turns.messages()
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    meta: dict[str, str] = {}
    for key, name in (("cwd", "cwd"), ("cli_version", "version"), ("originator", "originator")):
        v = as_str(session.get(key))
        if v:
            meta[name] = v
    if model:
        meta["model"] = model
    first, last = span(messages)
    return [
        Conversation(
            source=codex.SOURCE,
            source_id=as_str(session.get("id")) or content_id(codex.SOURCE, first_user),
            own_id=as_str(session.get("id")) is not None,
            messages=tuple(messages),
            title=title_from(messages),
            created_at=as_str(session.get("timestamp")) or first,
            updated_at=last,
            meta=meta,
        )
    ]


@SAME
@given(records=CODEX_ROLLOUT)
def test_codex_reads_a_rollout_as_it_did_keeping_every_record(
    records: list[dict[str, Any]],
) -> None:
    lines = [json.dumps(r) for r in records]
    assert outcome(codex.parse, lines) == outcome(_old_codex, lines)


def test_codex_reads_the_events_of_a_rollout_whose_items_say_nothing() -> None:
    lines = [
        json.dumps({"type": "response_item", "payload": {"type": "reasoning"}}),
        json.dumps({"type": "event_msg", "payload": {"type": "user_message", "message": "hi"}}),
        json.dumps({"type": "event_msg", "payload": {"type": "agent_message", "message": "yo"}}),
    ]
    [conv] = codex.parse(PATH, iter(lines))
    assert [m.text for m in conv.messages] == ["hi", "yo"]
    message = {"type": "message", "role": "assistant", "content": "late"}
    [conv] = codex.parse(
        PATH, iter([*lines, json.dumps({"type": "response_item", "payload": message})])
    )
    assert [m.text for m in conv.messages] == ["late"]
