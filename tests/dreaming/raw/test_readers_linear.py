"""Every reader reads crafted text in time linear in its size: a message of unclosed
tags, markers or comments, a heading line of stars or spaces. The watcher reads
whatever lands in Raw/, so one such file must never stall the service.

Each shape is read whole (`read_transcript`) at N and 4N; a linear reader grows about
4x, a quadratic one 16x. The bound allows 6x plus a floor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.errors import TranscriptError
from dreaming.raw import chatgpt as chatgpt_reader
from dreaming.raw import read_transcript
from dreaming.raw.spans import cut, spans
from tests.support import best_seconds

N = 100_000
FLOOR_S = 0.05


def claude_code(payload: str) -> tuple[str, str]:
    said = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/ada",
        "sessionId": "7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b",
        "type": "user",
        "message": {"role": "user", "content": payload},
        "uuid": "00000000-0000-4000-8000-000000000001",
        "timestamp": "2025-03-14T09:12:40.000Z",
    }
    reply = said | {
        "type": "assistant",
        "uuid": "00000000-0000-4000-8000-000000000002",
        "parentUuid": said["uuid"],
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    }
    return f"{json.dumps(said)}\n{json.dumps(reply)}\n", "session.jsonl"


def codex(payload: str) -> tuple[str, str]:
    at = "2025-12-28T12:21:44.491Z"
    meta = {"id": "019b64e5-0000-7000-8000-00000000c0de", "timestamp": at, "cwd": "/home/ada"}
    records = [
        {"timestamp": at, "type": "session_meta", "payload": meta | {"originator": "codex_cli_rs"}},
        {
            "timestamp": at,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": payload}],
            },
        },
        {
            "timestamp": at,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            },
        },
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    return text, "rollout-2025-12-28T12-18-30-019b64e5.jsonl"


def chatgpt(payload: str) -> tuple[str, str]:
    def node(id_: str, role: str, parent: str, children: list[str], text: str) -> object:
        content = {"content_type": "text", "parts": [text]}
        message = {"id": id_, "author": {"role": role}, "create_time": 1.7e9, "content": content}
        return {"id": id_, "parent": parent, "children": children, "message": message}

    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
        "u": node("u", "user", "r", ["a"], payload),
        "a": node("a", "assistant", "u", [], "ok"),
    }
    conversation = {"title": "t", "create_time": 1.7e9, "id": "c1", "mapping": mapping}
    return json.dumps([conversation | {"current_node": "a"}]), "conversations.json"


def cortexes(payload: str) -> tuple[str, str]:
    text = f"---\ntype: session\n---\n{payload}\n### user\nhello\n### claude\nok\n"
    return text, "251201_session_notes.md"


def markdown(payload: str) -> tuple[str, str]:
    return f"{payload}\n\n# User\n\nhello\n\n# Assistant\n\nok\n", "chat.md"


Format = Callable[[str], tuple[str, str]]

SHAPES: dict[str, tuple[Format, Callable[[int], str]]] = {
    "claude code: unclosed tags": (claude_code, lambda n: "<system-reminder>" * (n // 17)),
    "claude code: unclosed bash tags": (claude_code, lambda n: "<bash-input>x" * (n // 13)),
    "claude code: tags closed by another name": (
        claude_code,
        lambda n: "<bash-stdout>a</bash-stderr>" * (n // 28),
    ),
    "codex: unclosed injected markup": (codex, lambda n: "<environment_context>" * (n // 21)),
    "chatgpt: unclosed citation markers": (chatgpt, lambda n: "\ue200" * n),
    "cortexes: distilled marker then spaces": (
        cortexes,
        lambda n: "<!-- distilled:" + " " * n + "x",
    ),
    "cortexes: audit marker then spaces": (cortexes, lambda n: "<!-- audit:" + " " * n + "x"),
    "markdown: a heading line of stars": (markdown, lambda n: "# " + "*" * n),
    "markdown: a heading line of spaces": (markdown, lambda n: "#" + " " * n + "x"),
    "markdown: stars after a role": (markdown, lambda n: "# user" + "*" * n + "x"),
}


def _reading(tmp_path: Path, fmt: Format) -> Callable[[str], object]:
    def read(payload: str) -> object:
        text, name = fmt(payload)
        path = tmp_path / str(len(payload)) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return read_transcript(path)

    return read


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_crafted_transcript_reads_in_linear_time(shape: str, tmp_path: Path) -> None:
    fmt, make = SHAPES[shape]
    read = _reading(tmp_path, fmt)
    small, large = (best_seconds(read, make(k * N)) for k in (1, 4))
    assert large < 6 * small + FLOOR_S, f"{shape}: {small:.3f}s at 100 KB, {large:.3f}s at 400 KB"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_crafted_transcript_is_read_all_the_same(shape: str, tmp_path: Path) -> None:
    fmt, make = SHAPES[shape]
    result = _reading(tmp_path, fmt)(make(2000))
    assert len(result.conversations) == 1  # type: ignore[attr-defined]


OPENINGS = {
    claude_code: ["<system-reminder>", "<command-name>", "</bash-input>", "<bash-stdout>"],
    codex: ["<environment_context>", "<turn_aborted>", "</INSTRUCTIONS>", "<user_instructions>"],
    chatgpt: ["\ue200", "\ue201", "\ue202"],
    cortexes: ["<!-- distilled:", "<!-- audit:", "-->", "### user", "> [tool] **"],
    markdown: ["# ", "## user", "**User", "*", "(", "\u2014"],
}
FILLERS = ["", " ", "\t", "x", "\n", "**", "-->"]


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(
    drawn=st.sampled_from(list(OPENINGS)).flatmap(
        lambda fmt: st.tuples(
            st.just(fmt),
            st.lists(st.sampled_from(OPENINGS[fmt] + FILLERS), min_size=1, max_size=4),
        )
    )
)
def test_any_run_of_unclosed_openings_reads_in_linear_time(
    drawn: tuple[Format, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    fmt, pieces = drawn
    unit = "".join(pieces) or "x"
    read = _reading(tmp_path_factory.mktemp("shape"), fmt)
    small, large = (best_seconds(read, unit * (k * 20_000 // len(unit))) for k in (1, 4))
    assert large < 6 * small + FLOOR_S, f"{unit!r}: {small:.3f}s, then {large:.3f}s"


TAG = re.compile(r"<(a|b|ab)>")


@given(st.lists(st.sampled_from(["<a>", "</a>", "<b>", "</b>", "<ab>", "</ab>", "x", "<"])))
def test_spans_cut_what_the_lazy_regex_cuts(pieces: list[str]) -> None:
    text = "".join(pieces)
    lazy = re.compile(r"<(a|b|ab)>(.*?)</\1>", re.S)
    assert cut(text, spans(text, TAG, lambda name: f"</{name}>")) == lazy.sub("", text)
    found = [(s.name, s.inner) for s in spans(text, TAG, lambda name: f"</{name}>")]
    assert found == [(m.group(1), m.group(2)) for m in lazy.finditer(text)]


@given(st.lists(st.sampled_from(["\ue200", "\ue201", "x"])))
def test_marker_spans_cut_what_the_marker_regex_cuts(pieces: list[str]) -> None:
    text = "".join(pieces)
    cited = cut(text, spans(text, re.compile("\ue200"), lambda _: "\ue201"))
    assert cited == re.sub("\ue200[^\ue201]*\ue201", "", text)


ELEMENTS = [
    "{}",
    "1",
    '"x"',
    "[]",
    '{"mapping": {}}',
    '{"title": "t", "mapping": {"r": {"id": "r", "message": null, "children": []}}}',
]
EXPORTS = st.one_of(
    st.builds(
        lambda items, gap, tail: f"{gap}[{gap}{(gap + ',').join(items)}{gap}]{tail}",
        st.lists(st.sampled_from(ELEMENTS), max_size=4),
        st.sampled_from(["", " ", "\n"]),
        st.sampled_from(["", " ", "\n", ",", "]", "x"]),
    ),
    st.lists(st.sampled_from(["[", "]", ",", " ", *ELEMENTS]), max_size=8).map("".join),
)


@given(EXPORTS)
def test_an_export_read_a_conversation_at_a_time_reads_as_the_whole_document(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    whole: object
    try:
        whole = chatgpt_reader.whole_document(Path("conversations.json"), text)
    except TranscriptError as e:
        whole = type(e)
    streamed = chatgpt_reader._one_at_a_time(text)
    if streamed is not None:
        assert streamed == whole


def _scalar_as_stripped(text: str) -> bool:
    s = text.strip().lstrip("\ufeff")
    if (
        not s
        or len(s) > 1000
        or not (s[0] in '"-' or s[0].isdigit() or s in ("null", "true", "false"))
    ):
        return False
    try:
        json.loads(s)
    except ValueError:
        return False
    return True


@given(
    st.lists(
        st.sampled_from(
            [" ", "\n", "\ufeff", "42", "-1", '"x"', "null", "true", "x", "{}", "9" * 400]
        ),
        max_size=8,
    ).map("".join)
)
def test_a_json_scalar_is_found_without_copying_the_file_as_stripping_found_it(text: str) -> None:
    from dreaming.raw import _is_json_scalar

    assert _is_json_scalar(text) == _scalar_as_stripped(text)
