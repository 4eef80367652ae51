"""`dreaming mcp` under hostile arguments: every argument of every tool, given values
no agent should send, gets one line naming it (and the range a number must be in);
the server never writes a traceback and keeps serving. A real `dreaming mcp` process
driven by the SDK's own client."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from dreaming.ledger import Ledger
from dreaming.query import BUDGET
from dreaming.vault import Vault
from tests.query_support import conversation
from tests.read_support import fill
from tests.support import REPO
from tests.watcher.test_mcp import text

# Slow: `dreaming mcp` in a child process.
pytestmark = pytest.mark.slow

GOOD: dict[str, dict[str, Any]] = {
    "resolve": {"name": "claude code"},
    "read": {"stem": "Claude_Code"},
    "section": {"stem": "Claude_Code", "heading": "WebSearch and Task Tool CLI Options"},
    "links": {"stem": "Claude_Code"},
    "infobox": {"stem": "Claude_Code"},
    "list": {"kind": "project"},
    "category": {"name": "Tools"},
    "status": {},
    "search": {"text": "allowed domains"},
    "source": {"conv": "256ba646"},
    "takeoff": {"topic": "claude code"},
}
"""A call each tool answers; the sweep replaces one argument at a time."""

HOSTILE: list[Any] = [
    2**64,
    -(2**64),
    10**40,
    -1,
    0,
    1.5,
    1e300,
    "7",
    "seven",
    "",
    None,
    True,
    [1, 2],
    {"a": 1},
    "x" * 5000,
    "a\x00b",
    "\x1b[31mred\r\n",
    "../../../etc/passwd",
    "/dev/zero",
]

WHOLE_NUMBERS = {
    "page": "from 1 to 1,000,000,000",
    "start": "from 0 to 1,000,000,000",
    "end": "from 0 to 1,000,000,000",
    "limit": "from 1 to 50",
}


def session(
    vault: Vault, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[CallToolResult], dict[str, list[str]], str]:
    """The answers to `calls`, each tool's argument names, and all the server wrote to
    its stderr."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "watcher.cli", "mcp", "--vault", str(vault.root)],
        cwd=REPO,
    )

    async def run() -> tuple[list[CallToolResult], dict[str, list[str]], str]:
        with tempfile.TemporaryFile("w+") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                tools = (await client.list_tools()).tools
                names = {t.name: list(t.input_schema.get("properties", {})) for t in tools}
                answers = [await client.call_tool(tool, args) for tool, args in calls]
            log.seek(0)
            return answers, names, log.read()

    return asyncio.run(run())


def the_sweep(vault: Vault) -> list[tuple[str, str, Any]]:
    """(tool, argument, value): every hostile value for every argument of every tool."""
    _, names, _ = session(vault, [])
    return [(tool, arg, value) for tool in GOOD for arg in names[tool] for value in HOSTILE]


@pytest.fixture
def wiki(vault: Vault, ledger: Ledger) -> Vault:
    fill(vault)
    conversation(ledger, "256ba646", [("user", "which flag?"), ("assistant", "-p")])
    return vault


def assert_one_line(result: CallToolResult, why: object) -> str:
    body = text(result)
    assert "Traceback" not in body, why
    if result.is_error:
        assert "\n" not in body, (why, body)
        assert "pydantic" not in body, (why, body)
        assert len(body.encode()) <= BUDGET, why
    return body


def test_every_hostile_argument_is_answered_in_one_line_naming_it(wiki: Vault) -> None:
    sweep = the_sweep(wiki)
    calls = [(tool, {**GOOD[tool], arg: value}) for tool, arg, value in sweep]
    answers, _, _ = session(wiki, calls)
    for (tool, arg, value), result in zip(sweep, answers, strict=True):
        body = assert_one_line(result, (tool, arg, value))
        if result.is_error and arg in WHOLE_NUMBERS:
            assert body.startswith(f"{arg} must be a whole number {WHOLE_NUMBERS[arg]}"), body
        elif result.is_error:
            assert body.startswith(f"{arg} ") or f"the {arg}" in body, (tool, arg, body)


def test_a_hostile_sweep_leaves_the_servers_stderr_clean(wiki: Vault) -> None:
    sweep = the_sweep(wiki)
    calls = [(tool, {**GOOD[tool], arg: value}) for tool, arg, value in sweep]
    answers, _, stderr = session(wiki, [*calls, ("resolve", {"name": "claude code"})])
    assert stderr == ""
    assert not answers[-1].is_error
    assert "Claude_Code" in text(answers[-1])


def test_a_number_past_64_bits_is_refused_with_its_range(wiki: Vault) -> None:
    answers, _, _ = session(
        wiki,
        [
            ("source", {"conv": "256ba646", "start": 2**64}),
            ("source", {"conv": "256ba646", "end": 2**70}),
            ("search", {"text": "domains", "limit": 2**64}),
        ],
    )
    assert [text(r) for r in answers] == [
        "start must be a whole number from 0 to 1,000,000,000; ask again with one in that range",
        "end must be a whole number from 0 to 1,000,000,000; ask again with one in that range",
        "limit must be a whole number from 1 to 50; ask again with one in that range",
    ]
    assert all(r.is_error for r in answers)


def test_a_wrong_type_is_named_without_a_validation_dump(wiki: Vault) -> None:
    answers, _, _ = session(
        wiki,
        [
            ("source", {"conv": "256ba646", "start": 1.5}),
            ("resolve", {"name": 123}),
            ("read", {"stem": "Claude_Code", "full": "yes"}),
        ],
    )
    assert [text(r) for r in answers] == [
        "start must be a whole number from 0 to 1,000,000,000, not 1.5",
        "name must be text, not a number",
        "full must be true or false, not text",
    ]


def test_a_missing_argument_is_named(wiki: Vault) -> None:
    (answer,), _, _ = session(wiki, [("section", {"stem": "Claude_Code"})])
    assert answer.is_error
    assert text(answer).startswith("heading is missing: section needs it")
