"""Peak memory reading one big transcript of each format: a file of `--mb` megabytes
(default 400, under the default 512 MB limit) read by `read_transcript` in a fresh
process; its peak RSS printed against the file's size, and how long the read took (and
so would take at 512 MB). Goal: under 1 GB for every format at the default limit, and
no more than twice the file's size; the read well under `raw_read_timeout_s`.

    python bench/bench_read_memory.py [--mb 400] [--formats markdown,chatgpt]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402

MESSAGE = "We should index the vault nightly and keep every word the person wrote. " * 20


def markdown(f: object, size: int) -> tuple[None, str]:
    _turns(f, size, "# User\n\n{}\n\n# Assistant\n\n{}\n\n")
    return None, "chat.md"


def canonical(f: object, size: int) -> tuple[None, str]:
    _turns(f, size, "## user\n\n{}\n\n## assistant\n\n{}\n\n")
    return None, "chat.md"


def _turns(f: object, size: int, turn: str) -> None:
    block = turn.format(MESSAGE, MESSAGE) * 100
    written = 0
    while written < size:
        f.write(block)  # type: ignore[attr-defined]
        written += len(block)


def chatgpt(f: object, size: int) -> tuple[None, str]:
    f.write("[")  # type: ignore[attr-defined]
    written, k = 0, 0
    while written < size:
        mapping: dict[str, dict[str, object]] = {
            "r": {"id": "r", "message": None, "parent": None, "children": ["m0"]}
        }
        for i in range(40):
            mapping[f"m{i}"] = {
                "id": f"m{i}",
                "parent": "r" if i == 0 else f"m{i - 1}",
                "children": [f"m{i + 1}"] if i < 39 else [],
                "message": {
                    "id": f"m{i}",
                    "author": {"role": "user" if i % 2 == 0 else "assistant"},
                    "create_time": 1.7e9 + i,
                    "content": {"content_type": "text", "parts": [MESSAGE]},
                },
            }
        conv = {"title": f"c{k}", "id": f"c{k}", "create_time": 1.7e9, "mapping": mapping}
        text = ("," if k else "") + json.dumps(conv | {"current_node": "m39"})
        f.write(text)  # type: ignore[attr-defined]
        written += len(text)
        k += 1
    f.write("]")  # type: ignore[attr-defined]
    return None, "conversations.json"


def claude_code(f: object, size: int) -> tuple[None, str]:
    written, i = 0, 0
    while written < size:
        role = "user" if i % 2 == 0 else "assistant"
        content = MESSAGE if role == "user" else [{"type": "text", "text": MESSAGE}]
        record = {
            "type": role,
            "sessionId": "7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b",
            "uuid": f"00000000-0000-4000-8000-{i:012d}",
            "parentUuid": None if i == 0 else f"00000000-0000-4000-8000-{i - 1:012d}",
            "timestamp": "2025-03-14T09:12:40.000Z",
            "message": {"role": role, "content": content},
        }
        line = json.dumps(record) + "\n"
        f.write(line)  # type: ignore[attr-defined]
        written += len(line)
        i += 1
    return None, "session.jsonl"


def aider(f: object, size: int) -> tuple[None, str]:
    f.write("# aider chat started at 2025-03-14 09:12:45\n\n")  # type: ignore[attr-defined]
    _turns(f, size, "#### {}\n\n{}\n\n")
    return None, "project.aider.chat.history.md"


def cortexes(f: object, size: int) -> tuple[None, str]:
    f.write("---\ntype: session\nrepo: dreaming\n---\n\n")  # type: ignore[attr-defined]
    _turns(f, size, "### user\n{}\n\n### claude\n{}\n\n")
    return None, "251201_session_notes.md"


def _jsonl(f: object, size: int, head: dict[str, object], record: Callable[[int], object]) -> None:
    f.write(json.dumps(head) + "\n")  # type: ignore[attr-defined]
    written, i = 0, 0
    while written < size:
        line = json.dumps(record(i)) + "\n"
        f.write(line)  # type: ignore[attr-defined]
        written += len(line)
        i += 1


def codex(f: object, size: int) -> tuple[None, str]:
    def record(i: int) -> object:
        role, kind = ("user", "input_text") if i % 2 == 0 else ("assistant", "output_text")
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": MESSAGE}]}
        return {
            "timestamp": "2025-12-28T12:18:30.000Z",
            "type": "response_item",
            "payload": payload,
        }

    meta = {"id": "019b64e5-0000-7000-8000-000000000000", "cwd": "/home/ada/src/dreaming"}
    head: dict[str, object] = {
        "timestamp": "2025-12-28T12:18:30.000Z",
        "type": "session_meta",
        "payload": meta,
    }
    _jsonl(f, size, head, record)
    return None, "rollout-2025-12-28T12-18-30-019b64e5.jsonl"


def pi(f: object, size: int) -> tuple[None, str]:
    def record(i: int) -> object:
        role = "user" if i % 2 == 0 else "assistant"
        message = {"role": role, "content": [{"type": "text", "text": MESSAGE}], "timestamp": 0}
        parent = None if i == 0 else f"m{i - 1}"
        return {"type": "message", "timestamp": "2026-01-10T09:00:01.000Z", "message": message,
                "id": f"m{i}", "parentId": parent}  # fmt: skip

    head = {"type": "session", "version": 3, "id": "f0e1d2c3-b4a5-4968-8776-655443322110",
            "timestamp": "2026-01-10T09:00:00.000Z", "cwd": "/home/ada/src/dreaming"}  # fmt: skip
    _jsonl(f, size, head, record)
    return None, "session.jsonl"


FORMATS: dict[str, Callable[[object, int], object]] = {
    "markdown": markdown,
    "canonical": canonical,
    "aider": aider,
    "cortexes": cortexes,
    "chatgpt": chatgpt,
    "claude-code": claude_code,
    "codex": codex,
    "pi": pi,
}

_CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
from dreaming.raw import read_transcript
started = time.perf_counter()
try:
    r = read_transcript(__import__("pathlib").Path({path!r}), max_bytes={cap})
    said = f"{{len(r.conversations)}} conversations ({{r.source}})"
except Exception as e:
    said = f"refused: {{e}}"
took = time.perf_counter() - started
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, f"{{took:.1f}}", said)
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=400)
    parser.add_argument("--cap-mb", type=int, default=512)
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    size = args.mb * 1024 * 1024
    for name in args.formats.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "file"
            with path.open("w", encoding="utf-8") as f:
                named = FORMATS[name](f, size)
            real = Path(tmp) / (named[1] if isinstance(named, tuple) else "chat.md")
            path.rename(real)
            mb = real.stat().st_size / 2**20
            code = _CHILD.format(root=str(ROOT), path=str(real), cap=args.cap_mb * 2**20)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name:12} {mb:6.0f} MB file: failed: {out.stderr.strip()[-200:]}")
                continue
            rss_kb, took, said = out.stdout.strip().split(" ", 2)
            rss = int(rss_kb) / 1024
            verdict = "ok" if rss < 1024 and rss <= 2 * mb + 100 else "OVER"
            peak = f"peak RSS {rss:6.0f} MB ({rss / mb:.1f}x) {verdict}"
            # The per-file read limit (raw_read_timeout_s) must stay well above this.
            pace = f"read in {took} s ({float(took) / mb * 512:.0f} s at 512 MB)"
            print(f"{name:12} {mb:6.0f} MB file: {peak}; {pace}; {said[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
