"""`dreaming query <tool>`: the read path's tools from a shell, one subcommand a tool.

Plain output is the tool's text and a dim line with its size and the next read;
`--json` prints `{"tool", "text", "data", "next", "bytes"}` on one line: at most 2 KB,
as over MCP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.markup import escape

from watcher.console import command_app, out, shown, vault_option

if TYPE_CHECKING:
    from dreaming.query import Reader, Result


class Whole(click.ParamType[int, object]):
    """A number argument of a tool: whole and within its range (`RANGES`), else one line
    naming the option and the range."""

    name = "integer"

    def __init__(self, what: str) -> None:
        self.what = what

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        from dreaming.query.budget import allowed, in_range

        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
            number = int(value)
        else:
            self.fail(f"must be {allowed(self.what)}", param, ctx)
        if not in_range(self.what, number):
            self.fail(f"must be {allowed(self.what)}", param, ctx)
        return number


_WHOLE = re.compile(r"[+-]?[0-9]{1,30}")
"""Digits enough for any number the ranges allow and many over (refused by range, not
format), few enough that reading them is never slow."""

json_option = click.option(
    "--json", "as_json", is_flag=True, help="Machine-readable output (stable keys)."
)
page_option = click.option(
    "--page", type=Whole("page"), default=1, help="The page of a cut result."
)


@click.group()
def query() -> None:
    """Small reads of the wiki by name (each result at most 2 KB; a cut one names the next read)."""


def _run(vault_path: Path | None, as_json: bool, ask: Callable[[Reader], Result]) -> None:
    from dreaming.query import Reader  # only this command pays for importing the read path

    app = command_app(vault_path)
    result = ask(Reader(app.vault, app.ledger))
    if as_json:
        doc = result.document()
        click.echo(json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
        return
    for line in result.text.split("\n"):
        out.print(shown(line), markup=False)
    footer = f"{result.size} bytes" + (f" · next: {shown(result.next)}" if result.next else "")
    out.print(f"[dim]{escape(footer)}[/dim]")


@query.command("resolve")
@vault_option
@json_option
@click.argument("name")
def query_resolve(vault_path: Path | None, as_json: bool, name: str) -> None:
    """The article NAME means (title, alias or redirect; case and punctuation ignored)."""
    _run(vault_path, as_json, lambda r: r.resolve(name))


@query.command("read")
@vault_option
@json_option
@page_option
@click.option("--full", is_flag=True, help="The whole text (still paged), not TOC and lead.")
@click.argument("stem")
def query_read(vault_path: Path | None, as_json: bool, page: int, full: bool, stem: str) -> None:
    """An article's TOC and lead (or, with --full, its whole text)."""
    _run(vault_path, as_json, lambda r: r.read(stem, full=full, page=page))


@query.command("section")
@vault_option
@json_option
@page_option
@click.argument("stem")
@click.argument("heading")
def query_section(
    vault_path: Path | None, as_json: bool, page: int, stem: str, heading: str
) -> None:
    """One section of an article, with the footnotes it cites (HEADING: name, number, prefix)."""
    _run(vault_path, as_json, lambda r: r.section(stem, heading, page=page))


@query.command("links")
@vault_option
@json_option
@page_option
@click.argument("stem")
def query_links(vault_path: Path | None, as_json: bool, page: int, stem: str) -> None:
    """The articles STEM links to and from, and its See also."""
    _run(vault_path, as_json, lambda r: r.links(stem, page=page))


@query.command("infobox")
@vault_option
@json_option
@page_option
@click.argument("stem")
def query_infobox(vault_path: Path | None, as_json: bool, page: int, stem: str) -> None:
    """The infobox fields of STEM."""
    _run(vault_path, as_json, lambda r: r.infobox(stem, page=page))


@query.command("list")
@vault_option
@json_option
@page_option
@click.option("--kind", default=None, help="Articles of this infobox kind.")
@click.option("--category", default=None, help="Articles in this category.")
@click.option("--type", "type_", default=None, help="Articles of this infobox type.")
def query_list(
    vault_path: Path | None,
    as_json: bool,
    page: int,
    kind: str | None,
    category: str | None,
    type_: str | None,
) -> None:
    """The articles of a kind, category or type; with none, the kinds, types and categories."""
    _run(
        vault_path,
        as_json,
        lambda r: r.list_by(kind=kind, category=category, type=type_, page=page),
    )


@query.command("category")
@vault_option
@json_option
@page_option
@click.argument("name")
def query_category(vault_path: Path | None, as_json: bool, page: int, name: str) -> None:
    """The articles in category NAME."""
    _run(vault_path, as_json, lambda r: r.category(name, page=page))


@query.command("status")
@vault_option
@json_option
def query_status(vault_path: Path | None, as_json: bool) -> None:
    """How many articles and conversations, and the last run."""
    _run(vault_path, as_json, lambda r: r.status())


@query.command("search")
@vault_option
@json_option
@click.option("--limit", type=Whole("limit"), default=10, help="At most N hits.")
@click.argument("text")
def query_search(vault_path: Path | None, as_json: bool, limit: int, text: str) -> None:
    """Last resort: articles ranked by the words of TEXT (BM25), a snippet each."""
    _run(vault_path, as_json, lambda r: r.search(text, limit=limit))


@query.command("source")
@vault_option
@json_option
@page_option
@click.option("--from", "start", type=Whole("start"), default=None, help="First message.")
@click.option("--to", "end", type=Whole("end"), default=None, help="Last message.")
@click.argument("conv")
def query_source(
    vault_path: Path | None,
    as_json: bool,
    page: int,
    start: int | None,
    end: int | None,
    conv: str,
) -> None:
    """The conversation a `conv:HASH` footnote cites, message by message (redacted)."""
    _run(vault_path, as_json, lambda r: r.source(conv, start=start, end=end, page=page))


@query.command("takeoff")
@vault_option
@json_option
@click.argument("topic")
def query_takeoff(vault_path: Path | None, as_json: bool, topic: str) -> None:
    """An agent's first minute on TOPIC: lead, History, newest conversation, open
    questions, the section changed last, and the reads that go deeper."""
    _run(vault_path, as_json, lambda r: r.takeoff(topic))
