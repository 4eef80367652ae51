"""A vault's first run: the history found on this machine, offered once.

`dreaming init` (and so `scripts/up.py`) says which Claude Code, Codex and pi session
folders and ChatGPT exports it found, with their sessions, size and dates. In a
terminal it asks two questions, each defaulting to yes: import that history now, and
capture new sessions as they end (the hooks). Without a terminal it prints the commands
instead and does nothing. The answers are kept in `.dreaming/first_run.json`: a "no" is
never asked again on that vault, and an import stopped half-way (Ctrl-C, a closed
terminal) is taken up again by the next run without asking.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dreaming.errors import DreamingError
from dreaming.importing.discover import Found, discover
from dreaming.vault.checksums import current_checksum
from dreaming.vault.writes import write_atomic
from watcher.app import App
from watcher.console import day, err, out, shown, sized

if TYPE_CHECKING:
    from dreaming.importing import ImportReport

ANSWERS = "first_run.json"
Ask = Callable[[str], bool]
"""A yes/no question put to the person (None: no terminal, nobody to ask)."""

_IMPORT, _HOOK = "import", "hook"
_STARTED, _DONE, _NO = "started", "done", "no"


def offer_history(app: App, ask: Ask | None) -> None:
    answers = _load(app.vault.state / ANSWERS)
    if answers.get(_IMPORT) in (_NO, _DONE) and answers.get(_HOOK) is not None:
        return
    found = discover()
    if not found:
        out.print(
            "no Claude Code, Codex or pi history or ChatGPT export found on this machine; "
            f"drop transcripts into {shown(app.vault.raw)} or see dreaming import --help",
            markup=False,
        )
        return
    for f in found:
        out.print(_said(f), markup=False)
    _offer_import(app, answers, found, ask)
    _offer_hooks(app, answers, [f.source.kind for f in found if f.source.kind != "chatgpt"], ask)


def _vault(app: App) -> str:
    """The vault as a command line names it."""
    return shlex.quote(shown(app.vault.root))


def _offer_import(app: App, answers: dict[str, str], found: list[Found], ask: Ask | None) -> None:
    state = answers.get(_IMPORT)
    if state in (_NO, _DONE):
        return
    specs = " ".join(shlex.quote(f.source.spec) for f in found)
    command = f"dreaming import {specs} --vault {_vault(app)}"
    if ask is None:
        out.print(f"to bring it in: {command}", markup=False)
        return
    if state == _STARTED:
        out.print("taking up the import stopped last time", markup=False)
    elif not ask("Import this history into the vault now?"):
        _save(app, answers, _IMPORT, _NO)
        out.print(f"not imported; any time: {command}", markup=False)
        return
    _save(app, answers, _IMPORT, _STARTED)
    report = _import(app, found)
    if not report.interrupted:
        _save(app, answers, _IMPORT, _DONE)
    from watcher.cmd_import import end

    end(report, dry_run=False)


def _import(app: App, found: list[Found]) -> ImportReport:
    from dreaming.importing import plan
    from watcher.cmd_import import bring_in

    limit = app.settings.max_raw_file_mb * 1024 * 1024
    plans = []
    for f in found:
        try:
            plans.append(plan(f.source, app.vault.root))
        except DreamingError as e:
            err.print(f"dreaming: {shown(str(e))}", markup=False)
    return bring_in(app, plans, None, limit, ingest=True)


def _offer_hooks(app: App, answers: dict[str, str], hosts: list[str], ask: Ask | None) -> None:
    from dreaming.capture.hostfile import vault_in
    from dreaming.capture.hosts import HOSTS

    if answers.get(_HOOK) is not None:
        return
    wanted = [
        h for h in hosts if vault_in(HOSTS[h].inspect(HOSTS[h].default_path()).argv or ()) is None
    ]
    if not wanted:
        return
    commands = [f"dreaming hook install {h} --vault {_vault(app)}" for h in wanted]
    if ask is None:
        out.print(f"to capture new sessions as they end: {' && '.join(commands)}", markup=False)
        return
    names = " and ".join(_NAMES[h] for h in wanted)
    if not ask(f"Capture new {names} sessions into the vault as they end (a hook each)?"):
        _save(app, answers, _HOOK, _NO)
        out.print(f"no hooks installed; any time: {' && '.join(commands)}", markup=False)
        return
    for h in wanted:
        change = HOSTS[h].install(HOSTS[h].default_path(), app.vault.root)
        out.print(f"{h}: hook installed in {shown(change.path)}", markup=False)
    _save(app, answers, _HOOK, "yes")


_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "pi": "pi"}


def _said(f: Found) -> str:
    where = shown(f.source.path)
    if f.sessions is None:
        return f"found a ChatGPT export: {where}, {sized(f.size)}, saved {_day(f.last)}"
    count = f"more than {f.sessions:,}" if f.more else f"{f.sessions:,}"
    sessions = "session" if f.sessions == 1 and not f.more else "sessions"
    line = f"found {_NAMES[f.source.kind]} history: {count} {sessions} in {where}, {sized(f.size)}"
    if f.first is not None and f.last is not None:
        line += f", {_day(f.first)} → {_day(f.last)}"
    if f.problem:
        line += f" (not all of it could be looked at: {shown(f.problem)})"
    return line


def _day(t: float | None) -> str:
    return day(t) if t is not None else "?"


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # never answered, or unreadable: asking again is the safe side
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _save(app: App, answers: dict[str, str], question: str, answer: str) -> None:
    answers[question] = answer
    path = app.vault.state / ANSWERS
    text = json.dumps(answers, indent=2, sort_keys=True) + "\n"
    write_atomic(path, text, expected=current_checksum(path), registry=None, vault=app.vault)
