"""Histories to import, written in the hosts' real shapes: a scratch $HOME with Claude
Code projects, Codex rollouts and pi sessions, and ChatGPT exports; and the CLI run as a
child process the way a person runs it."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def session_id(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


def claude_session(sid: str, turns: int = 2, *, first: int = 0) -> str:
    """A Claude Code session log: `turns` user/assistant exchanges from exchange `first`."""
    lines = []
    for i in range(first, first + turns):
        at = f"2025-05-01T10:{i // 60:02d}:{i % 60:02d}.000Z"
        lines.append(
            {
                "type": "user",
                "sessionId": sid,
                "uuid": f"{sid}-u{i}",
                "timestamp": at,
                "cwd": "/home/ada/src/bread",
                "message": {"role": "user", "content": f"Question {i} of session {sid}?"},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "sessionId": sid,
                "uuid": f"{sid}-a{i}",
                "timestamp": at,
                "message": {
                    "role": "assistant",
                    "id": f"msg-{sid}-{i}",
                    "content": [{"type": "text", "text": f"Answer {i} for {sid}."}],
                },
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


def claude_projects(home: Path, sessions: dict[str, int]) -> dict[str, Path]:
    """`~/.claude/projects/<project>/<session>.jsonl` for `sessions` (project → how many);
    returns each file by its path relative to the projects folder."""
    root = home / ".claude" / "projects"
    made: dict[str, Path] = {}
    n = 0
    for project, count in sessions.items():
        for _ in range(count):
            n += 1
            path = root / project / f"{session_id(n)}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(claude_session(session_id(n)), encoding="utf-8")
            made[path.relative_to(root).as_posix()] = path
    return made


def chatgpt_conversation(n: int, created: float, turns: int = 1) -> dict[str, Any]:
    """One conversation of a ChatGPT export: a `mapping` tree, `current_node` its leaf."""
    cid = session_id(n)
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None}}
    parent = "root"
    for i in range(turns):
        for role, text in (("user", f"Chat {n} question {i}?"), ("assistant", f"Reply {i}.")):
            node = f"{role}-{i}"
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": role},
                    "create_time": created + i,
                    "content": {"content_type": "text", "parts": [text]},
                },
            }
            mapping[parent].setdefault("children", []).append(node)
            parent = node
    return {
        "title": f"Chat {n}",
        "create_time": created,
        "update_time": created + turns,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": cid,
        "id": cid,
    }


def chatgpt_zip(path: Path, conversations: list[dict[str, Any]], **extra: bytes) -> Path:
    """A ChatGPT data export zip: conversations.json (pretty-printed, as exported) and
    `extra` members (name → bytes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", json.dumps(conversations, indent=2))
        z.writestr("chat.html", "<html></html>")
        for name, data in extra.items():
            z.writestr(name, data)
    return path


def damaged_zip(path: Path, data: bytes, good: int, tail: bytes) -> Path:
    """A zip whose conversations.json (`data`, as its declared size says) has a deflate
    stream that holds only `data[:good]` and then `tail`: b"" a stream cut short, a byte
    that begins no valid block a corrupt one."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = squeeze.compress(data[:good]) + squeeze.flush(zlib.Z_SYNC_FLUSH) + tail
    name = b"conversations.json"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(name.decode(), b"\0" * len(stream))
    raw = bytearray(path.read_bytes())
    # The stored member's bytes follow its 30-byte local header and its name; the same
    # fields (method, uncompressed size) sit at other offsets in the central directory.
    raw[30 + len(name) : 30 + len(name) + len(stream)] = stream
    central = raw.rindex(b"PK\x01\x02")
    for method_at, size_at in ((8, 22), (central + 10, central + 24)):
        struct.pack_into("<H", raw, method_at, zipfile.ZIP_DEFLATED)
        struct.pack_into("<I", raw, size_at, len(data))
    path.write_bytes(bytes(raw))
    return path


def raw_files(vault_root: Path) -> dict[str, bytes]:
    """Every file under the vault's Raw/ but its guide and its .gitignore, by path
    relative to Raw/."""
    raw = vault_root / "Raw"
    return {
        p.relative_to(raw).as_posix(): p.read_bytes()
        for p in sorted(raw.rglob("*"))
        if p.is_file() and p.relative_to(raw).as_posix() not in {"README.md", ".gitignore"}
    }


def child_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DREAMING_")}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        env.pop(name, None)
    return {**env, "HOME": str(home), "PYTHONPATH": str(ROOT)}


def dreaming(home: Path, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """`dreaming ARGS` as a person runs it, with $HOME at `home`."""
    return subprocess.run(
        [sys.executable, "-m", "watcher.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(home),
        timeout=timeout,
    )


def slow_import(home: Path, delay: float, *args: str) -> subprocess.Popen[str]:
    """`dreaming import ARGS` whose every copy pauses `delay` s halfway (tests/import_child.py),
    so a test can stop or kill it mid-way, inside a copy included."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.import_child", str(delay), "import", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=child_env(home),
    )
