"""Bad files: each gets a one-line reason naming the problem, never another exception."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.errors import IncompleteTranscript, ReaderFault, TranscriptError
from dreaming.raw import read_transcript
from tests.support import FIXTURES, draws

FIX = FIXTURES / "raw"
CLAUDE = FIX / "claude-code" / "7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"
ALL_FIXTURES = sorted(p for p in FIX.rglob("*") if p.is_file())


def _error(path: Path, data: bytes) -> TranscriptError:
    with pytest.raises(TranscriptError) as info:
        read_transcript(path, data)
    err = info.value
    assert "\n" not in err.reason
    assert err.reason.strip()
    assert str(path) in str(err)
    return err


def test_truncated_mid_line_is_incomplete() -> None:
    data = CLAUDE.read_bytes()
    cut = data[: data.rindex(b'"Tests pass.') + 5]
    err = _error(CLAUDE, cut)
    assert isinstance(err, IncompleteTranscript)
    assert "cut off" in err.reason
    assert "line 28" in err.reason


def test_truncated_at_a_line_end_reads_what_is_complete() -> None:
    data = CLAUDE.read_bytes()
    cut = data[: data.rindex(b'\n{"parentUuid"') + 1]
    [conv] = read_transcript(CLAUDE, cut).conversations
    assert conv.messages[-1].text == "[tool result: 1 line]"


def test_every_cut_of_every_jsonl_fixture_is_ok_or_incomplete() -> None:
    for path in (p for p in ALL_FIXTURES if p.suffix == ".jsonl"):
        data = path.read_bytes()
        for k in range(1, len(data), 7):
            cut = data[:k]
            try:
                read_transcript(path, cut)
            except IncompleteTranscript:
                continue
            assert cut.endswith((b"}", b"\n")), (path.name, k)


def test_truncated_chatgpt_export_is_incomplete() -> None:
    path = FIX / "chatgpt" / "conversations.json"
    data = path.read_bytes()
    err = _error(path, data[: len(data) // 2])
    assert isinstance(err, IncompleteTranscript)


def test_truncated_inside_a_utf8_character_is_incomplete(tmp_path: Path) -> None:
    data = '{"type":"user","message":{"role":"user","content":"é'.encode()
    err = _error(tmp_path / "s.jsonl", data[:-1])
    assert isinstance(err, IncompleteTranscript)


def test_corrupt_line_in_the_middle_names_the_line() -> None:
    lines = CLAUDE.read_bytes().split(b"\n")
    lines[5] = lines[5][:-1]  # drop the closing brace
    err = _error(CLAUDE, b"\n".join(lines))
    assert not isinstance(err, IncompleteTranscript)
    assert "not valid JSON at line 6" in err.reason


def test_json_line_that_is_not_an_object(tmp_path: Path) -> None:
    data = CLAUDE.read_bytes().split(b"\n")[0] + b"\n[1, 2, 3]\n"
    err = _error(tmp_path / "s.jsonl", data)
    assert "line 2" in err.reason
    assert "not a record" in err.reason


@pytest.mark.parametrize("data", [b"", b"   \n\n\t  ", b"\xef\xbb\xbf\n"])
def test_empty(tmp_path: Path, data: bytes) -> None:
    err = _error(tmp_path / "empty.jsonl", data)
    assert "empty" in err.reason


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "PNG image"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "PDF document"),
        (b"PK\x03\x04" + b"\x00" * 32, "ZIP archive"),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 16, "gzip archive"),
        (b"abc\x00def\x00" * 10, "binary data"),
    ],
)
def test_binary_files(tmp_path: Path, data: bytes, kind: str) -> None:
    err = _error(tmp_path / "image.jsonl", data)  # the name says JSONL, the bytes do not
    assert f"binary file ({kind})" in err.reason


def test_not_utf8(tmp_path: Path) -> None:
    err = _error(tmp_path / "latin1.md", "## user\ncafé\n".encode("latin-1"))
    assert "not UTF-8" in err.reason


@pytest.mark.parametrize(
    "data",
    [
        b'{"hello": "world"}\n{"foo": 1}\n',
        b'[{"title": "not an export"}]',
        b"[1, 2, 3]",
        b'{"name": "package", "version": "1.0.0", "dependencies": {}}',
    ],
)
def test_json_that_is_not_a_transcript(tmp_path: Path, data: bytes) -> None:
    err = _error(tmp_path / "conversations.json", data)
    assert "JSON, but not a transcript format" in err.reason


def test_text_without_turns(tmp_path: Path) -> None:
    err = _error(tmp_path / "notes.md", b"# Shopping\n\n- eggs\n- milk\n")
    assert "no conversation turns found" in err.reason
    assert "## user" in err.reason


def test_invalid_frontmatter(tmp_path: Path) -> None:
    err = _error(tmp_path / "n.md", b"---\ntitle: [unclosed\n---\n## user\nq\n## assistant\na\n")
    assert "frontmatter is not valid YAML" in err.reason


@pytest.mark.parametrize("nest", ["[", "- "])
def test_deeply_nested_frontmatter_is_refused_fast(tmp_path: Path, nest: str) -> None:
    data = f"---\nx:\n {nest * 5000}\n---\n## user\nq\n## assistant\na\n".encode()
    err, took = _timed_error(tmp_path / "n.md", data)
    assert "frontmatter is nested more than" in err.reason
    assert took < 0.5


def test_deeply_nested_json(tmp_path: Path) -> None:
    err = _error(tmp_path / "deep.json", b"[" * 100_000 + b"]" * 100_000)
    assert "JSON" in err.reason or "nested" in err.reason


def _timed_error(path: Path, data: bytes) -> tuple[TranscriptError, float]:
    start = time.perf_counter()
    err = _error(path, data)
    return err, time.perf_counter() - start


def test_single_huge_line_of_garbage(tmp_path: Path) -> None:
    err, took = _timed_error(tmp_path / "big.jsonl", b"x" * (20 * 1024 * 1024))
    assert "no conversation turns found" in err.reason
    assert took < 5


def test_single_huge_line_of_truncated_json(tmp_path: Path) -> None:
    rec = {
        "type": "user",
        "sessionId": "s",
        "message": {"role": "user", "content": "a" * 20_000_000},
    }
    data = json.dumps(rec).encode()[:-10]
    err, took = _timed_error(tmp_path / "big.jsonl", data)
    assert isinstance(err, IncompleteTranscript)
    assert took < 5


def test_single_huge_line_of_valid_json_that_is_no_transcript(tmp_path: Path) -> None:
    data = json.dumps({"blob": "b" * 20_000_000}).encode() + b"\n"
    err, took = _timed_error(tmp_path / "big.jsonl", data)
    assert "not a transcript format" in err.reason
    assert took < 5


def test_unreadable_path(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError) as info:
        read_transcript(tmp_path / "missing.jsonl")
    assert "cannot be read" in info.value.reason


def _check_contract(path: Path, data: bytes) -> None:
    reason: str | None = None
    try:
        result = read_transcript(path, data)
    except TranscriptError as e:
        reason = e.reason
    if reason is not None:
        assert "\n" not in reason
        assert "internal error" not in reason, reason  # a reader bug, not bad input
        return
    for conv in result.conversations:
        assert conv.messages
        assert all(
            m.role in ("user", "assistant", "system", "tool") and m.text for m in conv.messages
        )


NAMES = st.sampled_from(["x.jsonl", "x.json", "x.md", "conversations.json", "agent-1.jsonl"])


@settings(max_examples=draws(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=NAMES, data=st.binary(max_size=2048))
def test_fuzz_arbitrary_bytes(name: str, data: bytes) -> None:
    _check_contract(Path(name), data)


@settings(max_examples=draws(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    src=st.sampled_from(ALL_FIXTURES),
    cut=st.integers(min_value=0, max_value=20_000),
    flips=st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 255)), max_size=4),
)
def test_fuzz_mutated_fixtures(src: Path, cut: int, flips: list[tuple[int, int]]) -> None:
    data = bytearray(src.read_bytes()[: max(cut, 1)])
    for pos, byte in flips:
        if data:
            data[pos % len(data)] = byte
    _check_contract(src, bytes(data))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["type", "message", "content", "role", "sessionId", "agentId", "isSidechain", "payload",
     "mapping", "current_node", "parent", "id", "parentId", "uuid", "timestamp", "text",
     "tool_use_id", "name", "input", "summary", "leafUuid", "author", "parts"]
)  # fmt: skip
TYPES = st.sampled_from(
    ["user", "assistant", "summary", "session", "message", "response_item", "session_meta",
     "event_msg", "text", "tool_use", "tool_result", "image", "toolCall", "function_call"]
)  # fmt: skip
RECORDS = st.dictionaries(KEYS, JSON_VALUES | TYPES, max_size=6).map(
    lambda d: {"type": d.pop("type", "user"), **d}
)


@settings(max_examples=draws(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=TYPES, records=st.lists(RECORDS, max_size=6))
def test_fuzz_structured_records(first: str, records: list[dict[str, object]]) -> None:
    lines = [json.dumps({"type": first, "sessionId": "s"})] + [json.dumps(r) for r in records]
    _check_contract(Path("x.jsonl"), ("\n".join(lines) + "\n").encode())


HUGE = "9" * 5000  # past Python's 4,300-digit limit for reading an integer


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("s.jsonl", '{"type":"user","sessionId":"s","n":' + HUGE + "}\n"),
        ("rollout.jsonl", '{"timestamp":"t","type":"session_meta","payload":{"n":' + HUGE + "}}\n"),
        ("conversations.json", '[{"title":"t","mapping":{},"n":' + HUGE + "}]"),
        ("number.json", HUGE),
        ("list.json", "[" + HUGE + "]"),
    ],
)
def test_a_number_too_long_to_read_is_one_line_not_a_fault(
    tmp_path: Path, name: str, text: str
) -> None:
    err = _error(tmp_path / name, text.encode())
    assert not isinstance(err, ReaderFault), err.reason


def test_a_lone_surrogate_in_a_chat_without_an_id_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    said = {"role": "user", "content": "odd \ud800 text", "timestamp": 0}
    answer = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    record = {"type": "message", "timestamp": "2026-01-10T09:00:01.000Z", "message": said}
    reply = {"type": "message", "timestamp": "2026-01-10T09:00:02.000Z", "message": answer}
    head = {"type": "session", "version": 3, "timestamp": "2026-01-10T09:00:00.000Z", "cwd": "/x"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (head, record, reply)), encoding="utf-8")
    (conv,) = read_transcript(path).conversations
    assert conv.messages[0].text == "odd \ufffd text"
