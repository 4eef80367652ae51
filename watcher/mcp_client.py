"""The read tools through a real `dreaming mcp` session, as an agent's host sees them.

`McpTools` starts `dreaming mcp --vault V` as a child process, connects the SDK's
own stdio client and answers each tool call with the Result the agent received (its
text, data, byte size and next read, from the call's structured content). The eval
runs its strategies through it with `dreaming eval retrieval --over-mcp`, so the
bytes it counts are the bytes an agent takes in over the wire.

The SDK's client is async; the strategies are plain calls. The session lives on an
event loop in a thread of its own and each call waits for its answer there.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from dreaming.errors import DreamingError
from dreaming.query import Result
from dreaming.vault import Vault

CALL_SECONDS = 60.0
"""A tool call that takes longer than this is a server that hangs."""
START_SECONDS = 60.0


class McpError(DreamingError):
    """The MCP server could not be started or stopped answering."""


class McpTools:
    """The `eval_retrieval.Tools` of one `dreaming mcp` child process."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._client: ClientSession | None = None
        self._stop: asyncio.Event | None = None
        self._closed: Future[None] = Future()
        # Closed by _shut: it outlives the session, to say why a start failed.
        self._log = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._resolved: dict[str, Result] = {}
        self._searched: dict[str, Result] = {}
        self._lost: BaseException | None = None
        """What ended the session after it was ready; the next call says it."""

    def __enter__(self) -> McpTools:
        self._thread.start()
        ready: Future[None] = Future()
        asyncio.run_coroutine_threadsafe(self._session(ready), self._loop)
        try:
            ready.result(START_SECONDS)
        except Exception as e:
            why = self._said() or str(e)
            self._shut()
            command = f"dreaming mcp --vault {self.vault.root}"
            raise McpError(f"could not start `{command}`: {why}") from None
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            self._closed.result(START_SECONDS)
        self._shut()

    def _shut(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(START_SECONDS)
        self._loop.close()
        self._log.close()

    def _said(self) -> str:
        self._log.seek(0)
        lines = [line.strip() for line in self._log.read().splitlines() if line.strip()]
        return lines[-1] if lines else ""

    async def _session(self, ready: Future[None]) -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "watcher.cli", "mcp", "--vault", str(self.vault.root)],
            cwd=Path(__file__).resolve().parent.parent,
        )
        try:
            async with (
                stdio_client(params, errlog=self._log) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                self._client, self._stop = client, asyncio.Event()
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as e:
            if ready.done():
                self._lost = e
            else:
                ready.set_exception(e)
        finally:
            self._closed.set_result(None)

    def call(self, tool: str, **args: Any) -> Result:
        """One tool call; its Result as the agent received it."""
        if self._client is None:
            raise McpError("the MCP session is not open")
        if self._lost is not None:
            why = self._said() or f"{type(self._lost).__name__}: {self._lost}"
            raise McpError(f"`dreaming mcp` stopped answering ({tool}): {why}")
        try:
            answer: CallToolResult = asyncio.run_coroutine_threadsafe(
                self._client.call_tool(tool, args), self._loop
            ).result(CALL_SECONDS)
        except Exception as e:
            # The child died or hung (the SDK's errors are its own): one line, no traceback.
            why = self._said() or f"{type(e).__name__}: {e}"
            raise McpError(f"`dreaming mcp` stopped answering ({tool}): {why}") from None
        text = "".join(b.text for b in answer.content if isinstance(b, TextContent))
        if answer.is_error or not answer.structured_content:
            return Result(tool, text, {"error": True})
        doc = answer.structured_content
        return Result(tool, text, dict(doc.get("data") or {}), doc.get("next"))

    def resolve(self, name: str) -> Result:
        self._resolved[name] = self.call("resolve", name=name)
        return self._resolved[name]

    def resolve_stems(self, name: str) -> list[str]:
        """From the last `resolve` of this name: the stem, else the candidates."""
        data = (self._resolved.get(name) or self.resolve(name)).data
        stem = data.get("stem")
        return [stem] if isinstance(stem, str) else [str(c) for c in data.get("candidates", [])]

    def search(self, text: str, *, limit: int = 10) -> Result:
        self._searched[text] = self.call("search", text=text, limit=limit)
        return self._searched[text]

    def search_stems(self, text: str, *, limit: int = 10) -> list[str]:
        """From the last `search` of this text: the stems of its hits, in rank order."""
        hits = (self._searched.get(text) or self.search(text, limit=limit)).data.get("hits", [])
        ranked: list[str] = []
        for hit in hits:
            if isinstance(hit, dict) and (stem := hit.get("stem")) not in ranked:
                ranked.append(str(stem))
        return ranked[:limit]

    def read(self, stem: str, *, full: bool = False, page: int = 1) -> Result:
        return self.call("read", stem=stem, full=full, page=page)

    def section(self, stem: str, heading: str, *, page: int = 1) -> Result:
        return self.call("section", stem=stem, heading=heading, page=page)
