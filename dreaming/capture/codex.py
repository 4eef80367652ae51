"""Codex: our `notify` program in `$CODEX_HOME/config.toml` (default `~/.codex`).

Codex runs the `notify` program after every turn with a JSON argument (`type:
"agent-turn-complete"`, `thread-id`, `cwd`, …); the thread id names the session's rollout
file. There is one `notify` and no TOML writer here, so the file is edited as text, as
little as possible: one line of ours (and a comment above it) at the top, where a root
key must stand. A `notify` that is not ours is refused, never replaced, and every edit is
checked by reading the new text back: it must hold exactly what the old one did, plus or
minus our `notify`.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

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
)

COMMENT = "# dreaming: each Codex session into the vault's Raw/ (dreaming hook uninstall codex)"
_KEY = re.compile(r"^[ \t]*notify[ \t]*=")
_TABLE = re.compile(r"^[ \t]*\[")


def default_path() -> Path:
    return host_home("codex") / "config.toml"


def install(path: Path, argv: list[str]) -> Change:
    text = read_text(path)
    doc = _parse(path, text or "")
    current = doc.get("notify")
    if current == argv:
        return Change(path, False, f"already installed: notify in {path}; nothing changed")
    line = notify_line(argv)
    if current is None:
        # Our lines end as the file's first line does.
        first = (text or "").partition("\n")[0]
        newline = "\r\n" if first.endswith("\r") else "\n"
        new = f"{COMMENT}{newline}{line}{newline}" + (text or "")
    elif _ours(current):
        at = _our_line(path, text or "", current)
        lines = (text or "").splitlines(keepends=True)
        lines[at] = line + lines[at][len(lines[at].rstrip("\r\n")) :]
        new = "".join(lines)
    else:
        raise HookError(
            f"{path}: already has notify = {current!r}, which is not dreaming's; Codex runs "
            "only one notify program: remove that line (or call dreaming's hook from your "
            "program), then run again; nothing was changed"
        )
    data = _check(path, new, {**doc, "notify": argv})
    saved = backup(path) if text is not None else None
    replace_file(path, data, text)
    return Change(path, True, f"notify in {path}", saved)


def uninstall(path: Path) -> Change:
    text = read_text(path)
    doc = _parse(path, text or "")
    current = doc.get("notify")
    if text is None or current is None or not _ours(current):
        return Change(path, False, f"no notify of dreaming's in {path}; nothing changed")
    at = _our_line(path, text, current)
    lines = text.splitlines(keepends=True)
    del lines[at]
    if at > 0 and lines[at - 1].rstrip("\r\n") == COMMENT:
        del lines[at - 1]
    new = "".join(lines)
    data = _check(path, new, {k: v for k, v in doc.items() if k != "notify"})
    saved = backup(path)
    replace_file(path, data, text)
    return Change(path, True, f"dreaming's notify from {path}", saved)


def inspect(path: Path) -> Installed:
    try:
        doc = _parse(path, read_text(path) or "")
    except HookError as e:
        return Installed(path, None, problem=str(e))
    current = doc.get("notify")
    if current is None or not _ours(current):
        return Installed(path, None)
    return Installed(path, tuple(str(a) for a in current), ("notify",))


def _ours(value: object) -> bool:
    return isinstance(value, list) and any(is_ours(a) for a in value)


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HookError(
            f"{path}: not valid TOML ({e}); fix it, then run again; nothing was changed"
        ) from None
    except RecursionError:
        raise HookError(
            f"{path}: nested too deeply to be a settings file; fix it, then run again; "
            "nothing was changed"
        ) from None


def _our_line(path: Path, text: str, current: object) -> int:
    """The index of the one line among the root keys that holds our whole `notify`."""
    found = []
    for i, line in enumerate(text.splitlines()):
        if _TABLE.match(line):
            break
        if _KEY.match(line):
            found.append(i)
    if len(found) == 1:
        line = text.splitlines()[found[0]]
        try:
            if tomllib.loads(line).get("notify") == current:
                return found[0]
        except tomllib.TOMLDecodeError:
            pass
    raise HookError(
        f"{path}: dreaming's notify is not on one line of its own; remove it by hand "
        "(the notify = [...] line naming dreaming/capture/hook.py), then run again; "
        "nothing was changed"
    )


def _check(path: Path, new: str, expected: dict[str, Any]) -> bytes:
    """The edited text as UTF-8, once it reads back as exactly what was meant; else
    nothing is written."""
    data = encode(path, new)
    try:
        ok = tomllib.loads(new) == expected
    except (tomllib.TOMLDecodeError, RecursionError):
        ok = False
    if not ok:
        raise HookError(
            f"{path}: dreaming could not place its notify line without changing what else "
            "the file says; add it by hand (dreaming hook status codex shows the line); "
            "nothing was changed"
        )
    return data


def notify_line(argv: list[str]) -> str:
    """`notify = [...]` in TOML: a JSON string is a TOML basic string."""
    return "notify = [" + ", ".join(json.dumps(a, ensure_ascii=False) for a in argv) + "]"
