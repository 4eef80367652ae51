"""`dreaming mcp`: the read path's tools served over MCP (stdio), read-only.

One tool a `Reader` method, named as `dreaming query` names them (MCP clients
already namespace a server's tools, e.g. Claude Code's `mcp__dreaming__resolve`,
so no `memory_` prefix). Each call returns the Result's text with its data (only
what that page shows), byte size and next read as structured content: at most 2 KB
of JSON in all. A failure is a tool
error result with one line saying what to do; the server keeps serving. It never
writes the vault: the only writes are the ledger's navigation cache, refreshed
before each read. The model is never loaded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations

from dreaming.errors import DreamingError
from dreaming.query import Reader, Result
from dreaming.query.budget import quoted, short
from dreaming.vault import Vault
from dreaming.vault.logs import internal_error
from watcher.app import App
from watcher.mcp_args import checked

INSTRUCTIONS = """\
This server reads the person's own wiki: articles a local model wrote overnight from \
their AI conversations, kept current as their positions change. It is their recorded \
decisions, preferences and history (personal continuity), not world facts: use it for \
what THEY chose, use, think or did, not for weather, public facts or ordinary coding.

Look it up before answering a question about the person's own past work or choices. \
Find, then read, in small reads: `resolve` the name the question is about, `read` the \
article's contents and lead, then `section` the ONE section that answers. Follow \
`links` for a related article; `search` only when no name resolves. To pick up work \
on a topic the person worked on before, `takeoff` it first: the lead, what changed \
last, what is still open, and where to read on. Every result is at most 2 KB; a cut \
result names its next read. Never read a whole article to find one fact. Answer as a \
continuation of what they said, not "according to the wiki"; check a claim against \
what was said with `source` when it matters."""

_READ_ONLY = ToolAnnotations(
    title=None, read_only_hint=True, destructive_hint=False, idempotent_hint=True,
    open_world_hint=False,
)  # fmt: skip

DESCRIPTIONS = {
    "resolve": (
        "FIRST STEP. Turn a name the question is about (a project, tool, person, place, "
        "topic) into the article that holds it: title, alias or redirect, case and "
        "punctuation ignored. Returns the article's stem, the candidates when the name "
        "is ambiguous, or the nearest names when it is unknown. Use before any read."
    ),
    "read": (
        "An article's table of contents and lead (what it is and the person's current "
        "position in brief): the second step after resolve. `stem` from resolve. "
        "`full=true` pages the whole text: only when the TOC shows no single section "
        "answers; `page` continues a cut result."
    ),
    "section": (
        "THE DEFAULT READ: one section of an article, by its heading from the TOC "
        "(`stem`, `heading`; `page` continues a long one). Read the ONE section that "
        "answers instead of the whole article. An unknown heading returns the TOC."
    ),
    "links": (
        "The articles one article links to and is linked from, and its See also: "
        "for a question that spans related subjects (one hop, then resolve/read)."
    ),
    "infobox": (
        "An article's infobox: kind, type, aliases and its short facts (dates, status, "
        "where it lives) without reading prose."
    ),
    "list": (
        "The articles of a kind (person, project, thing, …), a category and an infobox "
        "type: those with every one given (`kind` and `type` together narrow); none "
        "lists the kinds, types and categories; `page` continues."
    ),
    "category": (
        "The articles in one category (the wiki's [[Category:…]] tags), paged: for "
        "'which of my … ' questions."
    ),
    "status": (
        "What the wiki holds: article and conversation counts and the last nightly "
        "run. For questions about the wiki itself, or to see whether it is up to date."
    ),
    "search": (
        "LAST RESORT, when no name resolves: lexical search over every article (BM25), "
        "ranked hits with a short snippet each. No embeddings; use the person's own "
        "words. Then read the top hit's section, not the whole article."
    ),
    "takeoff": (
        "CONTINUING A TOPIC: the first read when picking up work on a project or subject "
        "the person worked on before. One call (at most 2 KB) gives the article's lead, "
        "its latest changes (History lines, the newest conversation it cites, with its "
        "date), the questions the person asked that the article leaves open, the section "
        "changed last, and the next reads to make (section, source). `topic`: a name as "
        "the person would say it."
    ),
    "source": (
        "The conversation a footnote cites (`conv:HASH` in an article's References), "
        "paged by message (`start`, `end`, `page`), secrets already redacted: to check "
        "a claim against what the person actually said. Not for finding things."
    ),
}


PARAMETERS = {
    "name": "A name as the person would say it: a title, an alias, any case.",
    "stem": "The article's stem, as resolve or a link gave it (e.g. Claude_Code).",
    "heading": "A section heading from the article's TOC (as read shows it).",
    "page": "Which page of a cut result (the `next` of the previous result says).",
    "full": "The whole article, paged, instead of TOC and lead: rarely needed.",
    "kind": "An infobox kind: person, project, thing, place, event, …",
    "category": "A category name, without `Category:`.",
    "type": "An infobox type.",
    "text": "The person's own words for what is wanted.",
    "limit": "How many hits, at most.",
    "conv": "The conversation's hash from a `conv:HASH` footnote.",
    "topic": "The project or subject to pick up, as the person would name it.",
    "start": "The first message to show (1-based).",
    "end": "The last message to show.",
}
"""What each argument means, in every tool's input schema."""


def build_server(reader: Reader) -> MCPServer:
    """The server over `reader`. Tools are async on purpose: the ledger's connection
    belongs to the thread that opened it, and the SDK runs sync tools on worker
    threads; each read takes milliseconds, so running it on the loop costs nothing."""

    def ask(call: Callable[[], Result]) -> CallToolResult:
        return answer(call, reader.vault)

    async def resolve(name: str) -> CallToolResult:
        return ask(lambda: reader.resolve(name))

    async def read(stem: str, full: bool = False, page: int = 1) -> CallToolResult:
        return ask(lambda: reader.read(stem, full=full, page=page))

    async def section(stem: str, heading: str, page: int = 1) -> CallToolResult:
        return ask(lambda: reader.section(stem, heading, page=page))

    async def links(stem: str, page: int = 1) -> CallToolResult:
        return ask(lambda: reader.links(stem, page=page))

    async def infobox(stem: str, page: int = 1) -> CallToolResult:
        return ask(lambda: reader.infobox(stem, page=page))

    async def list_(
        kind: str | None = None,
        category: str | None = None,
        type: str | None = None,
        page: int = 1,
    ) -> CallToolResult:
        return ask(lambda: reader.list_by(kind=kind, category=category, type=type, page=page))

    async def category(name: str, page: int = 1) -> CallToolResult:
        return ask(lambda: reader.category(name, page=page))

    async def status() -> CallToolResult:
        return ask(reader.status)

    async def search(text: str, limit: int = 10) -> CallToolResult:
        return ask(lambda: reader.search(text, limit=limit))

    async def source(
        conv: str, start: int | None = None, end: int | None = None, page: int = 1
    ) -> CallToolResult:
        return ask(lambda: reader.source(conv, start=start, end=end, page=page))

    async def takeoff(topic: str) -> CallToolResult:
        return ask(lambda: reader.takeoff(topic))

    functions: list[Callable[..., Awaitable[CallToolResult]]] = [
        resolve,
        read,
        section,
        links,
        infobox,
        list_,
        category,
        status,
        search,
        source,
        takeoff,
    ]
    named = {fn.__name__.rstrip("_"): fn for fn in functions}
    tools = [_tool(name, fn) for name, fn in named.items()]
    server = _Server(name="dreaming", instructions=INSTRUCTIONS, log_level="WARNING", tools=tools)
    server.functions = named
    return server


class _Server(MCPServer):
    """The SDK's server, but an unknown tool's name comes back clipped (the SDK would
    echo all of it), and every argument is checked before the SDK's own validation,
    whose faults are multi-line dumps (`watcher.mcp_args`)."""

    functions: dict[str, Callable[..., Awaitable[CallToolResult]]]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in self.functions:
            return _error(
                f"no tool {quoted(short(name, 80))}; the tools: {', '.join(DESCRIPTIONS)}"
            )
        try:
            args = checked(name, self.functions[name], arguments)
        except DreamingError as e:
            return _error(str(e))
        try:
            return await super().call_tool(name, args, context)
        except Exception as e:
            # Past the check, the SDK refusing is a bug of ours: still one line, and no
            # traceback on stderr (the SDK would log one).
            return _error(f"internal error calling {name} ({type(e).__name__}); please report it")


def _tool(name: str, fn: Callable[..., Awaitable[CallToolResult]]) -> Tool:
    tool = Tool.from_function(fn, name=name, description=DESCRIPTIONS[name], annotations=_READ_ONLY)
    # The schema is what a client shows the agent; arguments are still validated
    # against the function's signature.
    for arg, schema in tool.parameters.get("properties", {}).items():
        schema["description"] = PARAMETERS[arg]
    tool.parameters["title"] = name
    return tool


def answer(call: Callable[[], Result], vault: Vault | None = None) -> CallToolResult:
    """The Result as MCP content, or a tool error with the one line a person would see.

    A bug of ours is one line too, its traceback kept in the vault's internal log
    (with `vault`), never on stderr."""
    try:
        result = call()
    except DreamingError as e:
        return _error(str(e))
    except OSError as e:
        # The system said no (disk, permissions): still one line.
        return _error(f"{type(e).__name__}: {e}")
    except Exception as e:
        if vault is None:
            return _error(f"internal error reading ({type(e).__name__}); please report it")
        return _error(internal_error(vault, e, "reading"))
    return CallToolResult(
        content=[TextContent(type="text", text=result.text)],
        structured_content={
            "tool": result.tool,
            "data": result.data,
            "bytes": result.size,
            "next": result.next,
        },
    )


def _error(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=short(line, 1500))], is_error=True)


def serve_mcp(vault_path: Path | None) -> None:
    """Serve the vault's tools on stdin/stdout until the client closes them."""
    with App.open(vault_path, command="dreaming mcp") as app:
        reader = Reader(app.vault, app.ledger)
        # A server lives for a whole agent session: file events tell it which
        # articles changed instead of a check of every file once a second.
        # The first build (a vault never read) parses in worker processes only while
        # this process has no other thread: build before the watch's thread starts.
        reader.index.refresh()
        reader.index.follow(wait=1.0)
        try:
            build_server(reader).run("stdio")
        finally:
            reader.index.close()
