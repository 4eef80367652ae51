"""Shared by up.py and test.py: make ./.venv and install dreaming into it.

Only the standard library is used here: this runs on a fresh machine with
nothing but Python and git. A stamp of pyproject.toml's digest makes the
second run skip pip entirely.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def say(msg: str) -> None:
    print(f"==> {msg}", flush=True)


def platform_extras() -> tuple[str, ...]:
    """The extras the default model needs on this machine: on Linux x86-64 it runs on
    llama.cpp's prebuilt CPU wheel (`[llama]`), elsewhere on mlx (no extra). The same
    test as `dreaming.config.default_model`: this file runs before dreaming is installed."""
    if sys.platform == "linux" and platform.machine().lower() in ("x86_64", "amd64"):
        return ("llama",)
    return ()


def ensure_venv(*extras: str) -> Path:
    # This file runs under whatever python3 the machine has, perhaps an old one.
    if sys.version_info < (3, 11):  # noqa: UP036
        sys.exit(f"dreaming needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        say(f"creating {VENV}")
        venv.EnvBuilder(with_pip=True, upgrade_deps=False).create(VENV)
    wanted = sorted({*extras, *platform_extras()})
    # The stamp holds pyproject's digest and the extras installed with it: an install
    # with more extras serves one with fewer, so alternating up.py and test.py does
    # not reinstall.
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = VENV / ".dreaming-installed"
    have_digest, _, have_extras = (stamp.read_text() if stamp.exists() else "").partition(" ")
    if have_digest == digest and set(wanted) <= set(have_extras.split(",")):
        return PYTHON
    say("installing dreaming and its dependencies (first run: a minute or two)")
    run([str(PYTHON), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    target = f".[{','.join(wanted)}]" if wanted else "."
    # setuptools warns about every editable install ("be careful with folders … of the
    # same name"), which is how this checkout is meant to be used: a person's first
    # command shows what happens, not a builder's advice. pip's own errors still show.
    quiet = {**os.environ, "PYTHONWARNINGS": "ignore"}
    run([str(PYTHON), "-m", "pip", "install", "-q", "-e", target], cwd=ROOT, env=quiet)
    stamp.write_text(f"{digest} {','.join(wanted)}")
    return PYTHON


def run(
    cmd: list[str], cwd: Path | None = None, check: bool = True, env: dict[str, str] | None = None
) -> int:
    code = subprocess.call(cmd, cwd=cwd, env=env)
    if check and code != 0:
        sys.exit(f"failed ({code}): {' '.join(cmd)}")
    return code


def dreaming(*args: str, check: bool = True) -> int:
    return run([str(BIN / "dreaming"), *args], check=check)
