"""The capture hook: the command a host runs when a session ends or is about to be compacted.

    python -I -S /path/to/dreaming/capture/hook.py HOST VAULT [PAYLOAD]

It is run by path with the standard library alone (no `site`, no third-party module, no
other file of dreaming), so it starts in about 35 ms. It copies the session the host names
into the vault's Raw/ tree and always exits 0: whatever goes wrong (no vault, no
transcript, a full disk, a payload that is not JSON) is one line in
`<vault>/.dreaming/logs/hooks.log`, or in the user's state folder when the vault is gone,
and never an error the host shows or waits on. Nothing here waits on a lock.

It reads only the host's own session files: a path the payload names is resolved (links
and `..` followed) and must lead to a regular file under the host's session folder
(`sessions_home`), and never into the vault; anything else is one line in the log. Every
read is bounded: a transcript is copied in blocks, a subagent's sidecar read only when
under MAX_SIDECAR.

A copy holds the transcript's complete lines only (a line still being written is left for
the next firing), lands by rename (never seen half-written) and only ever replaces a
copy whose bytes are a start of it (the same session copied before it grew), so a
session fired twice is one file in Raw/. A file there holding other bytes (a copy that
differs, an edit of the person's) is never replaced: the session lands beside it, as
`<name>-1.jsonl`, which later firings then bring up to date.

HOST is `claude-code` (the hook's JSON on stdin: `transcript_path`, `session_id`,
`hook_event_name`), `codex` (the `notify` JSON as the last argument: `thread-id`; the
rollout is found under `$CODEX_HOME/sessions`) or `pi` (the JSON our pi extension passes:
`transcript_path`, `hook_event_name`).
"""

from __future__ import annotations

import json
import os
import re
import select
import stat
import sys
import time
from pathlib import Path

# Not `typing.TYPE_CHECKING`: importing typing (and tempfile, datetime, contextlib) would
# cost every firing a few milliseconds of the host's time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import BinaryIO

HOSTS = ("claude-code", "codex", "pi")
LOG_NAME = "hooks.log"
LOG_ROTATE_BYTES = 1 << 20
"""A log over this size is moved to `hooks.log.1` (one kept) before the next line."""
MAX_PAYLOAD = 1 << 20
STDIN_SECONDS = 2.0
"""How long the payload may take to arrive: a stdin left open is not waited on forever."""
MAX_TRANSCRIPT = 512 << 20
"""The default `max_raw_file_mb`: INGEST would skip a larger file, so it is not copied."""
MAX_SIDECAR = 64 << 10
"""A subagent's `.meta.json` is a few hundred bytes; a larger one is not read."""
_BLOCK = 1 << 20
_TAIL = 64 << 10
_SUBAGENT = (".jsonl", ".meta.json")
_NONBLOCK = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
"""Every file is opened non-blocking: a FIFO put where a file was must not hang the hook."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ = os.O_RDONLY | _NONBLOCK
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NONBLOCK | _NOFOLLOW
"""The log is appended to only as a file of its own: never through a link, never a FIFO."""
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Skip(Exception):
    """Nothing to copy, for a reason the log says (no transcript, a payload without one)."""


def main(argv: list[str], stdin: BinaryIO | None = None) -> int:
    start = time.monotonic()
    host = argv[1] if len(argv) > 1 else "?"
    vault = Path(argv[2]) if len(argv) > 2 else None
    said = f"{host}:"
    try:
        if host not in HOSTS or vault is None:
            raise Skip(f"usage: hook.py {{{'|'.join(HOSTS)}}} VAULT [PAYLOAD]; got {argv[1:]!r}")
        payload = _payload(host, argv, stdin)
        said = f"{host} {_event(payload)} {_session(host, payload)}:"
        if not (vault / ".dreaming").is_dir() or not (vault / "Raw").is_dir():
            raise Skip(
                f"{vault} is not a dreaming vault (no Raw/ or .dreaming/); nothing copied; "
                f"install the hook again with the vault's path (dreaming hook install {host})"
            )
        if (vault / "Raw").is_symlink():
            raise Skip(f"{vault / 'Raw'} is a link; dreaming writes only into a real Raw/ folder")
        copies = _sources(host, vault, payload)
        outcome = _capture(host, vault, copies)
        _log(vault, f"{said} {outcome} in {_ms(start)}")
    except Skip as e:
        _log(vault, f"{said} {e}")
    except OSError as e:
        _log(vault, f"{said} {_trouble(e)}; nothing more copied")
    except BaseException as e:  # the host must never see a failure, whatever it is
        _log(vault, f"{said} unexpected {type(e).__name__}: {e}; nothing more copied")
    return 0


def _payload(host: str, argv: list[str], stdin: BinaryIO | None) -> dict[str, object]:
    if host == "claude-code":
        if stdin is None or stdin.isatty():
            raise Skip("no payload on stdin (Claude Code pipes the hook's JSON there)")
        data = _read_stdin(stdin)
    else:
        if len(argv) < 4:
            raise Skip(f"no payload argument ({host} passes its JSON as the last argument)")
        data = argv[-1].encode("utf-8", "surrogateescape")
    if len(data) > MAX_PAYLOAD:
        raise Skip(f"payload over {MAX_PAYLOAD} bytes; not read")
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise Skip(f"payload is not JSON ({e}); nothing copied") from None
    if not isinstance(payload, dict):
        raise Skip("payload is not a JSON object; nothing copied")
    return payload


def _read_stdin(stdin: BinaryIO) -> bytes:
    """Up to MAX_PAYLOAD + 1 bytes, to the end of the input or for STDIN_SECONDS at most."""
    try:
        fd = stdin.fileno()
    except (OSError, ValueError):
        return stdin.read(MAX_PAYLOAD + 1)
    chunks: list[bytes] = []
    size, end = 0, time.monotonic() + STDIN_SECONDS
    while size <= MAX_PAYLOAD:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise Skip(f"no end of the payload on stdin in {STDIN_SECONDS:g} s; nothing copied")
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _event(payload: dict[str, object]) -> str:
    return _text(payload.get("hook_event_name") or payload.get("type") or "event")


def _session(host: str, payload: dict[str, object]) -> str:
    key = "thread-id" if host == "codex" else "session_id"
    found = payload.get(key)
    if not found and isinstance(payload.get("transcript_path"), str):
        found = Path(str(payload["transcript_path"])).stem
    return _text(found or "?")


def _text(value: object) -> str:
    """A payload value on one log line, shortened."""
    text = " ".join(str(value).split())
    return text if len(text) <= 80 else text[:79] + "…"


Copy = tuple[Path, tuple[str, ...]]
"""A host file and where its copy goes, as path parts under Raw/."""


def _sources(host: str, vault: Path, payload: dict[str, object]) -> list[Copy]:
    if host == "codex":
        return _codex(payload)
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        raise Skip("payload names no transcript_path; nothing copied")
    given = Path(path).expanduser()
    try:
        src = confined(host, vault, given)
    except Skip as e:
        raise Skip(f"transcript {given}: {e}; nothing copied") from None
    if not src.is_file():
        raise Skip(f"transcript {given}: no such file; nothing copied")
    folder = _part(src.parent.name)
    copies: list[Copy] = [(src, (host, folder, _part(src.name)))]
    if host == "claude-code":
        # Claude Code keeps a session's subagents in <session>/subagents/ beside it.
        stem = _part(src.name.removesuffix(".jsonl"))
        side = src.with_name(src.name.removesuffix(".jsonl")) / "subagents"
        if side.is_dir():
            for sub in sorted(side.iterdir()):
                wanted = sub.name.startswith("agent-") and sub.name.endswith(_SUBAGENT)
                if wanted and sub.is_file():
                    copies.append((sub, (host, folder, stem, "subagents", _part(sub.name))))
    return copies


def confined(host: str, vault: Path, path: Path) -> Path:
    """`path` with every link and `..` resolved, when that is in the host's session folder
    and not in the vault; else Skip saying why. A payload names the file, and a payload
    is not trusted to name only the host's own."""
    real = os.path.realpath(path)
    root = os.path.realpath(sessions_home(host))
    if not _within(real, root):
        raise Skip(f"not a session file of {host} (not in {root})")
    if _within(real, os.path.realpath(vault)):
        raise Skip(f"inside the vault {vault}, not a session of {host}'s")
    return Path(real)


def _within(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _part(name: str) -> str:
    """A host's file or folder name as one name under Raw/: a hidden name would not be
    ingested, and `..` would leave the folder."""
    name = name.lstrip(".")
    if not name or "/" in name or "\\" in name or "\0" in name:
        raise Skip(f"{name!r} cannot be a name in Raw/; nothing copied")
    return name


HOST_HOMES = {
    "claude-code": ("CLAUDE_CONFIG_DIR", ".claude"),
    "codex": ("CODEX_HOME", ".codex"),
    "pi": ("PI_CODING_AGENT_DIR", ".pi/agent"),
}
"""Each host's own folder: the variable that moves it, else its place under `~`. The one
table the hook, its installers and `dreaming import` read (here: the hook imports no
other module of dreaming)."""
SESSIONS = {"claude-code": "projects", "codex": "sessions", "pi": "sessions"}
"""Where in its own folder each host keeps its sessions."""


def host_home(host: str, env: Mapping[str, str] | None = None) -> Path:
    """Where `host` keeps its files (settings, sessions)."""
    variable, default = HOST_HOMES[host]
    own = (os.environ if env is None else env).get(variable)
    return Path(own).expanduser() if own else Path.home() / default


def sessions_home(host: str, env: Mapping[str, str] | None = None) -> Path:
    """The folder holding `host`'s sessions: the only place the hook copies from."""
    return host_home(host, env) / SESSIONS[host]


def _codex(payload: dict[str, object]) -> list[Copy]:
    if payload.get("type") != "agent-turn-complete":
        raise Skip(f"a Codex {payload.get('type')!r} notification carries no session; ignored")
    thread = payload.get("thread-id")
    if not isinstance(thread, str) or not _UUID.fullmatch(thread):
        raise Skip(f"thread-id {thread!r} is not a Codex thread id; nothing copied")
    sessions = sessions_home("codex")
    found = codex_rollouts(sessions, thread)
    if not found:
        raise Skip(f"no rollout-*-{thread}.jsonl under {sessions}; nothing copied")
    return [(p, ("codex", *(_part(n) for n in p.relative_to(sessions).parts))) for p in found]


def codex_rollouts(sessions: Path, thread: str) -> list[Path]:
    """The rollout files of a Codex thread under `sessions/YYYY/MM/DD/`.

    A thread id is a UUIDv7 whose first 48 bits are its creation time in milliseconds,
    and Codex files a rollout under the local date it was created: that day (and its
    neighbours, for a clock or zone change) is looked at first, every day only when the
    id says no time."""
    pattern = f"rollout-*-{thread}*.jsonl"  # also -<thread>_<rollout>.jsonl
    if thread[14] == "7":
        seconds = int(thread[:8] + thread[9:13], 16) / 1000
        for shift in (0, -1, 1):
            day = time.strftime("%Y/%m/%d", time.localtime(seconds + shift * 86400))
            found = sorted((sessions / day).glob(pattern))
            if found:
                return found
    return sorted(sessions.glob(f"*/*/*/{pattern}"))


def _capture(host: str, vault: Path, copies: list[Copy]) -> str:
    """What was done, in words: the session's copy in full, its subagent files counted,
    and any of them refused or skipped said by name."""
    raw = Path(os.path.realpath(vault / "Raw"))
    said: list[str] = []
    skipped: list[str] = []
    files = copied = 0
    for n, (src, parts) in enumerate(copies):
        dest = raw.joinpath(*parts)
        where = "Raw/" + "/".join(parts)
        sidecar = src.name.endswith(".meta.json")
        try:
            source = confined(host, vault, src)
            # A link inside Raw/ must not carry the copy out of the vault.
            real = os.path.realpath(dest.parent)
            if real != str(raw) and not _within(real, str(raw)):
                raise Skip("leads out of Raw/ by a link; skipped")
            size, words = (copy_whole if sidecar else copy_lines)(source, dest)
            refused = words.endswith("skipped")
        except Skip as e:
            size, words, refused = 0, str(e), True
        if n == 0:
            said.append(f"{where}: {words}")
            continue
        files, copied = files + (not sidecar), copied + (size > 0 and not sidecar)
        if refused:
            skipped.append(f"{where}: {words}")
    if len(copies) > 1:
        said.append(f"{files} subagent files, {copied} copied")
        said += skipped[:5] + [f"{len(skipped) - 5} more skipped"] * (len(skipped) > 5)
    return "; ".join(said) or "nothing to copy"


def copy_lines(src: Path, dest: Path) -> tuple[int, str]:
    """Copy the complete lines of `src` into Raw/ at `dest`, or beside it when `dest` holds
    other bytes: (bytes copied, what happened in words). The copy lands by rename, never
    half-written."""
    fd = os.open(src, _READ | _NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return 0, "not a regular file; skipped"
        if st.st_size > MAX_TRANSCRIPT:
            mb = MAX_TRANSCRIPT >> 20
            return 0, f"{st.st_size} bytes, over {mb} MB; skipped (INGEST would skip it too)"
        size = complete_lines(fd, st.st_size)
        if size == 0:
            return 0, "no complete line yet; nothing copied"
        found = _place(dest, lambda at, n: os.pread(fd, n, at), size)
        if found is None:
            return 0, f"{dest.name} and {BESIDE - 1} names beside it hold other bytes; skipped"
        target, state, seen = found
        where = "" if target == dest else f" as {target.name}: {dest.name} holds other bytes"
        if state == "same":
            return 0, f"already captured ({size} bytes){where}"
        if state == "longer":
            return 0, f"a longer copy ({_size(target)} bytes){where} is kept; nothing copied"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _replace(target, seen, lambda out: _copy_range(fd, out, size)):
            return 0, f"{target.name} changed while it was copied; the next firing copies it"
    finally:
        os.close(fd)
    return size, f"copied ({size} bytes){where}"


def copy_whole(src: Path, dest: Path) -> tuple[int, str]:
    """A small sidecar (`agent-*.meta.json`) copied whole, at `dest` or beside it when
    `dest` holds other bytes: (bytes copied, what happened in words). The source is never
    read past MAX_SIDECAR."""
    data = _read_small(src)
    found = _place(dest, lambda at, n: data[at : at + n], len(data))
    if found is None:
        return 0, f"{dest.name} and {BESIDE - 1} names beside it hold other bytes; skipped"
    target, state, seen = found
    where = "" if target == dest else f" as {target.name}: {dest.name} holds other bytes"
    if state in ("same", "longer"):
        return 0, f"already captured ({len(data)} bytes){where}"
    target.parent.mkdir(parents=True, exist_ok=True)
    if not _replace(target, seen, lambda out: _write_all(out, data)):
        return 0, f"{target.name} changed while it was copied; the next firing copies it"
    return len(data), f"copied ({len(data)} bytes){where}"


def _read_small(path: Path) -> bytes:
    """A regular file of at most MAX_SIDECAR bytes, read without following a link at
    its end and never past MAX_SIDECAR + 1 bytes; else Skip."""
    over = f"over {MAX_SIDECAR >> 10} KB; skipped"
    fd = os.open(path, _READ | _NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Skip("not a regular file; skipped")
        if st.st_size > MAX_SIDECAR:
            raise Skip(f"{st.st_size} bytes, {over}")
        chunks: list[bytes] = []
        left = MAX_SIDECAR + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            left -= len(chunk)
        raise Skip(over)
    finally:
        os.close(fd)


BESIDE = 100
"""How many names beside a copy holding other bytes are tried (`name-1.jsonl` …)."""
Key = tuple[int, int, int]
"""What a file in Raw/ was when it was compared: inode, size, mtime."""


def _place(
    dest: Path, read: Callable[[int, int], bytes], size: int
) -> tuple[Path, str, Key | None] | None:
    """Where `size` bytes (`read(offset, count)` gives them) go: the first of `dest`,
    `<stem>-1<suffix>`, … that is free or holds a start of them, all of them or more:
    (that path, "free" | "earlier" | "same" | "longer", what it was); None when none of
    them is. A file holding other bytes (an older copy that differs, the person's edit)
    is never replaced."""
    stem, suffix = _split(dest.name)
    for n in range(BESIDE):
        target = dest if n == 0 else dest.with_name(f"{stem}-{n}{suffix}")
        try:
            st = os.lstat(target)
        except (FileNotFoundError, NotADirectoryError):
            return target, "free", None
        if stat.S_ISREG(st.st_mode):
            state = _against(target, read, size)
            if state is not None:
                return target, state, (st.st_ino, st.st_size, st.st_mtime_ns)
    return None


def _split(name: str) -> tuple[str, str]:
    """(stem, suffix) of a file name; a subagent's sidecar keeps its two-part suffix."""
    if name.endswith(".meta.json") and len(name) > len(".meta.json"):
        return name[: -len(".meta.json")], ".meta.json"
    stem, suffix = os.path.splitext(name)
    return stem, suffix


def _against(target: Path, read: Callable[[int, int], bytes], size: int) -> str | None:
    """How `target`'s bytes stand against the `size` bytes `read` gives: "earlier" (a
    start of them), "same", "longer" (they are a start of it), else None."""
    fd = os.open(target, _READ | _NOFOLLOW)
    try:
        have = os.fstat(fd).st_size
        at = 0
        while at < min(have, size):
            n = min(_BLOCK, min(have, size) - at)
            if os.pread(fd, n, at) != read(at, n):
                return None
            at += n
    finally:
        os.close(fd)
    return "same" if have == size else ("earlier" if have < size else "longer")


def _replace(dest: Path, seen: Key | None, fill: Callable[[int], None]) -> bool:
    """Write a hidden temp file beside `dest` with `fill(fd)`, flush it, rename it over
    `dest` — only while `dest` is still what was compared (`seen`; None: nothing), so a
    copy that landed meanwhile is never replaced unseen. Whether it was renamed."""
    out, name = _temp(dest)
    try:
        try:
            fill(out)
            os.fsync(out)
        finally:
            os.close(out)
        if _key(dest) != seen:
            os.unlink(name)
            return False
        os.replace(name, dest)
    except BaseException:
        _discard(name)
        raise
    return True


def _key(path: Path) -> Key | None:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _temp(dest: Path) -> tuple[int, Path]:
    """A new hidden `.<name>.<random>.tmp` beside `dest`: the watcher ignores such names."""
    while True:
        name = dest.with_name(f".{dest.name}.{os.urandom(4).hex()}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue


def _discard(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def complete_lines(fd: int, size: int) -> int:
    """How many leading bytes of the file hold complete lines (up to its last newline)."""
    end = size
    while end > 0:
        start = max(0, end - _TAIL)
        block = os.pread(fd, end - start, start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return 0


def _copy_range(src: int, out: int, count: int) -> None:
    offset = 0
    while offset < count:
        chunk = os.pread(src, min(_BLOCK, count - offset), offset)
        if not chunk:
            raise OSError(f"the transcript shrank to {offset} bytes while it was copied")
        _write_all(out, chunk)
        offset += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):
        return -1


def _trouble(e: OSError) -> str:
    if e.errno == 28:  # ENOSPC
        return f"disk full ({e.filename or e}); free some space, the next firing copies again"
    return f"{type(e).__name__}: {e}"


def _ms(start: float) -> str:
    return f"{(time.monotonic() - start) * 1000:.0f} ms"


def state_dir() -> Path:
    """The user's state folder for dreaming, as platformdirs' `user_state_dir` names it."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "dreaming"
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "dreaming"


def log_path(vault: Path | None) -> Path:
    """The vault's hook log, or the user's when there is no vault there."""
    if vault is not None and (vault / ".dreaming").is_dir():
        return vault / ".dreaming" / "logs" / LOG_NAME
    return state_dir() / LOG_NAME


def _log(vault: Path | None, line: str) -> None:
    """One line in the vault's hook log; in the user's when that cannot be written; on
    stderr when neither can."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    line = " ".join(line.split())
    where, fallback = log_path(vault), state_dir() / LOG_NAME
    for target in dict.fromkeys((where, fallback)):
        said = line if target != fallback or vault is None else f"vault {vault}: {line}"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if _size(target) > LOG_ROTATE_BYTES:
                os.replace(target, target.with_name(LOG_NAME + ".1"))
            fd = os.open(target, _APPEND, 0o600)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise OSError(f"{target} is not a regular file")
                _write_all(fd, f"{stamp} {said}\n".encode("utf-8", "backslashreplace"))
            finally:
                os.close(fd)
            return
        except OSError:
            continue
    try:
        sys.stderr.write(f"{stamp} dreaming hook: {line}\n")
    except (OSError, ValueError, AttributeError):
        return


if __name__ == "__main__":
    sys.exit(main(sys.argv, getattr(sys.stdin, "buffer", None)))
