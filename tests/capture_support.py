"""The capture hook as a host runs it: a real process, a real payload, a scratch HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from dreaming.capture.hostfile import hook_argv, shell_command

FIXTURE = Path(__file__).parent / "fixtures" / "raw" / "claude-code"
SESSION = "7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b"
PROJECT = "-home-ada-src-dreaming"


@dataclass(frozen=True)
class Fired:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def host_env(home: Path, **extra: str) -> dict[str, str]:
    """A host's environment with HOME elsewhere and no state folder of the developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CODEX_", "CLAUDE_"))}
    env["HOME"] = str(home)
    env.update(extra)
    return env


def fire_claude(vault: Path, payload: object, home: Path, timeout: float = 30, **env: str) -> Fired:
    """The hook as Claude Code runs it: the settings' command string through a shell,
    the payload's JSON on stdin."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    argv = ["sh", "-c", shell_command(hook_argv("claude-code", vault))]
    return _run(argv, data, home, timeout, **env)


def fire_argv(host: str, vault: Path, argument: str, home: Path, **env: str) -> Fired:
    """The hook as Codex or pi runs it: an argv, the payload's JSON as the last argument."""
    return _run([*hook_argv(host, vault), argument], None, home, 30, **env)


def _run(argv: list[str], stdin: bytes | None, home: Path, timeout: float, **env: str) -> Fired:
    start = time.perf_counter()
    done = subprocess.run(
        argv,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=host_env(home, **env),
        timeout=timeout,
    )
    took = time.perf_counter() - start
    return Fired(done.returncode, done.stdout.decode(), done.stderr.decode(), took)


def claude_projects(home: Path) -> Path:
    """`~/.claude/projects/<project>/` holding the fixture session and its subagent."""
    folder = home / ".claude" / "projects" / PROJECT
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE / f"{SESSION}.jsonl", folder)
    shutil.copytree(FIXTURE / SESSION, folder / SESSION)
    return folder


def session_end(transcript: Path, event: str = "SessionEnd") -> dict[str, str]:
    """Claude Code's hook payload for `transcript`."""
    return {
        "session_id": transcript.name.removesuffix(".jsonl"),
        "transcript_path": str(transcript),
        "cwd": "/home/ada/src/dreaming",
        "hook_event_name": event,
        "reason": "prompt_input_exit" if event == "SessionEnd" else "",
        "trigger": "auto" if event == "PreCompact" else "",
    }


def hook_log(vault: Path) -> list[str]:
    path = vault / ".dreaming" / "logs" / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
