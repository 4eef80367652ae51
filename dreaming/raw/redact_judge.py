"""Judging what a redaction rule matched: a secret, or a name, placeholder, hash or word.

The rules (`redact_rules`) find candidates by shape; these decide by what surrounds or
makes up the value: the name it is assigned to (detect-secrets' keyword detector), how
random it looks (mixed case, digits, entropy), or a checksum (Luhn, for card numbers).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable

Span = tuple[int, int]
Secret = Callable[[re.Match[str], str], Span | None]
"""Given a match and the original text: the span to replace, or None to keep the match."""

_PLACEHOLDERS = frozenset(
    {"password", "passwd", "pass", "secret", "token", "changeme", "example", "redacted",
     "none", "null", "true", "false", "undefined", "required", "optional", "bearer"}
)  # fmt: skip
_TYPE_WORDS = frozenset(
    {"string", "str", "number", "boolean", "bool", "integer", "int", "bytes", "object",
     "secretstr", "hidden", "masked", "prompt", "empty", "unset", "random", "generated"}
)  # fmt: skip
_CODE_PREFIXES = ("os.", "process.", "env.", "self.", "this.", "config.", "settings.")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][A-Za-z_$]{0,200}+(?:[.-][A-Za-z_$]{1,200}+){0,20}+")


def placeholder(value: str) -> bool:
    v = value.lower()
    if v in _PLACEHOLDERS or v.startswith(("your", "<", "{", "$", "[redacted", "%", "(")):
        return True
    if v.isdigit() or len(set(v)) <= 2:
        return True  # MAX_TOKENS=4096, PASSWORD=******
    return "(" in v or "[" in v or v.startswith(_CODE_PREFIXES)


def unquoted(value: str) -> str:
    return value.strip("\"'`")


def token_like(value: str) -> bool:
    """Has a digit, or is long and mixes letter cases: not an English word."""
    if placeholder(value):
        return False
    if any(c.isdigit() for c in value):
        return True
    return len(value) >= 20 and value.lower() != value and value.upper() != value


def _code_name(value: str) -> bool:
    """`settings.SECRET_KEY`, `DEFAULT_SECRET`, `ConfigService`: a name in code, not a value."""
    if _IDENTIFIER_RE.fullmatch(value) is None:
        return False
    camel = any(a.islower() and b.isupper() for a, b in itertools.pairwise(value))
    return "_" in value or "." in value or (camel and len(value) < 20)


def _assigned(value: str, password: bool) -> bool:
    """Whether `value`, assigned to a secret's name, is a secret: a token, a long value,
    or (for a password's name) any word that is not a type or a placeholder."""
    if len(value) < 6 or placeholder(value) or "://" in value:
        return False
    if value.startswith(("/", "./", "../", "~/")) or _code_name(value):
        return False
    if " " in value:  # a quoted phrase: a passphrase only when it has digits
        return token_like(value)
    if password and value.lower() not in _TYPE_WORDS:
        return True  # ADMIN_PASSWORD=sunshine
    return token_like(value) or len(value) >= 12


def random_tail(token: str) -> bool:
    """A provider key's random tail: digits and letters, mixed case or one long run."""
    if not any(c.isdigit() for c in token) or not any(c.isalpha() for c in token):
        return False
    if token.lower() != token and token.upper() != token:
        return True
    return max(len(run) for run in re.split(r"[_-]", token)) >= 32


def has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)


def whole(m: re.Match[str], text: str) -> Span:
    return m.span()


def whole_if(accept: Callable[[str], bool]) -> Secret:
    return lambda m, text: m.span() if accept(text[m.start() : m.end()]) else None


def group(accept: Callable[[str], bool] | None = None) -> Secret:
    def secret(m: re.Match[str], text: str) -> Span | None:
        start, end = m.span("v")
        return (start, end) if accept is None or accept(text[start:end]) else None

    return secret


def wrapped(least: int, accept: Callable[[str], bool] | None) -> Secret:
    """A provider key of at least `least` characters after its prefix (group `t`), or one
    a terminal or editor wrapped onto the next line (group `c`, the line break and the rest)."""

    def secret(m: re.Match[str], text: str) -> Span | None:
        tail = len(m.group("t"))
        end = m.end()
        if tail < least:
            rest = m.group("c") or ""
            more = len(rest) - (2 if rest.startswith(("\\n", "\r\n")) else 1)
            if tail < 4 or tail + more < least:
                return None
            end = m.end("c")
        return (m.start(), end) if accept is None or accept(text[m.start() : end]) else None

    return secret


# --- URL credentials ------------------------------------------------------------------------

_PORT_RE = re.compile(r"[0-9]{1,5}(?:[/?#]|$)")
_RUN_RE = re.compile(r"[^\s\"'`<>\\]{3,}+")
_RUN_CHARS = 512
"""How far past `://` a URL's userinfo is looked for: every `://` is looked at on its own,
so a bound keeps a text of many of them linear."""


def url_password(m: re.Match[str], text: str) -> Span | None:
    """The password of `scheme://user:password@host`, `m` the `://`. A password may hold
    `@`, `#`, `/` or `?` unencoded (people paste them so): it runs from the first `:` to
    the last `@` before the path, the first `/` after an `@`. In `host:port/…@…` the `@`
    is in the path."""
    found = _RUN_RE.match(text, m.end(), min(len(text), m.end() + _RUN_CHARS))
    if found is None:
        return None
    run = found.group()
    colon = run.find(":")
    if colon < 0 or any(c in run[:colon] for c in "/?#@"):
        return None
    first_at = run.find("@", colon + 1)
    if first_at < 0 or _PORT_RE.match(run, colon + 1):
        return None
    path = run.find("/", first_at)
    at = run.rfind("@", first_at, path if path >= 0 else len(run))
    host = run[at + 1 : at + 2]
    if at == colon + 1 or not (host.isalnum() or host == "["):
        return None
    if placeholder(run[colon + 1 : at]):
        return None
    return m.end() + colon + 1, m.end() + at


# --- NAME = value assignments (detect-secrets' KeywordDetector, gitleaks' generic-api-key) --

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_WORD_RE = re.compile(r"[A-Z]{1,64}(?![a-z])|[A-Z]?[a-z]{1,64}+|[0-9]{1,64}+")
_SECRET_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token")
_PASSWORD_SUFFIXES = ("password", "passwd", "passphrase")
_SECRET_WORDS = frozenset({"pass", "pwd", "apikey", "privatekey", "accesskey", "secretkey"})
_KEY_QUALIFIERS = frozenset(
    {"api", "private", "access", "secret", "auth", "client", "signing", "encryption", "master",
     "account", "service", "app", "license", "shared", "session", "webhook", "deploy", "admin",
     "preshared"}
)  # fmt: skip
_NOT_SECRET_LAST = frozenset(
    {"url", "uri", "endpoint", "file", "path", "dir", "name", "names", "id", "ids", "type",
     "length", "len", "size", "count", "limit", "env", "var", "header", "field",
     "param", "prefix", "suffix", "format", "version", "hint", "policy", "expiry", "expires",
     "expiration", "ttl", "timeout", "kind", "label", "method", "mode", "scheme", "provider",
     "manager", "store", "service", "source", "helper", "class", "usage", "lifetime",
     "duration", "driver", "cookie", "domain", "secure", "samesite", "handler", "storage"}
)  # fmt: skip
_NOT_SECRET_WORDS = frozenset({"csrf", "xsrf", "public", "page", "next", "max", "min", "num"})

VALUE_REST_RE = re.compile(r"[^\s\"'`,;\\)\]}>&]*+")
"""What follows an unquoted value the assignment regex cut at its bound."""


def name_before(text: str, i: int) -> int:
    """Where the name that reaches position `i` starts (looking back at most 64 chars)."""
    stop = max(0, i - 64)
    while i > stop and text[i - 1] in _NAME_CHARS:
        i -= 1
    return i


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(name)]


def _secret_name(words: list[str]) -> bool:
    """`DB_PASSWORD`, `githubToken`, `x-api-key`; not `TOKEN_URL`, `max_tokens`, `primary_key`."""
    if not words or words[-1] in _NOT_SECRET_LAST or _NOT_SECRET_WORDS.intersection(words):
        return False
    for i, word in enumerate(words):
        if word in _SECRET_WORDS or word.endswith(_SECRET_SUFFIXES):
            return True
        if word == "key" and i > 0 and words[i - 1] in _KEY_QUALIFIERS:
            return True
    return False


def assignment(m: re.Match[str], text: str) -> Span | None:
    start = name_before(text, m.start())
    name = text[start : m.end("rest")]
    if m.group("op") is None and not name.startswith("-"):
        return None  # `NAME value` only for a command-line flag: `--password s3cr3t`
    quoted = m.group("qv") is not None
    span = m.span("qv") if quoted else m.span("v")
    words = _words(name)
    if not _secret_name(words):
        return None
    password = words[-1] in ("pass", "pwd") or words[-1].endswith(_PASSWORD_SUFFIXES)
    if not _assigned(text[span[0] : span[1]], password):
        return None
    if not quoted:
        rest = VALUE_REST_RE.match(text, span[1])
        span = (span[0], rest.end() if rest else span[1])
    return span


def session_cookie(m: re.Match[str], text: str) -> Span | None:
    """`sessionid=…`, `PHPSESSID=…`, `connect.sid=…`: not `session_timeout=3600`."""
    name = text[name_before(text, m.start()) : m.end("rest")].lower()
    parts = [p for p in re.split(r"[._-]", name) if p]
    if not parts or parts[-1] in _NOT_SECRET_LAST or parts[-1] in _NOT_SECRET_WORDS:
        return None
    if not any("sess" in p or p == "sid" for p in parts):
        return None
    value = unquoted(text[m.start("v") : m.end("v")])
    if len(value) < 16 or not token_like(value):
        return None
    return m.span("v")


def command_password(m: re.Match[str], text: str) -> Span | None:
    return m.span("v") if not placeholder(unquoted(m.group("v"))) else None


# --- shapes judged by their characters ----------------------------------------------------


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(k / n * math.log2(k / n) for k in Counter(s).values())


def aws_secret(m: re.Match[str], text: str) -> Span | None:
    """A bare AWS secret access key: exactly 40 characters of the base64 alphabet, random.

    A git SHA (hex, one case) or a path or camelCase name (runs of lower-case letters,
    low entropy) is not one: a key has upper, lower and digits, Shannon entropy of at
    least 4.2 bits a character (random ones have 4.3 or more 999 times in 1000), and
    few lower-case pairs (random: 18 or fewer of 39 in 9,995 keys of 10,000; words: 19
    or more)."""
    start, end = m.span()
    if end - start == 41 and text[start - 1 : start] == "\\" and text[start] in "nrt":
        start += 1  # a JSON escape (`\n`) glued to the key
    key = text[start:end]
    if len(key) != 40:
        return None
    if not (any(c.isupper() for c in key) and any(c.islower() for c in key) and has_digit(key)):
        return None
    pairs = sum(a.islower() and b.islower() for a, b in itertools.pairwise(key))
    return (start, end) if pairs <= 18 and _entropy(key) >= 4.2 else None


_CARD_SHAPES = frozenset({(4, 4, 4, 4), (4, 6, 5), (4, 6, 4), (4, 4, 4, 4, 3), (4, 4, 4, 1)})


def _card_network(d: str) -> bool:
    n = len(d)
    two, four = int(d[:2]), int(d[:4])
    if d[0] == "4":
        return n in (13, 16, 19)
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if two in (36, 38) or 300 <= int(d[:3]) <= 305:
        return n == 14
    if four == 6011 or two in (62, 65) or 644 <= int(d[:3]) <= 649 or 3528 <= four <= 3589:
        return 16 <= n <= 19
    return False


def _luhn(d: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(d)):
        k = int(c) * (2 if i % 2 else 1)
        total += k - 9 if k > 9 else k
    return total % 10 == 0


def card(m: re.Match[str], text: str) -> Span | None:
    """A payment card number: a known network's prefix and length, Luhn-valid, its digits
    run together or grouped as printed (4-4-4-4, Amex 4-6-5)."""
    found = m.group()
    seps = {c for c in found if not c.isdigit()}
    digits = found.replace(" ", "").replace("-", "")
    if len(seps) > 1:
        return None
    if seps and tuple(len(g) for g in re.split(r"[ -]", found)) not in _CARD_SHAPES:
        return None
    return m.span() if _card_network(digits) and _luhn(digits) else None
