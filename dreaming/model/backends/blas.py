"""A real BLAS under mlx's CPU backend, loaded before `mlx.core` is first imported.

The Linux `mlx-cpu` wheel links the reference BLAS: ~2 GFLOP/s float32 matmul on our
CI machines, which makes even a 135M model crawl. OpenBLAS, loaded into the global
symbol scope first, takes over `cblas_sgemm` & co. and gives ~50x (MODELS.md). Only
possible before mlx binds its symbols, so every mlx import in dreaming goes through
`import_mlx()`.

A BLAS built for one CPU (cmeel-openblas 0.3.31 is a SKYLAKEX build, not DYNAMIC_ARCH)
dies with SIGILL on a CPU without AVX-512, which no try/except can catch, so a library
is promoted to global scope only after its core type is checked against /proc/cpuinfo.
"""

from __future__ import annotations

import ctypes
import os
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType

from dreaming.config import blas_override
from dreaming.model.base import quiet_transformers

# OpenBLAS core name -> CPU flags its kernels need. Builds for other cores are trusted
# only when they are DYNAMIC_ARCH (they pick a kernel for the CPU at run time).
_AVX512 = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
_CORE_FLAGS: dict[str, frozenset[str]] = {
    "SKYLAKEX": _AVX512,
    "COOPERLAKE": _AVX512 | {"avx512_bf16"},
    "SAPPHIRERAPIDS": _AVX512 | {"avx512_bf16", "amx_tile"},
    "HASWELL": frozenset({"avx2", "fma"}),
    "ZEN": frozenset({"avx2", "fma"}),
    "SANDYBRIDGE": frozenset({"avx"}),
    "NEHALEM": frozenset({"sse4_2"}),
    "PRESCOTT": frozenset({"sse3"}),
}

_status: str | None = None


def _cpu_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def _candidates() -> list[tuple[str, str]]:
    explicit = blas_override()
    if explicit:
        return [("DREAMING_BLAS", explicit)]
    # The system's first, by soname, so dlopen searches LD_LIBRARY_PATH and the linker
    # cache (Debian's libopenblas0-pthread is DYNAMIC_ARCH: it runs on any x86-64). It
    # must come first: once cmeel's copy is loaded, its soname answers for the system's.
    found = [("system OpenBLAS", "libopenblas.so.0")]
    try:
        dist = metadata.distribution("cmeel-openblas")
        libs = sorted(
            (f for f in dist.files or () if f.name.startswith("libopenblas.so")),
            key=lambda f: len(str(f)),
        )
        if libs:
            found.append((f"cmeel-openblas {dist.version}", str(dist.locate_file(libs[0]))))
    except metadata.PackageNotFoundError:
        pass
    return found


def runs_here(config: str, core: str, flags: frozenset[str], machine: str) -> str | None:
    """None if an OpenBLAS with this build config and core can run on this CPU, else why."""
    if "DYNAMIC_ARCH" in config or machine not in ("x86_64", "AMD64"):
        return None
    needed = _CORE_FLAGS.get(core.upper())
    if needed is None:
        return f"built for {core or 'an unknown core'} only"
    missing = needed - flags
    if missing:
        return f"built for {core}, this CPU lacks {', '.join(sorted(missing))}"
    return None


def _usable(lib: ctypes.CDLL, flags: frozenset[str]) -> str | None:
    try:
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        config = (lib.openblas_get_config() or b"").decode()
        core = (lib.openblas_get_corename() or b"").decode()
    except AttributeError:
        return None  # not OpenBLAS (an explicit DREAMING_BLAS): the person chose it
    return runs_here(config, core, flags, os.uname().machine)


def prepare() -> str:
    """Put the fastest usable BLAS in place for mlx; returns what happened, for reports."""
    global _status
    if _status is not None:
        return _status
    if sys.platform != "linux":
        _status = "platform BLAS (not Linux)"
        return _status
    if "mlx.core" in sys.modules:
        _status = "mlx's bundled BLAS (mlx was imported before dreaming could load OpenBLAS)"
        return _status
    if (blas_override() or "").lower() == "none":
        _status = "mlx's bundled BLAS (DREAMING_BLAS=none)"
        return _status
    flags = _cpu_flags()
    reasons = []
    for label, path in _candidates():
        try:
            # RTLD_LOCAL first: a library we reject must not interpose on mlx's symbols.
            lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
        except OSError as e:
            why = str(e).split(":")[0] if "cannot open" in str(e) else str(e)
            reasons.append(f"{label}: cannot load ({why})")
            continue
        why_not = _usable(lib, flags)
        if why_not:
            reasons.append(f"{label}: {why_not}")
            continue
        ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        _status = f"{label} ({path})"
        return _status
    hint = (
        "; for speed: apt-get install libopenblas0-pthread (or set DREAMING_BLAS=<libopenblas.so>)"
    )
    _status = "mlx's bundled BLAS (" + ("; ".join(reasons) or "no OpenBLAS found") + ")" + hint
    return _status


def import_mlx() -> ModuleType:
    """`mlx.core`, after `prepare()`: the only way dreaming imports mlx."""
    prepare()
    quiet_transformers()
    import mlx.core as mx

    return mx
