"""Redaction benchmark: throughput at 1x, 4x and 16x the input, side by side in one run.

    python bench/bench_redact.py [--size 250000]

For a realistic transcript mix and for each crafted worst case it prints MB/s at each
size and the time ratios 4x/1x and 16x/1x: linear time reads 4 and 16; a quadratic rule
would read 16 and 256. The CPU model comes first, since the absolute numbers depend on it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import cpu  # noqa: E402
from dreaming.raw.redact import redact  # noqa: E402

# Built from pieces so this file never holds a scannable key.
_MIX = (
    "Can you look at why the deploy fails? Here is the log and my config.\n"
    "```\nexport DATABASE_URL=postgres://app:" + "s3cr3tPa55" + "@db.internal:5432/prod\n"
    "OPENAI_API_KEY=sk-proj-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z_-Q" + "\n```\n"
    "The tokenizer loads from /models/tokenizer.json and MAX_TOKENS=4096 is set.\n"
    "def get_token(self) -> str:\n    return self.session.headers['Authorization']\n"
    "commit 3f2b1c0d9e8a7f6b5c4d3e2f1a0b9c8d7e6f5a4b fixed the password reset flow.\n"
    '{"type":"tool_use","name":"Bash","input":{"command":"pytest -q tests/"}}\n'
)


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: unit * (n // len(unit) + 1)


CASES: dict[str, Callable[[int], str]] = {
    "transcript mix": _repeat(_MIX),
    "repeated words": _repeat("api_key secret token password bearer authorization "),
    "one long snake_case word": _repeat("api_key_"),
    "a run of one letter": lambda n: "a" * n,
    "BEGIN headers without END": _repeat("-----BEGIN RSA PRIVATE KEY-----!"),
    "'=' chains": _repeat("token="),
    "'@' chains": lambda n: "redis://u:" + "@" * n,
    "'://' chains": _repeat("://"),
    "JSON-ish": _repeat('{"token":"'),
    "token prefixes": _repeat("sk-ghp_xoxb-eyJ"),
}


def seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        redact(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=250_000, help="characters at 1x")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    print(f"1x = {args.size:,} characters; MB/s at 1x / 4x / 16x; time ratios (linear: 4, 16)")
    worst = 0.0
    for name, make in CASES.items():
        times = [seconds(make(k * args.size)[: k * args.size]) for k in (1, 4, 16)]
        rates = [k * args.size / t / 1e6 for k, t in zip((1, 4, 16), times, strict=True)]
        r4, r16 = times[1] / times[0], times[2] / times[0]
        worst = max(worst, r16)
        print(
            f"{name:28} {rates[0]:8.1f} {rates[1]:8.1f} {rates[2]:8.1f} MB/s"
            f"   4x/1x {r4:5.1f}   16x/1x {r16:6.1f}"
        )
    print(f"worst 16x/1x ratio: {worst:.1f} (linear: 16; the test fails above 40)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
