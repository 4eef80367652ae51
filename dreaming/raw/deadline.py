"""A time limit on reading one Raw file, which the readers check as they go.

Why a deadline the readers check, and not a worker process or thread: a thread cannot be
stopped, so only a subprocess or the reader itself can end a read. A subprocess per read
(or one kept alive and killed on a slow file) would copy every conversation it read
back through a pipe, holding them twice at once, against bench_read_memory's goal of a
read under twice the file's size, and would start a Python for every ingest the watcher
makes. The reader can end a read instead, because everything it does between two checks
is linear in a bounded piece: a block of the file (64 KB streamed, 1 MB of a text held
whole), one JSONL record, one conversation of an export, one redaction batch (1 MB).
The regexes over untrusted text are timed linear (`tests/dreaming/raw/`), and a piece
is at most the file, itself capped by `max_raw_file_mb`. So a read ends within the limit
plus one piece's work, whatever the bytes; what no check can end is a read the kernel
itself blocks (a hung network disk), which is no file's content.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from dreaming.errors import TranscriptError


class ReadTooSlow(TranscriptError):
    """Reading one Raw file took longer than its limit."""


@dataclass(frozen=True)
class _Limit:
    path: Path
    seconds: float
    ends: float


_limit: ContextVar[_Limit | None] = ContextVar("raw_read_limit", default=None)


@contextmanager
def time_limit(path: Path, seconds: float) -> Iterator[None]:
    """Within the block, `check` raises ReadTooSlow once `seconds` have passed."""
    token = _limit.set(_Limit(path, seconds, time.monotonic() + seconds))
    try:
        yield
    finally:
        _limit.reset(token)


def check() -> None:
    """Raise ReadTooSlow when the read under way has run past its limit (no limit: never)."""
    limit = _limit.get()
    if limit is not None and time.monotonic() > limit.ends:
        raise ReadTooSlow(
            limit.path,
            f"reading it took over {limit.seconds:g} s, the limit for one file "
            "(raw_read_timeout_s in .dreaming/config.toml); the others went on. Split it, "
            "or raise the limit and touch the file: it is read again once it changes",
        )
