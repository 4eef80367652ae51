"""Every reader, fed near-valid and broken input: a ReadResult or a TranscriptError, nothing else.

Each format gets a strategy that builds documents of its own shape (so the fuzzing
reaches past detection into the reader), then a mutation: cut short, bytes spliced
in, a line duplicated. The file is read both ways ingest reads: from bytes in hand,
and from disk (where line-based formats are streamed); the two must agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.errors import TranscriptError
from dreaming.raw import ReadResult, read_transcript
from tests.support import draws

# The whole file stays within a few seconds per format: CI runs it on every push.
FUZZ = settings(
    max_examples=draws(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

WORDS = st.sampled_from(
    ["hello", "", "über", "東京", "x" * 300, "a\nb", "\x00", "\u202e", "🙂", "lone \ud800"]
)
TEXT = st.one_of(WORDS, st.text(max_size=40))
STAMP = st.sampled_from(["2026-01-01T00:00:00Z", "2026-13-45T99:99", "", "yesterday"])
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), TEXT)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The value the format expects, or any JSON in its place."""
    return st.one_of(strategy, JSON)


def record(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional={k: maybe(v) for k, v in fields.items()})


def jsonl(records: st.SearchStrategy[list[dict[str, Any]]]) -> st.SearchStrategy[str]:
    return records.map(lambda recs: "".join(json.dumps(r) + "\n" for r in recs))


CLAUDE_BLOCK = record(
    type=st.sampled_from(["text", "tool_use", "tool_result", "image", "thinking"]),
    text=TEXT,
    name=st.sampled_from(["Read", "Bash", "AskUserQuestion", "Task"]),
    input=JSON,
    id=TEXT,
    tool_use_id=TEXT,
    content=st.one_of(TEXT, st.lists(JSON, max_size=2)),
    is_error=st.booleans(),
)
CLAUDE = jsonl(
    st.lists(
        record(
            type=st.sampled_from(["user", "assistant", "summary", "system", "progress"]),
            sessionId=st.sampled_from(["11111111-2222-3333-4444-555555555555", "s2"]),
            uuid=TEXT,
            parentUuid=TEXT,
            leafUuid=TEXT,
            summary=TEXT,
            timestamp=STAMP,
            isSidechain=st.booleans(),
            agentId=TEXT,
            message=record(
                role=st.sampled_from(["user", "assistant"]),
                id=TEXT,
                content=st.one_of(TEXT, st.lists(CLAUDE_BLOCK, max_size=3)),
            ),
        ).map(lambda r: {"type": "user", **r}),
        min_size=1,
        max_size=6,
    )
)
CODEX_PAYLOAD = record(
    type=st.sampled_from(
        [
            "message",
            "function_call",
            "function_call_output",
            "reasoning",
            "user_message",
            "agent_message",
            "local_shell_call",
        ]
    ),
    role=st.sampled_from(["user", "assistant", "developer"]),
    content=st.lists(
        record(type=st.sampled_from(["input_text", "output_text"]), text=TEXT), max_size=2
    ),
    name=TEXT,
    arguments=st.one_of(TEXT, JSON.map(json.dumps)),
    output=st.one_of(TEXT, JSON.map(json.dumps)),
    message=TEXT,
    id=TEXT,
    cwd=TEXT,
    action=JSON,
)
CODEX = jsonl(
    st.lists(
        record(
            type=st.sampled_from(["session_meta", "response_item", "event_msg", "turn_context"]),
            timestamp=STAMP,
            payload=CODEX_PAYLOAD,
        ).map(lambda r: {"type": "response_item", **r}),
        min_size=1,
        max_size=6,
    ).map(lambda recs: [{"type": "session_meta", "payload": {"id": "c1"}}, *recs])
)
PI_MESSAGE = record(
    role=st.sampled_from(["user", "assistant", "toolResult", "bashExecution"]),
    content=st.one_of(
        TEXT,
        st.lists(
            record(
                type=st.sampled_from(["text", "image", "toolCall"]),
                text=TEXT,
                name=TEXT,
                arguments=JSON,
            ),
            max_size=2,
        ),
    ),
    command=TEXT,
    output=TEXT,
    isError=st.booleans(),
    timestamp=st.one_of(STAMP, st.integers()),
)
PI = jsonl(
    st.lists(
        record(
            type=st.sampled_from(["message", "session_info", "model_change", "custom"]),
            id=st.sampled_from(["a", "b", "c"]),
            parentId=st.sampled_from(["a", "b", "c", None]),
            message=PI_MESSAGE,
            name=TEXT,
            modelId=TEXT,
            timestamp=STAMP,
        ).map(lambda r: {"type": "message", **r}),
        max_size=6,
    ).map(lambda recs: [{"type": "session", "id": "p1", "cwd": "/x"}, *recs])
)
NODE = record(
    id=st.sampled_from(["n1", "n2", "n3"]),
    parent=st.sampled_from(["n1", "n2", "n3", None]),
    children=st.lists(st.sampled_from(["n1", "n2", "n3"]), max_size=2),
    message=record(
        author=record(role=st.sampled_from(["user", "assistant", "system", "tool"])),
        content=record(
            content_type=st.sampled_from(["text", "code", "multimodal_text"]),
            parts=st.lists(JSON, max_size=2),
            text=TEXT,
        ),
        create_time=st.one_of(st.floats(allow_nan=True), st.integers()),
        metadata=JSON,
    ),
)
CHATGPT = st.lists(
    record(
        title=TEXT,
        conversation_id=TEXT,
        current_node=st.sampled_from(["n1", "n2", "n3"]),
        create_time=st.floats(allow_nan=False),
        mapping=st.dictionaries(st.sampled_from(["n1", "n2", "n3"]), NODE, max_size=3),
    ).map(lambda r: {"mapping": {}, **r}),
    min_size=1,
    max_size=3,
).map(json.dumps)


def lines_of(*choices: str) -> st.SearchStrategy[str]:
    line = st.one_of(st.sampled_from(choices), TEXT)
    return st.lists(line, min_size=1, max_size=12).map("\n".join)


FENCE = "```"
AIDER_START = "# aider chat started at 2024-05-01 10:00:00"
AIDER = lines_of(
    AIDER_START, "#### how do I", "> Applied edit to x.py", "answer text", FENCE, "", "#### ",
    "> Tokens: 1k sent",
).map(lambda t: f"{AIDER_START}\n\n#### hi\n\nhello\n{t}")  # fmt: skip
MARKDOWN = lines_of(
    "**User:** hi", "**Assistant:** hello", "User: plain", "ChatGPT said:", "### Human",
    "### Claude", "> a quoted prompt", "## Log", FENCE, "", "---", "title: x",
).map(lambda t: "**User:** hi\n\n**Assistant:** hello\n" + t)  # fmt: skip
CORTEXES = lines_of(
    "### User", "### Claude", "> audit: ok", FENCE, "", "text", "---", "type: session",
).map(lambda t: "---\ntype: session\ndate: 2025-01-01\n---\n\n### User\n\nhi\n\n" + t)  # fmt: skip
CANONICAL = lines_of(
    "## user", "## assistant", "## system", "## user 2026-01-01T10:00:00Z", "## User interface",
    "---", "id: x", "title: t", "date: 2026-01-02", FENCE, "~~~", "", "text",
).map(lambda t: "## user\n\nhi\n\n## assistant\n\nhello\n" + t)  # fmt: skip

FORMATS: dict[str, tuple[str, st.SearchStrategy[str]]] = {
    "claude-code": ("11111111-2222-3333-4444-555555555555.jsonl", CLAUDE),
    "chatgpt": ("conversations.json", CHATGPT),
    "pi": ("session.jsonl", PI),
    "codex": ("rollout.jsonl", CODEX),
    "aider": (".aider.chat.history.md", AIDER),
    "markdown": ("saved chat.md", MARKDOWN),
    "cortexes": ("250101_session_x.md", CORTEXES),
    "raw": ("talk.md", CANONICAL),
}


@st.composite
def mutated(draw: st.DrawFn, doc: st.SearchStrategy[str]) -> bytes:
    data = draw(doc).encode("utf-8", "surrogatepass")  # a lone surrogate: bytes UTF-8 forbids
    how = draw(st.sampled_from(["none", "cut", "splice", "duplicate", "crlf", "bom"]))
    if how == "cut" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if how == "splice":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    if how == "duplicate":
        lines = data.split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        return b"\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if how == "crlf":
        return data.replace(b"\n", b"\r\n")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    return data


def outcome(path: Path, data: bytes | None) -> ReadResult | TranscriptError:
    """What reading gives; a reader bug shows as an `internal error` reason."""
    try:
        result: ReadResult | TranscriptError = read_transcript(path, data)
    except TranscriptError as e:
        result = e
    if isinstance(result, TranscriptError):
        assert "\n" not in result.reason
        assert "internal error" not in result.reason, result.reason
    else:
        assert isinstance(result, ReadResult)
        for conv in result.conversations:
            stored = [conv.source_id, conv.parent_id, conv.title, conv.created_at, *conv.meta]
            stored += [*conv.meta.values(), conv.updated_at]
            stored += [t for m in conv.messages for t in (m.role, m.text, m.timestamp)]
            for text in stored:
                (text or "").encode("utf-8")  # what SQLite must be able to store
    return result


def same(a: ReadResult | TranscriptError, b: ReadResult | TranscriptError) -> bool:
    if isinstance(a, TranscriptError) or isinstance(b, TranscriptError):
        return type(a) is type(b)
    return (a.source, a.conversations, a.sha256, a.size) == (
        b.source,
        b.conversations,
        b.sha256,
        b.size,
    )


@pytest.mark.parametrize("source", sorted(FORMATS))
def test_a_reader_returns_a_result_or_a_transcript_error(tmp_path: Path, source: str) -> None:
    name, doc = FORMATS[source]

    @FUZZ
    @given(data=mutated(doc))
    def check(data: bytes) -> None:
        path = tmp_path / name
        path.write_bytes(data)
        in_hand = outcome(path, data)
        from_disk = outcome(path, None)
        assert same(in_hand, from_disk), (in_hand, from_disk)

    check()
