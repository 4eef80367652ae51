"""Set up ./.venv with the dev tools and run the whole test suite: lint, types, tests.

Usage: python3 scripts/test.py [pytest args...]
"""

from __future__ import annotations

import sys

from bootstrap import ROOT, ensure_venv, run, say


def main() -> int:
    python = str(ensure_venv("dev"))
    say("ruff")
    failed = run([python, "-m", "ruff", "check", "."], cwd=ROOT, check=False) != 0
    failed |= run([python, "-m", "ruff", "format", "--check", "."], cwd=ROOT, check=False) != 0
    say("mypy --strict")
    failed |= run([python, "-m", "mypy"], cwd=ROOT, check=False) != 0
    say("pytest")
    code = run([python, "-m", "pytest", *sys.argv[1:]], cwd=ROOT, check=False)
    if code == 5:
        print("pytest collected no tests: that is a failure here", file=sys.stderr)
    failed |= code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
