"""The Codex and pi readers keep only what a record says, not the record, while they read;
they read every session as the readers did that kept every record to the end (kept here
as the reference)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.raw import codex, pi
from dreaming.raw.common import (
    Lines,
    Turns,
    as_str,
    iso,
    iter_jsonl,
    lines_phrase,
    shorten,
    span,
    title_from,
    tool_result,
)
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


def outcome(parse: Callable[[Path, Lines], list[Conversation]], lines: list[str]) -> object:
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
            source_id=as_str(session.get("id"))
            or content_id(
                codex.SOURCE, as_str(session.get("timestamp")) or first or "", first_user
            ),
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


# --- pi ----------------------------------------------------------------------------

PI_ID = st.sampled_from(["a", "b", "c"])
PI_MESSAGE = record(
    {
        "role": st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom"]),
        "content": st.one_of(
            TEXT,
            st.lists(
                record(
                    {"type": st.sampled_from(["text", "image", "toolCall"])},
                    text=TEXT,
                    name=TEXT,
                    arguments=record(command=TEXT),
                ),
                max_size=2,
            ),
        ),
    },
    command=TEXT,
    output=TEXT,
    isError=st.booleans(),
    timestamp=st.sampled_from([1767000000000, 1767000000, "2026-01-01T00:00:09Z", 10**400]),
)


def pi_entry(**ids: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    kinds = ["message", "message", "message", "session_info", "model_change", "custom"]
    return record(
        {"type": st.sampled_from(kinds), "message": PI_MESSAGE, **ids},
        name=TEXT,
        modelId=TEXT,
        timestamp=STAMP,
    )


PI_HEADER = record(
    {"type": st.just("session")}, id=TEXT, cwd=TEXT, modelId=TEXT, parentSession=TEXT
)
# Version 1 files are a list; later ones a tree, where an entry names its parent.
PI_LINEAR = pi_entry()
PI_TREE = pi_entry(id=PI_ID, parentId=st.one_of(PI_ID, PI_ID, PI_ID, st.none()))
PI_SESSION = st.tuples(
    st.lists(PI_HEADER, max_size=1),
    st.sampled_from([PI_LINEAR, PI_TREE]).flatmap(
        lambda entry: st.lists(
            st.sampled_from([entry, entry, entry, entry, PI_LINEAR, PI_HEADER]).flatmap(
                lambda r: r
            ),
            max_size=12,
        )
    ),
).map(lambda head_entries: [*head_entries[0], *head_entries[1]])


def _old_pi_add(turns: Turns, msg: dict[str, Any], ts: str | None) -> None:
    role = msg.get("role")
    ts = ts or iso(msg.get("timestamp"))
    if role == "user":
        turns.add("user", pi._blocks_text(msg.get("content")), ts)
    elif role == "assistant":
        turns.add("assistant", pi._blocks_text(msg.get("content")), ts)
    elif role == "toolResult":
        text = pi._blocks_text(msg.get("content"))
        turns.add("tool", tool_result(text, error=msg.get("isError") is True), ts, merge=True)
    elif role == "bashExecution":
        cmd = as_str(msg.get("command")) or ""
        output = msg.get("output")
        out = output if isinstance(output, str) else ""
        turns.add("tool", f"[bash: {shorten(cmd)} → {lines_phrase(out)}]", ts, merge=True)


def _old_pi_live_branch(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {}
    for e in entries:
        eid = e.get("id")
        if isinstance(eid, str):
            by_id[eid] = e
    if not by_id:
        return entries
    leaf = next(e for e in reversed(entries) if isinstance(e.get("id"), str))
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node: dict[str, Any] | None = leaf
    while node is not None:
        eid = node.get("id")
        if not isinstance(eid, str) or eid in seen:
            break
        seen.add(eid)
        path.append(node)
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    path.reverse()
    return path


def _old_pi(path: Path, text: Lines) -> list[Conversation]:
    header: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    for _, rec in iter_jsonl(path, text):
        if rec.get("type") == "session" and not header:
            header = rec
        else:
            entries.append(rec)
    tree = any("parentId" in e for e in entries)
    branch = _old_pi_live_branch(entries) if tree else entries
    turns = Turns()
    title: str | None = None
    model = as_str(header.get("modelId"))
    for e in branch:
        kind = e.get("type")
        if kind == "message" and isinstance(e.get("message"), dict):
            _old_pi_add(turns, e["message"], as_str(e.get("timestamp")))
        elif kind == "session_info" and as_str(e.get("name")):
            title = e["name"]
        elif kind == "model_change" and as_str(e.get("modelId")):
            model = model or e["modelId"]
    messages = turns.messages()
    if not messages:
        return []
    first_user = next((m.text for m in messages if m.role == "user"), messages[0].text)
    first, last = span(messages)
    meta: dict[str, str] = {}
    cwd = as_str(header.get("cwd"))
    if cwd:
        meta["cwd"] = cwd
    if model:
        meta["model"] = model
    parent = as_str(header.get("parentSession"))
    if parent:
        meta["parent_session"] = parent
    return [
        Conversation(
            source=pi.SOURCE,
            source_id=as_str(header.get("id"))
            or content_id(pi.SOURCE, first or iso(header.get("timestamp")) or "", first_user),
            own_id=as_str(header.get("id")) is not None,
            messages=tuple(messages),
            title=shorten(title, 200) if title else title_from(messages),
            created_at=first or iso(header.get("timestamp")),
            updated_at=last,
            meta=meta,
        )
    ]


@SAME
@given(records=PI_SESSION)
def test_pi_reads_a_session_as_it_did_keeping_every_entry(records: list[dict[str, Any]]) -> None:
    lines = [json.dumps(r) for r in records]
    assert outcome(pi.parse, lines) == outcome(_old_pi, lines)


def test_pi_follows_the_branch_that_ends_at_the_last_entry() -> None:
    def said(eid: str, parent: str | None, text: str) -> str:
        message = {"role": "user", "content": text}
        return json.dumps({"type": "message", "id": eid, "parentId": parent, "message": message})

    lines = [said("a", None, "one"), said("b", "a", "two"), said("c", "a", "two again")]
    [conv] = pi.parse(PATH, iter(lines))
    assert [m.text for m in conv.messages] == ["one", "two again"]
    [conv] = pi.parse(PATH, iter([*lines, said("d", "b", "three")]))
    assert [m.text for m in conv.messages] == ["one", "two", "three"]
