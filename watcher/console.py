"""What every `dreaming` command shares: the consoles, safe display of untrusted text,
the --vault option and the command's app.

Command groups live in their own modules (`watcher/cmd_*.py`) and import these from
here, never from `watcher.cli`, which imports them to register their commands.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import click
from rich.console import Console

from watcher.app import App

# soft_wrap: an error is one line a person can grep, however narrow the terminal.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


# Terminal controls, bidi overrides, line breaks: a file name may hold any of them.
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def shown(text: object) -> str:
    """`text` safe for a terminal and one line: unprintable characters as escapes."""
    return "".join(ascii(c)[1:-1] if unicodedata.category(c) in _UNSHOWN else c for c in str(text))


def command_app(vault_path: Path | None) -> App:
    """The command's app: built on first use, kept in the click context, closed with it."""
    ctx = click.get_current_context()
    if not isinstance(ctx.obj, App):
        ctx.obj = ctx.with_resource(
            App.open(vault_path, command=_command(ctx), notice=_said_on_stderr)
        )
    return ctx.obj


def _command(ctx: click.Context) -> str:
    """`dreaming ingest`, however the program was started (a night child runs
    `python -m watcher.cli`)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["dreaming", *reversed(names)])


def _said_on_stderr(line: str) -> None:
    err.print(f"dreaming: {shown(line)}", markup=False)


vault_option = click.option(
    "--vault",
    "vault_path",
    type=click.Path(path_type=Path),
    default=None,
    help="The vault folder (default: $DREAMING_VAULT, else the current folder).",
)


def counted(n: int, noun: str) -> str:
    """`1 conversation`, `2 conversations`: the nouns in our lines take a plain -s."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def sized(n: int) -> str:
    """`491.4 MB`: a byte count as a person reads it."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def day(t: float) -> str:
    """`2026-03-14`: a moment's local date."""
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d")


FileProgress = Callable[[int, int, str], None]
"""(files done, files in all, the file at hand): what file-by-file work reports."""


@contextlib.contextmanager
def file_bar(label: str) -> Iterator[FileProgress | None]:
    """A transient bar for file-by-file work on a terminal (files done of all, the file
    at hand); None where the output is no terminal, so a log gets no bar."""
    if not out.is_terminal:
        yield None
        return
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=out, transient=True) as bar:
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, rel: str) -> None:
            bar.update(task, completed=done, total=total, description=escape(shown(rel)[-60:]))

        yield progress
