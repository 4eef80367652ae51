"""`dreaming` as a child process whose every file copy pauses halfway, so that a test can
kill it at a random point of an import, inside a copy included:

    python -m tests.import_child DELAY ARGS...
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path


def slow_copy(delay: float) -> Callable[..., object]:
    def copy(src: str | Path, dst: str | Path, *, follow_symlinks: bool = True) -> str | Path:
        data = Path(src).read_bytes()
        with open(dst, "wb") as out:
            out.write(data[: len(data) // 2])
            out.flush()
            time.sleep(delay)
            out.write(data[len(data) // 2 :])
        return dst

    return copy


if __name__ == "__main__":
    shutil.copyfile = slow_copy(float(sys.argv[1]))  # type: ignore[assignment]
    from watcher.cli import main

    sys.argv = ["dreaming", *sys.argv[2:]]
    main()
