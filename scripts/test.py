"""Set up ./.venv with the dev tools and run the whole test suite: lint, types, tests.

Usage: python3 scripts/test.py [--fast] [pytest args...]

--fast is the developer's lane, for every change: lint, types and the tests that need
no model, no night in a child process and no real waiting (`pytest --fast`: no test
marked slow, a tenth of each property test's examples, on every core). Without
it, everything runs and the 20 slowest tests are printed; CI and the README's command
run that.
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
    args = sys.argv[1:]
    # The fast lane spreads over every core; the full suite runs in one process, as the
    # crash and concurrency tests were measured.
    lane = ["-n", "auto"] if "--fast" in args else ["--durations=20"]
    say("pytest" + (" (fast lane)" if "--fast" in sys.argv[1:] else ""))
    code = run([python, "-m", "pytest", *lane, *args], cwd=ROOT, check=False)
    if code == 5:
        print("pytest collected no tests: that is a failure here", file=sys.stderr)
    failed |= code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
