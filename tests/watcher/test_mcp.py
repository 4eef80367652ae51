"""`dreaming mcp`: the server driven over stdio by the SDK's own client, as an agent's
host drives it (a real process, a real vault, the real Reader)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from dreaming.errors import LedgerError
from dreaming.query import BUDGET, Result
from dreaming.vault import Vault
from dreaming.vault.repo import VaultRepo
from tests.read_support import fill
from tests.support import REPO
from watcher.mcp import DESCRIPTIONS, answer

ROOT = REPO
TOOLS = {
    "resolve",
    "read",
    "section",
    "links",
    "infobox",
    "list",
    "category",
    "status",
    "search",
    "source",
    "takeoff",
}
T = TypeVar("T")


# Slow: `dreaming mcp` in a child process.
pytestmark = pytest.mark.slow


def over_stdio(vault: Vault, steps: Callable[[ClientSession], Awaitable[T]]) -> T:
    """Start `python -m watcher.cli mcp --vault V`, connect the SDK's client, run `steps`."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "watcher.cli", "mcp", "--vault", str(vault.root)],
        cwd=ROOT,
    )

    async def session() -> T:
        with tempfile.TemporaryFile("w+") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                return await steps(client)

    return asyncio.run(session())


def text(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def calls(
    *requests: tuple[str, dict[str, Any]],
) -> Callable[[ClientSession], Awaitable[list[CallToolResult]]]:
    async def steps(client: ClientSession) -> list[CallToolResult]:
        return [await client.call_tool(name, args) for name, args in requests]

    return steps


def test_the_server_lists_one_described_read_only_tool_per_reader_tool(vault: Vault) -> None:
    async def steps(client: ClientSession) -> Any:
        return (await client.list_tools()).tools

    tools = over_stdio(vault, steps)
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert t.description == DESCRIPTIONS[t.name]
        assert t.input_schema["type"] == "object"
        assert all(p.get("description") for p in t.input_schema["properties"].values())
        assert t.annotations is not None
        assert t.annotations.read_only_hint is True
    schemas = {t.name: t.input_schema for t in tools}
    assert schemas["section"]["required"] == ["stem", "heading"]
    assert schemas["resolve"]["required"] == ["name"]


def test_the_server_tells_an_agent_when_to_look_up(vault: Vault) -> None:
    async def steps(client: ClientSession) -> str | None:
        return client.instructions

    instructions = over_stdio(vault, steps) or ""
    assert "before answering" in instructions
    assert "not world facts" in instructions
    assert "`resolve`" in instructions
    assert "`section`" in instructions


def test_every_tool_answers_within_the_budget_with_its_size(vault: Vault) -> None:
    fill(vault)
    results = over_stdio(
        vault,
        calls(
            ("resolve", {"name": "claude code"}),
            ("read", {"stem": "Claude_Code"}),
            ("section", {"stem": "Claude_Code", "heading": "WebSearch and Task Tool CLI Options"}),
            ("links", {"stem": "Claude_Code"}),
            ("infobox", {"stem": "Claude_Code"}),
            ("list", {"kind": "project"}),
            ("category", {"name": "Tools"}),
            ("status", {}),
            ("search", {"text": "markdownlint angle brackets"}),
            ("source", {"conv": "256ba646"}),
        ),
    )
    for result in results:
        assert not result.is_error, text(result)
        body = text(result)
        assert body.strip()
        assert result.structured_content is not None
        assert result.structured_content["bytes"] == len(body.encode("utf-8")) <= BUDGET
        assert isinstance(result.structured_content["data"], dict)
    resolved, _, section, links, _, listed, category, _, search, _ = map(text, results)
    assert "Claude_Code" in resolved
    assert "Haiku" in section
    assert "WebSearch" in links
    assert "Big_Project" in listed or "Big Project" in listed
    assert "WebSearch" in category
    assert "URLs" in search


def test_a_long_section_is_cut_and_names_its_next_read(vault: Vault) -> None:
    fill(vault)
    (first,) = over_stdio(
        vault, calls(("section", {"stem": "Big_Project", "heading": "Deployment"}))
    )
    assert not first.is_error
    assert first.structured_content is not None
    assert first.structured_content["bytes"] <= BUDGET
    assert first.structured_content["next"]


def test_a_path_like_name_is_a_clean_not_found(vault: Vault) -> None:
    fill(vault)
    asked = [
        ("read", {"stem": "../.dreaming/ledger"}),
        ("section", {"stem": "../../../etc/passwd", "heading": "root"}),
        ("resolve", {"name": ".git/config"}),
        ("infobox", {"stem": "/etc/hostname"}),
    ]
    for result in over_stdio(vault, calls(*asked)):
        body = text(result)
        assert "Traceback" not in body
        assert "[core]" not in body
        assert "SQLite format" not in body
        assert "root:" not in body
        assert "not found" in body.lower() or "no article" in body.lower(), body


def test_a_bad_call_is_a_tool_error_and_the_server_keeps_serving(vault: Vault) -> None:
    fill(vault)
    bad, good = over_stdio(
        vault,
        calls(("read", {"stem": "URLs", "page": "two"}), ("resolve", {"name": "URLs"})),
    )
    assert bad.is_error
    assert not good.is_error
    assert "URLs" in text(good)


def test_a_dreaming_error_becomes_its_one_line_as_a_tool_error() -> None:
    def failing() -> Result:
        raise LedgerError("ledger.sqlite: the ledger is damaged; move the file aside")

    result = answer(failing)
    assert result.is_error
    assert text(result) == "ledger.sqlite: the ledger is damaged; move the file aside"


def test_a_session_never_writes_the_vault(vault: Vault) -> None:
    fill(vault)
    subprocess.run(["git", "add", "-A"], cwd=vault.root, check=True, capture_output=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "articles"],
        cwd=vault.root,
        check=True,
        capture_output=True,
    )
    before = {p: p.read_bytes() for p in vault.articles.glob("*.md")}
    over_stdio(
        vault,
        calls(
            ("resolve", {"name": "WebSearch"}),
            ("section", {"stem": "WebSearch", "heading": "WebSearch CLI Options"}),
            ("search", {"text": "archive deploys"}),
        ),
    )
    assert {p: p.read_bytes() for p in vault.articles.glob("*.md")} == before
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=vault.root, check=True, capture_output=True, text=True
    )
    assert status.stdout == ""


# Six questions a person asks of their wiki, each the calls an agent following the
# tool descriptions makes: resolve, then the one section; a link hop or a search
# when the name is not an article; the last is a negative control.
SESSION: list[list[tuple[str, dict[str, Any]]]] = [
    [
        ("resolve", {"name": "Claude Code"}),
        ("section", {"stem": "Claude_Code", "heading": "WebSearch and Task Tool CLI Options"}),
    ],
    [
        ("resolve", {"name": "Task tool"}),
        ("search", {"text": "Task tool Haiku model quick tasks"}),
        ("section", {"stem": "Claude_Code", "heading": "WebSearch and Task Tool CLI Options"}),
    ],
    [
        ("resolve", {"name": "WebSearch"}),
        ("section", {"stem": "WebSearch", "heading": "WebSearch CLI Options"}),
        ("links", {"stem": "WebSearch"}),
    ],
    [
        ("resolve", {"name": "MD034"}),
        ("search", {"text": "MD034 markdownlint angle brackets"}),
        ("section", {"stem": "URLs", "heading": "MDX URLs"}),
    ],
    [
        ("resolve", {"name": "big project"}),
        ("read", {"stem": "Big_Project"}),
        ("section", {"stem": "Big_Project", "heading": "Deployment"}),
    ],
    [
        ("resolve", {"name": "Paris"}),
        ("search", {"text": "weather in Paris"}),
    ],
]


def test_a_six_question_session_stays_within_the_read_budget(vault: Vault) -> None:
    fill(vault)

    async def steps(client: ClientSession) -> list[list[CallToolResult]]:
        return [[await client.call_tool(n, a) for n, a in question] for question in SESSION]

    answers = over_stdio(vault, steps)
    per_question = []
    for question in answers:
        sizes = [len(text(r).encode("utf-8")) for r in question]
        assert all(not r.is_error for r in question)
        assert max(sizes) <= BUDGET
        per_question.append(sum(sizes))
    assert sum(per_question) / len(per_question) < 5 * 1024
    assert "Haiku" in text(answers[0][1])
    assert "MD034" in text(answers[3][2])


def test_mcp_without_a_vault_says_how_to_make_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "watcher.cli", "mcp", "--vault", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "dreaming init" in done.stderr


def test_list_filters_given_together_must_all_hold(vault: Vault) -> None:
    fill(vault)
    (listed,) = over_stdio(vault, calls(("list", {"kind": "project", "category": "Tools"})))
    assert not listed.is_error, text(listed)
    assert listed.structured_content is not None
    assert listed.structured_content["data"]["stems"] == ["Claude_Code"]


def test_takeoff_names_the_section_changed_last_and_what_to_read_next(vault: Vault) -> None:
    fill(vault)
    VaultRepo(vault.root).commit_pipeline(sorted(vault.articles.glob("*.md")), "night", "run-1")
    page = vault.articles / "WebSearch.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "for content farms.[^1]", "for content farms. It now also blocks AI spam sites.[^1]"
        ),
        encoding="utf-8",
    )
    (result,) = over_stdio(vault, calls(("takeoff", {"topic": "websearch"})))
    assert not result.is_error, text(result)
    body = text(result)
    assert body.startswith("# Takeoff: WebSearch (WebSearch · thing)\n")
    assert 'Last changed: section 1 "WebSearch CLI Options", not committed yet' in body
    assert '"It now also blocks AI spam sites."' in body
    assert body.endswith('Next: section WebSearch "WebSearch CLI Options" · read WebSearch')
    assert result.structured_content is not None
    assert result.structured_content["tool"] == "takeoff"
    assert result.structured_content["bytes"] == len(body.encode()) <= BUDGET
    assert result.structured_content["data"]["changed"]["n"] == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"topic": 7}, "topic must be text, not a number"),
        ({}, "topic is missing: takeoff needs it"),
        ({"topic": "t" * 5000}, 'the topic "ttt'),
    ],
)
def test_a_bad_takeoff_argument_is_one_line(vault: Vault, args: dict[str, Any], said: str) -> None:
    (result,) = over_stdio(vault, calls(("takeoff", args)))
    assert result.is_error
    assert "\n" not in text(result)
    assert text(result).startswith(said), text(result)
    assert "5,000 bytes" in text(result) or "t" * 100 not in text(result)
