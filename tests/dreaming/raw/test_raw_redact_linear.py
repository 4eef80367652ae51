"""Redaction runs in linear time on crafted text: every rule, at N, 4N and 16N characters.

A quadratic rule grows 256x from N to 16N; a linear one 16x. The bound allows 40x
plus a floor, so a busy machine cannot fail it, while a quadratic rule still does.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from dreaming.raw.redact import redact
from tests.support import best_seconds

N = 4000
FLOOR_S = 0.05


# Slow: real timing against input size.
pytestmark = pytest.mark.slow


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: unit * (n // len(unit) + 1)


WORST_CASES: dict[str, Callable[[int], str]] = {
    "repeated words": _repeat("api_key secret token password passwd bearer authorization "),
    "one long snake_case word": _repeat("api_key_"),
    "a run of one letter": lambda n: "a" * n,
    "BEGIN headers without END": _repeat("-----BEGIN RSA PRIVATE KEY-----!"),
    "BEGIN headers, one END at the end": lambda n: (
        _repeat("-----BEGIN PRIVATE KEY-----\n")(n) + "-----END PRIVATE KEY-----"
    ),
    "'=' chains": _repeat("token="),
    "'@' chains": lambda n: "redis://u:" + "@" * n,
    "'://' chains": _repeat("://"),
    "'://' with userinfo": _repeat("a://b:c@"),
    "JSON-ish": _repeat('{"token":"'),
    "JSON-ish quoted": _repeat("{'password': 'x"),
    "authorization headers": _repeat("Authorization: '"),
    "bearer bearer": _repeat("Bearer "),
    "token prefixes": _repeat("sk-ghp_xoxb-eyJSG.AKIAhf_npm_glpat-sk_live_ya29."),
    "JWT-ish chains": _repeat("eyJhbGciOi."),
    "base64 body lines": lambda n: "-----BEGIN PRIVATE KEY-----\n" + _repeat("QUJD\n")(n),
    "armor-like lines": lambda n: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + _repeat("A: b\n")(n),
    "curl -u": _repeat("-u a:"),
    "Q~ secrets": _repeat("abc8Q~"),
    "flags": _repeat("--password "),
    "rejected names before a value": _repeat("token_type=a&"),
    "'://' with a password holding '@#/?'": _repeat("a://b:c#/?@"),
    "ports before an '@'": _repeat("h://x:80/@"),
    "wrapped key stubs": _repeat("ghp_ab\\nc"),
    "40-character base64 runs": _repeat("Zq7/VtK2mW9xR4bN8cL1+pD6fH3jS5gA0eYw3Tb9 "),
    "a run of base64": lambda n: "aB3+" * (n // 4 + 1),
    "digit runs": lambda n: "4" * n,
    "card-like groups": _repeat("4111 1111 "),
    "telegram-like": _repeat("123456:A"),
    "command arguments": _repeat("mysql -u a "),
    "docker logins": _repeat("docker login -u a "),
    "session names": _repeat("sessionid=sid="),
    "escapes before prefixes": _repeat("\\nsk-\\nhf_%22AKIA"),
}


@pytest.mark.parametrize("name", list(WORST_CASES))
def test_worst_case_inputs_take_linear_time(name: str) -> None:
    make = WORST_CASES[name]
    t1, t4, t16 = (best_seconds(redact, make(k * N)) for k in (1, 4, 16))
    assert t16 < 40 * t1 + FLOOR_S, f"{name}: {t1:.4f}s at N, {t4:.4f}s at 4N, {t16:.4f}s at 16N"


def test_a_120_kb_line_of_repeated_words_is_fast() -> None:
    text = _repeat("client_secret_token_api_key_")(120_000)
    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 1.0
