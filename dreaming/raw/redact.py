"""Secret redaction: every transcript passes through `redact` before it is stored.

Each rule is anchored on a prefix a provider puts on its keys, or on a key *name*
(`Bearer`, `Authorization:`, `API_KEY=`), so prose, UUIDs, git SHAs and ordinary base64
do not match. A rule's regex only runs when its trigger substring is in the text: a
substring test is a memchr, while a regex that starts with `\\b` is tried at every
position, and most messages hold no secret at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class _Rule:
    kind: str
    triggers: tuple[str, ...]
    """Substrings, one of which must be in the text (lower-cased when `lower`)."""
    pattern: re.Pattern[str]
    value: str | None = None
    """Group holding the secret; None redacts the whole match."""
    lower: bool = False
    accept: Callable[[str], bool] | None = None


_PLACEHOLDERS = frozenset(
    {"password", "passwd", "pass", "secret", "token", "changeme", "example", "redacted",
     "none", "null", "true", "false", "undefined", "required", "optional", "bearer"}
)  # fmt: skip


def _placeholder(value: str) -> bool:
    v = value.lower()
    if v in _PLACEHOLDERS or v.startswith(("your", "<", "{", "$", "[redacted", "%", "(")):
        return True
    if v.isdigit() or len(set(v)) <= 2:
        return True  # MAX_TOKENS=4096, PASSWORD=******
    return "(" in v or "[" in v or v.startswith(("os.", "process.", "env.", "self.", "config."))


def _token_like(value: str) -> bool:
    """Has a digit, or is long and mixes letter cases: not an English word."""
    if _placeholder(value):
        return False
    if any(c.isdigit() for c in value):
        return True
    return len(value) >= 20 and value.lower() != value and value.upper() != value


def _assigned(value: str) -> bool:
    return not _placeholder(value) and (_token_like(value) or len(value) >= 12)


_B = r"(?<![A-Za-z0-9_-])"  # start of a token: a regex `\b` would also split at `-`

_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        ("PRIVATE KEY-----",),
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY-----"
            r"(?:.*?-----END[A-Z0-9 ]{0,40} PRIVATE KEY-----|[A-Za-z0-9+/=\s:,-]*)",
            re.S,
        ),
    ),
    _Rule("anthropic", ("sk-ant-",), re.compile(_B + r"sk-ant-[A-Za-z0-9_-]{20,}")),
    _Rule(
        "openai",
        ("sk-",),
        re.compile(_B + r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,}\b)"),
    ),
    _Rule("aws_access_key", ("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    _Rule(
        "github",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}\b|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    _Rule("gitlab", ("glpat-",), re.compile(_B + r"glpat-[A-Za-z0-9_-]{20,}")),
    _Rule("slack", ("xox",), re.compile(_B + r"xox[abprs]-[A-Za-z0-9-]{10,}")),
    _Rule("google", ("AIza",), re.compile(_B + r"AIza[0-9A-Za-z_-]{35}")),
    _Rule(
        "stripe", ("_live_", "_test_"), re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")
    ),
    _Rule("huggingface", ("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    _Rule(
        "aws_secret",
        ("aws_secret_access_key",),
        re.compile(
            r"(?i:aws_secret_access_key)[\"']?[ \t]*[=:][ \t]*[\"']?(?P<v>[A-Za-z0-9/+=]{40})"
        ),
        value="v",
        lower=True,
    ),
    _Rule(
        "authorization",
        ("authorization",),
        re.compile(
            r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?:(?i:basic|bearer|token|bot|digest)[ \t]+)?(?P<v>[^\s\"'\[]{8,})"
        ),
        value="v",
        lower=True,
        accept=_token_like,
    ),
    _Rule(
        "bearer",
        ("bearer",),
        re.compile(r"(?i:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/=-]{16,})"),
        value="v",
        lower=True,
        accept=_token_like,
    ),
    _Rule(
        "password",
        ("://",),
        # Starts with the literal "://" so the regex engine can jump between candidates.
        re.compile(r"://(?<=[A-Za-z0-9+.-]://)[^\s:/@\[\]]+:(?P<v>[^\s@/\[\]]+)@(?=[\w.-])"),
        value="v",
        accept=lambda v: not _placeholder(v),
    ),
    _Rule(
        "secret",
        ("secret", "token", "passw", "api_key", "apikey", "private_key", "access_key"),
        re.compile(
            r"^[ \t]*(?:export[ \t]+)?[\"']?"
            r"(?i:[A-Za-z0-9_.-]*(?<![A-Za-z0-9])(?:secret|token|password|passwd|api_key|apikey|"
            r"private_key|access_key)(?![A-Za-z0-9])[A-Za-z0-9_.-]*)"
            r"[\"']?[ \t]*[=:][ \t]*(?P<q>[\"']?)(?P<v>[^\s\"'#]{6,})(?P=q)[ \t]*[,;]?[ \t]*$",
            re.M,
        ),
        value="v",
        lower=True,
        accept=_assigned,
    ),
)


def redact(text: str) -> tuple[str, int]:
    """Replace secrets with `[REDACTED:<kind>]`; returns the new text and how many."""
    if not text:
        return text, 0
    count = 0
    low: str | None = None
    for rule in _RULES:
        if rule.lower:
            if low is None:
                low = text.lower()
            hay = low
        else:
            hay = text
        if not any(t in hay for t in rule.triggers):
            continue

        def sub(m: re.Match[str], rule: _Rule = rule) -> str:
            nonlocal count
            if rule.value is None:
                count += 1
                return f"[REDACTED:{rule.kind}]"
            value = m.group(rule.value)
            if rule.accept is not None and not rule.accept(value):
                return m.group(0)
            count += 1
            start, end = m.start(rule.value) - m.start(), m.end(rule.value) - m.start()
            whole = m.group(0)
            return f"{whole[:start]}[REDACTED:{rule.kind}]{whole[end:]}"

        new = rule.pattern.sub(sub, text)
        if new is not text and new != text:
            text = new
            low = None
    return text, count
