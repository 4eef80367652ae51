"""pi: a small extension of ours, `~/.pi/agent/extensions/dreaming-capture.ts`.

pi loads every `*.ts` in its extensions folder at start. Ours listens for
`session_shutdown` (quit, /new, /resume, /fork) and `session_before_compact`, and starts
the hook with the session file (`ctx.sessionManager.getSessionFile()`) without waiting
for it. The file is ours alone: install writes it, uninstall deletes it. It is plain
JavaScript (no type annotations, no import of pi's package, whose name changed between
releases), so any pi that loads extensions loads it, and node can run it in a test.
"""

from __future__ import annotations

import json
from pathlib import Path

from dreaming.capture.hook import host_home
from dreaming.capture.hostfile import (
    Change,
    HookError,
    Installed,
    encode,
    is_ours,
    read_text,
    remove_file,
    replace_file,
)

NAME = "dreaming-capture.ts"
EVENTS = ("session_shutdown", "session_before_compact")

_TEMPLATE = """\
// dreaming: each pi session into the vault's Raw/. Written by `dreaming hook install pi`;
// `dreaming hook uninstall pi` removes it. The hook is started and never waited for.
import { spawn } from "node:child_process";

const COMMAND = __COMMAND__;

function capture(event, ctx) {
  try {
    const sessions = ctx && ctx.sessionManager;
    const file = sessions && sessions.getSessionFile ? sessions.getSessionFile() : undefined;
    if (!file) return;
    const payload = JSON.stringify({ hook_event_name: event, transcript_path: file, cwd: ctx.cwd });
    const child = spawn(COMMAND[0], [...COMMAND.slice(1), payload], {
      stdio: "ignore",
      detached: true,
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    // pi must never fail because of dreaming.
  }
}

export default function (pi) {
  pi.on("session_shutdown", async (_event, ctx) => {
    capture("session_shutdown", ctx);
  });
  pi.on("session_before_compact", async (_event, ctx) => {
    capture("session_before_compact", ctx);
  });
}
"""


def default_path() -> Path:
    """`$PI_CODING_AGENT_DIR/extensions/…`, else `~/.pi/agent/extensions/dreaming-capture.ts`."""
    return host_home("pi") / "extensions" / NAME


def render(argv: list[str]) -> str:
    return _TEMPLATE.replace("__COMMAND__", json.dumps(argv, ensure_ascii=False))


def install(path: Path, argv: list[str]) -> Change:
    text = read_text(path)
    new = render(argv)
    if text == new:
        return Change(path, False, f"already installed: {path}; nothing changed")
    if text is not None and not is_ours(text):
        raise HookError(
            f"{path}: a file of that name that is not dreaming's; move it away, then run "
            "again; nothing was changed"
        )
    replace_file(path, encode(path, new), text)
    return Change(path, True, f"the pi extension {path}")


def uninstall(path: Path) -> Change:
    text = read_text(path)
    if text is None or not is_ours(text):
        return Change(path, False, f"no extension of dreaming's at {path}; nothing changed")
    remove_file(path, text)
    return Change(path, True, str(path))


def inspect(path: Path) -> Installed:
    try:
        text = read_text(path)
    except HookError as e:
        return Installed(path, None, problem=str(e))
    if text is None or not is_ours(text):
        return Installed(path, None)
    for line in text.splitlines():
        if line.startswith("const COMMAND = "):
            try:
                argv = json.loads(line.removeprefix("const COMMAND = ").rstrip(";"))
            except ValueError:
                break
            return Installed(path, tuple(str(a) for a in argv), EVENTS)
    return Installed(path, None, problem=f"{path}: dreaming's, but its command cannot be read")
