"""Claude Code: our `SessionEnd` and `PreCompact` hooks in `~/.claude/settings.json`.

Claude Code's format: `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command",
"command": "…", "timeout": N}]}], …}}`. Ours are told by their command; everything else
in the file (the person's hooks, matchers, other settings) stays as it was, the JSON
written back with the file's own indent.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from dreaming.capture.hook import host_home
from dreaming.capture.hostfile import (
    Change,
    HookError,
    Installed,
    backup,
    is_ours,
    read_text,
    replace_text,
    shell_command,
)

EVENTS = ("SessionEnd", "PreCompact")
TIMEOUT = 30
"""Seconds. Claude Code gives a SessionEnd hook 1.5 s unless it names a longer timeout;
the hook returns in milliseconds, this is room for a very large session on a slow disk."""


def default_path() -> Path:
    """`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`."""
    return host_home("claude-code") / "settings.json"


def install(path: Path, argv: list[str]) -> Change:
    text, doc = _load(path)
    ours = {"type": "command", "command": shell_command(argv), "timeout": TIMEOUT}
    hooks = doc.setdefault("hooks", {})
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        found = list(_ours(groups))
        if len(found) == 1 and groups[found[0][0]]["hooks"][found[0][1]] == ours:
            continue
        _drop(groups, found)
        groups.append({"hooks": [ours]})
    return _save(path, text, doc, f"SessionEnd and PreCompact hooks in {path}")


def uninstall(path: Path) -> Change:
    text, doc = _load(path)
    hooks = doc.get("hooks", {})
    removed = False
    for event in EVENTS:
        groups = hooks.get(event, [])
        found = list(_ours(groups))
        if found:
            removed = True
            _drop(groups, found)
            if not groups:
                del hooks[event]
    if not removed:
        return Change(path, False, f"no hook of dreaming's in {path}; nothing changed")
    if not hooks:
        del doc["hooks"]
    return _save(path, text, doc, f"dreaming's SessionEnd and PreCompact hooks from {path}")


def inspect(path: Path) -> Installed:
    try:
        _, doc = _load(path)
    except HookError as e:
        return Installed(path, None, problem=str(e))
    events, argv = [], None
    for event in EVENTS:
        groups = doc.get("hooks", {}).get(event, [])
        for g, h in _ours(groups):
            events.append(event)
            try:
                argv = tuple(shlex.split(groups[g]["hooks"][h]["command"]))
            except ValueError:
                argv = (groups[g]["hooks"][h]["command"],)
    warning = None
    if doc.get("disableAllHooks") is True:
        warning = f"{path} sets disableAllHooks: Claude Code runs no hook, dreaming's included"
    return Installed(path, argv, tuple(dict.fromkeys(events)), warning=warning)


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    text = read_text(path)
    if text is None:
        return None, {}
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise HookError(
            f"{path}: not valid JSON ({e}); fix it or move it away, then run again; "
            "nothing was changed"
        ) from None
    if not isinstance(doc, dict):
        raise HookError(f"{path}: not a JSON object; fix it, then run again; nothing was changed")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or any(
        not isinstance(hooks.get(event, []), list) for event in EVENTS
    ):
        raise HookError(
            f'{path}: its "hooks" are not in Claude Code\'s shape (an object of lists); '
            "fix them, then run again; nothing was changed"
        )
    return text, doc


def _ours(groups: list[Any]) -> list[tuple[int, int]]:
    """(group, handler) of each handler of ours among an event's matcher groups."""
    return [
        (g, h)
        for g, group in enumerate(groups)
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h, handler in enumerate(group["hooks"])
        if isinstance(handler, dict) and is_ours(handler.get("command"))
    ]


def _drop(groups: list[Any], found: list[tuple[int, int]]) -> None:
    """Remove the handlers `found`; a group left with none goes too."""
    for g, h in reversed(found):
        del groups[g]["hooks"][h]
    for g in sorted({g for g, _ in found}, reverse=True):
        if not groups[g]["hooks"]:
            del groups[g]


def _indent(text: str | None) -> str:
    found = re.search(r"^\{[ \t]*\r?\n([ \t]+)\S", text or "")
    return found.group(1) if found else "  "


def _save(path: Path, text: str | None, doc: dict[str, Any], done: str) -> Change:
    new = json.dumps(doc, indent=_indent(text), ensure_ascii=False)
    if text is None or text.endswith("\n"):
        new += "\n"
    if text is not None and json.loads(text) == doc:
        return Change(path, False, f"already installed: {done}; nothing changed")
    saved = backup(path) if text is not None else None
    replace_text(path, new, text)
    return Change(path, True, done, saved)
