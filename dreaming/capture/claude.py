"""Claude Code: our `SessionEnd` and `PreCompact` hooks in `~/.claude/settings.json`.

Claude Code's format: `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command",
"command": "…", "timeout": N}]}], …}}`. Ours are told by their command. The file is
edited as text (`jsontext`): ours are added at the end of the object or list they go in,
written as the file writes its own, and no other byte changes; uninstall takes out
exactly what install put in. Each edit is read back before anything is written: it must
say what the old text said, plus or minus ours.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, NamedTuple

from dreaming.capture import jsontext
from dreaming.capture.hook import host_home
from dreaming.capture.hostfile import (
    Change,
    HookError,
    Installed,
    backup,
    encode,
    is_ours,
    read_text,
    replace_file,
    shell_command,
)
from dreaming.capture.jsontext import Member, Span

EVENTS = ("SessionEnd", "PreCompact")
TIMEOUT = 30
"""Seconds. Claude Code gives a SessionEnd hook 1.5 s unless it names a longer timeout;
the hook returns in milliseconds, this is room for a very large session on a slow disk."""


def default_path() -> Path:
    """`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`."""
    return host_home("claude-code") / "settings.json"


def install(path: Path, argv: list[str]) -> Change:
    text, doc = _load(path)
    handler = {"type": "command", "command": shell_command(argv), "timeout": TIMEOUT}
    ours = jsontext.loads(json.dumps(handler))
    done = f"SessionEnd and PreCompact hooks in {path}"
    if text is None:
        fresh = {"hooks": {event: [{"hooks": [handler]}] for event in EVENTS}}
        expected = {"hooks": {event: [{"hooks": [ours]}] for event in EVENTS}}
        written = json.dumps(fresh, indent=2, ensure_ascii=False) + "\n"
        return _save(path, None, written, expected, done)
    events = [event for event in EVENTS if _our_handlers(doc, event) != [ours]]
    if not events:
        return Change(path, False, f"already installed: {done}; nothing changed")
    new = text
    for event in events:
        new = _put(path, _take_out(path, new, event, keep_list=True), event, handler)
    return _save(path, text, new, _merged(doc, ours, events), done)


def uninstall(path: Path) -> Change:
    text, doc = _load(path)
    if text is None or not any(_our_handlers(doc, event) for event in EVENTS):
        return Change(path, False, f"no hook of dreaming's in {path}; nothing changed")
    new = text
    for event in EVENTS:
        new = _take_out(path, new, event, keep_list=False)
    top = jsontext.root(new)
    hooks = _one(path, new, top, "hooks")
    if hooks is not None and not jsontext.members(new, hooks.value):
        new = _remove_member(new, top, hooks)
    done = f"dreaming's SessionEnd and PreCompact hooks from {path}"
    return _save(path, text, new, _without_ours(doc), done)


def inspect(path: Path) -> Installed:
    try:
        _, doc = _load(path)
    except HookError as e:
        return Installed(path, None, problem=str(e))
    events, argv = [], None
    for event in EVENTS:
        for handler in _our_handlers(doc, event):
            events.append(event)
            try:
                argv = tuple(shlex.split(handler["command"]))
            except ValueError:
                argv = (handler["command"],)
    warning = None
    if doc.get("disableAllHooks") is True:
        warning = f"{path} sets disableAllHooks: Claude Code runs no hook, dreaming's included"
    return Installed(path, argv, tuple(dict.fromkeys(events)), warning=warning)


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text and what it says (numbers as `jsontext.Number`), refused in one
    line when Claude Code could not read it or dreaming could not edit it."""
    text = read_text(path)
    if text is None:
        return None, {}
    try:
        doc = jsontext.loads(text)
    except RecursionError:
        raise HookError(
            f"{path}: nested too deeply to be a settings file; fix it, then run again; "
            "nothing was changed"
        ) from None
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


# What the file says, as Python values: what an edit of the text must read back as.


def _ours(groups: list[Any]) -> list[tuple[int, int]]:
    """(group, handler) of each handler of ours among an event's matcher groups."""
    return [
        (g, h)
        for g, group in enumerate(groups)
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h, handler in enumerate(group["hooks"])
        if isinstance(handler, dict) and is_ours(handler.get("command"))
    ]


def _our_handlers(doc: dict[str, Any], event: str) -> list[dict[str, Any]]:
    groups = doc.get("hooks", {}).get(event, [])
    return [groups[g]["hooks"][h] for g, h in _ours(groups)]


def _drop(groups: list[Any], found: list[tuple[int, int]]) -> None:
    """Remove the handlers `found`; a group left with none goes too."""
    for g, h in reversed(found):
        del groups[g]["hooks"][h]
    for g in sorted({g for g, _ in found}, reverse=True):
        if not groups[g]["hooks"]:
            del groups[g]


def _merged(doc: dict[str, Any], ours: object, events: list[str]) -> dict[str, Any]:
    """`doc` (changed in place) with `ours` the one handler of ours in each of `events`,
    in a group of its own at the end."""
    hooks = doc.setdefault("hooks", {})
    for event in events:
        groups = hooks.setdefault(event, [])
        _drop(groups, _ours(groups))
        groups.append({"hooks": [ours]})
    return doc


def _without_ours(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` (changed in place) without our handlers, and without the groups, event
    lists and `hooks` that held only ours."""
    hooks = doc.get("hooks", {})
    for event in EVENTS:
        groups = hooks.get(event, [])
        found = _ours(groups)
        if found:
            _drop(groups, found)
            if not groups:
                del hooks[event]
    if not hooks:
        del doc["hooks"]
    return doc


# The same edits made to the text.


def _put(path: Path, text: str, event: str, handler: dict[str, object]) -> str:
    """`text` with `handler` in a group of its own, last in `event`'s list."""
    top = jsontext.root(text)
    hooks = _one(path, text, top, "hooks")
    group = {"hooks": [handler]}
    if hooks is None:
        return jsontext.add_member(text, top, "hooks", {event: [group]})
    groups = _one(path, text, hooks.value, event)
    if groups is None:
        return jsontext.add_member(text, hooks.value, event, [group])
    return jsontext.add_item(text, groups.value, group)


def _take_out(path: Path, text: str, event: str, *, keep_list: bool) -> str:
    """`text` without our handlers in `event`'s groups: a group left with none goes too,
    and (unless `keep_list`: ours comes back into it) the event's list left empty."""
    found = False
    while True:
        top = jsontext.root(text)
        hooks = _one(path, text, top, "hooks")
        groups = None if hooks is None else _one(path, text, hooks.value, event)
        if hooks is None or groups is None:
            return text
        spans = jsontext.items(text, groups.value)
        hit = _first_ours(path, text, spans)
        if hit is None:
            if found and not spans and not keep_list:
                text = _remove_member(text, hooks.value, groups)
            return text
        found = True
        g, handlers, h = hit
        if len(handlers.spans) == 1:
            text = jsontext.remove(text, groups.value, spans, g)
        else:
            text = jsontext.remove(text, handlers.box, handlers.spans, h)


class _Handlers(NamedTuple):
    box: Span
    """A group's `hooks` list."""
    spans: list[Span]


def _first_ours(path: Path, text: str, groups: list[Span]) -> tuple[int, _Handlers, int] | None:
    """(group, its handlers, handler) of the first handler of ours among `groups`."""
    for g, group in enumerate(groups):
        if text[group.start] != "{":
            continue
        inner = _one(path, text, group, "hooks")
        if inner is None or text[inner.value.start] != "[":
            continue
        handlers = jsontext.items(text, inner.value)
        for h, handler in enumerate(handlers):
            value = jsontext.value_of(text, handler)
            if isinstance(value, dict) and is_ours(value.get("command")):
                return g, _Handlers(inner.value, handlers), h
    return None


def _one(path: Path, text: str, obj: Span, key: str) -> Member | None:
    """The member `key` of the object `obj`; a key that appears twice is refused, since
    which of them an edit would change is not for dreaming to guess."""
    found = [m for m in jsontext.members(text, obj) if m.key == key]
    if len(found) > 1:
        raise HookError(
            f"{path}: {json.dumps(key)} twice in one object; Claude Code reads only the "
            "last: keep one, then run again; nothing was changed"
        )
    return found[0] if found else None


def _remove_member(text: str, obj: Span, member: Member) -> str:
    found = jsontext.members(text, obj)
    return jsontext.remove(text, obj, [m.span for m in found], found.index(member))


def _save(path: Path, text: str | None, new: str, expected: object, done: str) -> Change:
    """Write `new` (after a backup) once it is UTF-8 and reads back as `expected`."""
    data = encode(path, new)
    try:
        same = jsontext.loads(new) == expected
    except (ValueError, RecursionError):
        same = False
    if not same:
        raise HookError(
            f"{path}: dreaming could not place its hooks without changing what else the "
            "file says; add them by hand (see docs/capture.md); nothing was changed"
        )
    saved = backup(path) if text is not None else None
    replace_file(path, data, text)
    return Change(path, True, done, saved)
