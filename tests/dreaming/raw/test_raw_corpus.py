"""Every reader on every real transcript in ../shared/corpus (skipped where it is absent).

The expected counts below were counted independently of the readers, by hand and with
jq/grep on the raw files; each comment says how.
"""

from __future__ import annotations

import contextlib
import gc
import json
import time
from collections import Counter
from pathlib import Path

import pytest

from dreaming.errors import TranscriptError
from dreaming.raw import read_transcript
from dreaming.transcript import Conversation
from tests.support import CORPUS

pytestmark = [
    pytest.mark.slow,  # every reader on the whole corpus, timed
    pytest.mark.corpus,
    pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not present at {CORPUS}"),
]


def _files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def _read(rel: str) -> list[Conversation]:
    return read_transcript(CORPUS / rel).conversations


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[str, list[Conversation]]]:
    out: dict[str, tuple[str, list[Conversation]]] = {}
    for path in _files():
        r = read_transcript(path)
        out[str(path.relative_to(CORPUS))] = (r.source, r.conversations)
    return out


def test_every_file_reads_without_error(results: dict[str, tuple[str, list[Conversation]]]) -> None:
    assert len(results) == len(_files()) > 90
    by_folder = {rel.split("/")[0]: source for rel, (source, _) in results.items()}
    assert by_folder == {
        "aider": "aider",
        "chatgpt": "chatgpt",
        "claude-code": "claude-code",
        "codex": "codex",
        "markdown": "markdown",
        "pi": "pi",
    }
    for rel, (_, convs) in results.items():
        for conv in convs:
            assert conv.messages, rel
            assert conv.title, rel
            for m in conv.messages:
                assert m.role in ("user", "assistant", "system", "tool"), rel
                assert m.text.strip(), rel


def test_claude_code_sessions_and_subagents(
    results: dict[str, tuple[str, list[Conversation]]],
) -> None:
    main = {r: c for r, (s, c) in results.items() if s == "claude-code" and r.endswith(".jsonl")}
    sessions = {r: c for r, c in main.items() if not Path(r).name.startswith("agent-")}
    agents = {r: c for r, c in main.items() if Path(r).name.startswith("agent-")}
    # SOURCES.md: 29 main sessions, 26 with dialogue; 53 subagent files.
    assert len(sessions) == 29
    assert len(agents) == 53
    empty = sorted(Path(r).name for r, c in sessions.items() if not c)
    assert empty == [
        "3680252d-d4e3-4416-bddd-8f5b5b4fdb7f.jsonl",  # summaries + a bare /model command
        "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl",  # summary-only
        "a95fea4a-b88a-4e49-ac07-4cc323d8700c.jsonl",  # file-history-snapshot only
    ]
    # `jq -r .type agent-*.jsonl`: 28 files are a "Warmup" prompt + reply, 11 are a single
    # assistant record (a warm-up reply whose prompt was not logged): 39 of 53 give nothing.
    assert sum(1 for c in agents.values() if c) == 14
    for rel, convs in agents.items():
        for conv in convs:
            assert conv.parent_id, rel
            assert conv.source_id.startswith(conv.parent_id + "/agent-"), rel


def test_claude_code_hand_counts() -> None:
    # 5ed31c36: `jq -c '[.type, .message.id, (.message.content|..type)]'` lists 12 records:
    # 1 typed user record (IDE tag + question) → 1 user; assistant records with 3 distinct
    # message.id → 3 assistant; tool_result records in runs of 3 and 1 → 2 tool. Total 6.
    [conv] = _read(
        "claude-code/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl"
    )
    assert Counter(m.role for m in conv.messages) == {"user": 1, "assistant": 3, "tool": 2}
    # 256ba646: 11 records: queue-operation + progress (dropped), 1 typed user string,
    # assistant message ids msg_01Kdq…, msg_013Q…, msg_01Qa…, msg_019f… → 4, and 3 tool_result
    # records each followed by a new assistant message → 3 tool. Total 8.
    [conv] = _read(
        "claude-code/-src-experiments-claude_p/256ba646-2c15-437a-98e9-4171aafd030e.jsonl"
    )
    assert [m.role for m in conv.messages] == ["user"] + ["assistant", "tool"] * 3 + ["assistant"]
    # The new-style subagent beside 29ccd257: the same jq listing gives 1 prompt, 10 distinct
    # assistant ids and 9 tool-result runs = 20; its parent is the session folder's id.
    [conv] = _read(
        "claude-code/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl"
    )
    assert len(conv.messages) == 20
    assert conv.parent_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
    assert conv.source_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20/agent-a2271d1"


def test_chatgpt_hand_count() -> None:
    # jq: walk .[0].mapping from current_node up through .parent, reverse, drop null and
    # is_visually_hidden messages (the 2 empty system nodes), print author.role, `uniq`
    # (consecutive assistant text+code nodes are one turn, as are tool outputs):
    # 8 user, 19 assistant, 11 tool = 38.
    [conv] = _read("chatgpt/conversations.json")
    assert conv.source_id == "966da5c4-5bb7-4e4d-ab6d-a7316b96266e"
    assert conv.title == "Average Distance in U(0,1)"
    assert Counter(m.role for m in conv.messages) == {"user": 8, "assistant": 19, "tool": 11}


def test_pi_hand_counts() -> None:
    # jq over `select(.type=="message")`: user messages 55 / 88 (SOURCES.md says 55 and 88
    # human turns); assistant messages with a text or toolCall block 469 / 439 (thinking-only
    # and aborted empty ones dropped); runs of toolResult/bashExecution 436 / 366.
    [before] = _read("pi/before-compaction.jsonl")
    [large] = _read("pi/large-session.jsonl")
    assert Counter(m.role for m in before.messages) == {"user": 55, "assistant": 469, "tool": 436}
    assert Counter(m.role for m in large.messages) == {"user": 88, "assistant": 439, "tool": 366}
    assert large.source_id == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"


def test_codex_hand_count() -> None:
    # `jq 'select(.type=="response_item" and .payload.type=="message")'` gives 3 user items:
    # the AGENTS.md injection, the <environment_context> block and the one real prompt; the
    # sample is cut before any reply. So: 1 user message.
    [conv] = _read("codex/sample_codex_session.jsonl")
    assert conv.source_id == "019b64e5-57fa-7463-b644-fba7e456f905"
    assert [m.role for m in conv.messages] == ["user"]
    assert conv.messages[0].text.startswith("can you analyse the MD files")


def test_aider_hand_count() -> None:
    # `grep -n '^####'`: 19 lines. Session 1 (line 2): inputs at 15, 3077, 3085-86, 3092-93,
    # 3116-17 → 5 (3075 `<blank>` and 3128 `/quit` carry nothing), each answered → 5 replies.
    # Session 2 (line 3130): inputs at 3138 and 5074-80 (one input, its empty lines are
    # `####   `) → 2, both answered; 7581 is `<blank>`. 10 + 4 = 14.
    first, second = _read("aider/aider.chat.history.md")
    assert [m.role for m in first.messages] == ["user", "assistant"] * 5
    assert [m.role for m in second.messages] == ["user", "assistant"] * 2
    assert first.created_at == "2026-04-26T14:05:30"
    assert second.created_at == "2026-04-26T14:26:50"
    assert second.messages[2].text.count("\n") == 6  # the 7-line input stays one message


def test_markdown_hand_count() -> None:
    # `grep -c '^>'` = 66 quoted lines; `awk` finds no two consecutive `>` lines, so 66
    # prompts, minus the example quote on line 5, before the `## Log` heading on line 9:
    # 65 prompts, each followed by a reply → 65 user + 65 assistant.
    [conv] = _read("markdown/prompt-log.md")
    assert [m.role for m in conv.messages] == ["user", "assistant"] * 65
    assert conv.messages[0].text == "[Initial prompt] let's create a 2D physics engine"
    assert conv.messages[-2].text == "No further queries, Computer"


def test_corpus_reads_within_twice_json_loads() -> None:
    datas = [(p, p.read_bytes()) for p in _files()]

    def baseline() -> None:
        for _, data in datas:
            for line in data.split(b"\n"):
                with contextlib.suppress(ValueError):
                    json.loads(line)

    def ours() -> None:
        for path, data in datas:
            with contextlib.suppress(TranscriptError):
                read_transcript(path, data)

    # Interleaved rounds share the machine's noise; frozen objects from earlier tests stay
    # out of the collector's way, so the two sides are measured on the same footing.
    gc.collect()
    gc.freeze()
    try:
        base = mine = float("inf")
        for _ in range(7):
            start = time.perf_counter()
            baseline()
            base = min(base, time.perf_counter() - start)
            start = time.perf_counter()
            ours()
            mine = min(mine, time.perf_counter() - start)
    finally:
        gc.unfreeze()
    assert mine < 2 * base, f"corpus {mine:.3f} s vs json.loads {base:.3f} s"
