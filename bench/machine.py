"""What every bench prints first: the machine it ran on (CPUs differ between runs)."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu() -> str:
    """The CPU's model name, its widest vector unit (what a llama.cpp build runs on)
    and how many threads it offers."""
    name, flags = "", set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and not name:
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    name = name or platform.processor() or platform.machine() or "unknown CPU"
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{name} ({vector}), {os.cpu_count()} threads"
