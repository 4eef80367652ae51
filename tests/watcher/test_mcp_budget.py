"""The 2 KB budget holds for everything a client receives for one call: the text, the
structured content and any argument echoed back, measured as the JSON the server sends
(a real `dreaming mcp` process driven by the SDK's own client)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.types import CallToolResult

from dreaming.ledger import Ledger
from dreaming.ledger.nav_index import stamps
from dreaming.query import BUDGET, QueryError, Reader, Result
from dreaming.vault import Vault
from tests.query_support import HUGE, big_wiki
from tests.watcher.test_mcp import calls, over_stdio, text

# Slow: `dreaming mcp` in a child process.
pytestmark = pytest.mark.slow


def sent(result: CallToolResult) -> int:
    """The bytes of the tool result as JSON, the way the server writes it, in its
    JSON-RPC response line (a six-digit request id)."""
    body = result.model_dump_json(by_alias=True, exclude_none=True)
    return len(f'{{"jsonrpc":"2.0","id":123456,"result":{body}}}\n'.encode())


def test_every_page_of_every_tool_fits_the_budget_as_sent(vault: Vault, ledger: Ledger) -> None:
    conv = big_wiki(vault, ledger)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("resolve", {"name": "huge article"}),
        ("resolve", {"name": "Same"}),
        ("resolve", {"name": "Namesak"}),
        ("read", {"stem": HUGE}),
        ("read", {"stem": HUGE, "full": True}),
        ("section", {"stem": HUGE, "heading": "lead"}),
        ("section", {"stem": HUGE, "heading": "no such heading"}),
        ("links", {"stem": HUGE}),
        ("infobox", {"stem": HUGE}),
        ("list", {}),
        ("list", {"kind": "project"}),
        ("list", {"category": "Everything"}),
        ("category", {"name": "Group 1"}),
        ("status", {}),
        ("search", {"text": "sentence lead section body more", "limit": 50}),
        ("source", {"conv": conv}),
        ("takeoff", {"topic": "huge article"}),
        ("takeoff", {"topic": "Same"}),
    ]

    async def steps(client: ClientSession) -> dict[str, list[CallToolResult]]:
        pages: dict[str, list[CallToolResult]] = {}
        for tool, args in asks:
            got = pages.setdefault(f"{tool} {args}", [])
            page = 1
            while True:
                asked = (
                    {**args, "page": page} if tool not in ("status", "search", "takeoff") else args
                )
                result = await client.call_tool(tool, asked)
                got.append(result)
                assert result.structured_content is not None, (tool, text(result))
                if result.structured_content["next"] is None or len(got) > 100:
                    break
                page += 1
        return pages

    every = over_stdio(vault, steps)
    assert len(every[f"read {{'stem': '{HUGE}', 'full': True}}"]) > 20
    assert len(every["list {'kind': 'project'}"]) > 1
    for ask, pages in every.items():
        for n, result in enumerate(pages, start=1):
            assert not result.is_error, (ask, text(result))
            assert sent(result) <= BUDGET, (ask, n, sent(result))


def test_a_huge_argument_is_refused_in_one_short_line(vault: Vault) -> None:
    name = "x" * 10_000_000
    results = over_stdio(
        vault,
        calls(
            ("resolve", {"name": name}),
            ("section", {"stem": "A", "heading": name}),
            ("search", {"text": name}),
            (name[:100_000], {}),
        ),
    )
    for result in results:
        assert result.is_error
        assert sent(result) <= BUDGET
        line = text(result)
        assert "\n" not in line
        assert "x" * 100 not in line
        assert "shorter" in line or line.startswith("no tool ")


def test_a_refused_argument_costs_no_work(vault: Vault, ledger: Ledger) -> None:
    big_wiki(vault, ledger)
    reader = Reader(vault, ledger)
    asks: list[Callable[[], Result]] = [
        lambda: reader.resolve("y" * 5000),
        lambda: reader.read("y" * 5000),
        lambda: reader.list_by(kind="y" * 5000),
        lambda: reader.source("y" * 5000),
    ]
    for ask in asks:
        with pytest.raises(QueryError, match="shorter"):
            ask()
    assert stamps(ledger) == {}  # the index was never refreshed


def test_an_echoed_argument_is_clipped(vault: Vault, ledger: Ledger) -> None:
    big_wiki(vault, ledger)
    name = '"quoted\\ ' * 100  # 900 bytes, each quote and backslash escaped twice in JSON
    results = over_stdio(
        vault,
        calls(
            ("resolve", {"name": name}),
            ("read", {"stem": name}),
            ("section", {"stem": HUGE, "heading": name}),
            ("list", {"kind": name}),
            ("list", {"category": name}),
            ("category", {"name": name}),
            ("search", {"text": name}),
            ("source", {"conv": name}),
        ),
    )
    for result in results:
        assert not result.is_error, text(result)
        assert sent(result) <= BUDGET, (text(result)[:80], sent(result))
