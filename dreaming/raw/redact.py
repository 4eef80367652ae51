"""Secret redaction: every transcript passes through `redact` before it is stored or shortened.

The rules port gitleaks' rule list (provider key shapes) and detect-secrets' keyword
detector (`NAME = value` assignments) to the kinds a chat transcript holds; see
docs/formats.md. Each rule is anchored on a prefix a provider puts on its keys, or on a
key *name* (`Bearer`, `Authorization:`, `…_PASSWORD=`), so prose, UUIDs, git SHAs and
ordinary base64 do not match. Most messages hold no secret at all, so a rule's regex only
runs when one of its trigger substrings is in the text, unless the regex itself starts at
a literal rare enough to be found as fast.

Linear time on any input: every regex starts at a literal or a token start, every
repetition is possessive (`*+`, `{n,}+`: never gives back what it took) or bounded, and
no rule looks for anything after an unbounded run. So an attempt that fails costs a
bounded number of steps, and the text one that succeeds consumes is never scanned again.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[REDACTED:"

Span = tuple[int, int]
Secret = Callable[[re.Match[str], str], Span | None]
"""Given a match and the original text: the span to replace, or None to keep the match."""


@dataclass(frozen=True)
class _Rule:
    kind: str
    triggers: tuple[str, ...]
    """Substrings, one of which must be in the text (lower-cased when `folded`); none where
    the regex, starting at a rare literal, is cheaper than looking for each of them."""
    pattern: re.Pattern[str]
    secret: Secret
    folded: re.Pattern[str] | None = None
    """For a case-blind rule, `pattern` (written in lower case) runs on the lower-cased text,
    4x faster than `(?i)`; this IGNORECASE twin runs where lower-casing changes lengths."""


def _case_blind(kind: str, triggers: tuple[str, ...], regex: str, secret: Secret) -> _Rule:
    return _Rule(kind, triggers, re.compile(regex), secret, re.compile(regex, re.IGNORECASE))


_PLACEHOLDERS = frozenset(
    {"password", "passwd", "pass", "secret", "token", "changeme", "example", "redacted",
     "none", "null", "true", "false", "undefined", "required", "optional", "bearer"}
)  # fmt: skip
_CODE_PREFIXES = ("os.", "process.", "env.", "self.", "this.", "config.", "settings.")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][A-Za-z_$]{0,200}+(?:[.-][A-Za-z_$]{1,200}+){0,20}+")


def _placeholder(value: str) -> bool:
    v = value.lower()
    if v in _PLACEHOLDERS or v.startswith(("your", "<", "{", "$", "[redacted", "%", "(")):
        return True
    if v.isdigit() or len(set(v)) <= 2:
        return True  # MAX_TOKENS=4096, PASSWORD=******
    return "(" in v or "[" in v or v.startswith(_CODE_PREFIXES)


def _token_like(value: str) -> bool:
    """Has a digit, or is long and mixes letter cases: not an English word."""
    if _placeholder(value):
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


def _assigned(value: str) -> bool:
    if len(value) < 6 or _placeholder(value) or "://" in value:
        return False
    if value.startswith(("/", "./", "../", "~/")) or _code_name(value):
        return False
    if " " in value:  # a quoted phrase: a passphrase only when it has digits
        return _token_like(value)
    return _token_like(value) or len(value) >= 12


def _random(token: str) -> bool:
    """A provider key's random tail: digits and letters, mixed case or one long run."""
    if not any(c.isdigit() for c in token) or not any(c.isalpha() for c in token):
        return False
    if token.lower() != token and token.upper() != token:
        return True
    return max(len(run) for run in re.split(r"[_-]", token)) >= 32


def _whole(m: re.Match[str], text: str) -> Span:
    return m.span()


def _whole_if(accept: Callable[[str], bool]) -> Secret:
    return lambda m, text: m.span() if accept(text[m.start() : m.end()]) else None


def _group(accept: Callable[[str], bool] | None = None) -> Secret:
    def secret(m: re.Match[str], text: str) -> Span | None:
        start, end = m.span("v")
        return (start, end) if accept is None or accept(text[start:end]) else None

    return secret


def _at_token_start(literal: str) -> str:
    """`literal`, not preceded by a token character. The check follows the literal (as a
    lookbehind) so that the regex starts with a literal the engine can skip ahead to."""
    lit = re.escape(literal)
    return f"{lit}(?<![A-Za-z0-9_-]{lit})"


def _prefixed(
    kind: str,
    prefixes: tuple[str, ...],
    tail: str,
    accept: Callable[[str], bool] | None = None,
    triggers: tuple[str, ...] | None = None,
) -> _Rule:
    """A key that starts with one of `prefixes` at a token start; `tail` the rest (possessive)."""
    alternatives = "|".join(_at_token_start(p) for p in prefixes)
    pattern = re.compile(f"(?:{alternatives}){tail}")
    secret = _whole if accept is None else _whole_if(accept)
    return _Rule(kind, prefixes if triggers is None else triggers, pattern, secret)


# --- URL credentials ------------------------------------------------------------------------

_URL_RE = re.compile(r"://(?<=[A-Za-z0-9+.-]://)(?P<a>[^\s/?#\"'`<>\\]{3,}+)")


def _url_password(m: re.Match[str], text: str) -> Span | None:
    """The password of `scheme://user:password@host`: up to the *last* `@`, as URL parsers do."""
    authority = m.group("a")
    at = authority.rfind("@")
    colon = authority.find(":", 0, max(at, 0))
    if at < 1 or colon < 0 or at == len(authority) - 1 or colon + 1 == at:
        return None
    if _placeholder(authority[colon + 1 : at]):
        return None
    start = m.start("a")
    return start + colon + 1, start + at


# --- NAME = value assignments (detect-secrets' KeywordDetector, gitleaks' generic-api-key) --

_ASSIGNMENT = (
    r"(?:secret|token|pass|pwd|key)"
    r"(?P<rest>[A-Za-z0-9_.-]{0,64}+)"
    r"(?:\\?[\"'\]]){0,2}+"
    r"(?:(?P<op>[ \t]{0,8}+(?::=|=>|={1,3}|:(?!:))[ \t]{0,8}+)|[ \t]{1,4}+)"
    r"(?:\\?(?P<q>[\"'`])(?P<qv>[^\"'`\n\\]{1,200}+)\\?(?P=q)"
    r"|(?:\\?[\"'])?+(?P<v>[^\s\"'`,;\\)\]}>]++))"
)  # written in lower case: see `_case_blind`
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_WORD_RE = re.compile(r"[A-Z]{1,64}(?![a-z])|[A-Z]?[a-z]{1,64}+|[0-9]{1,64}+")
_SECRET_SUFFIXES = ("password", "passwd", "passphrase", "secret", "token")
_SECRET_WORDS = frozenset({"pass", "pwd", "apikey", "privatekey", "accesskey", "secretkey"})
_KEY_QUALIFIERS = frozenset(
    {"api", "private", "access", "secret", "auth", "client", "signing", "encryption", "master",
     "account", "service", "app", "license", "shared", "session", "webhook", "deploy", "admin"}
)  # fmt: skip
_NOT_SECRET_LAST = frozenset(
    {"url", "uri", "endpoint", "file", "path", "dir", "name", "names", "id", "ids", "type",
     "length", "len", "size", "count", "limit", "env", "var", "header", "field",
     "param", "prefix", "suffix", "format", "version", "hint", "policy", "expiry", "expires",
     "expiration", "ttl", "timeout", "kind", "label", "method", "mode", "scheme", "provider",
     "manager", "store", "service", "source", "helper", "class", "usage"}
)  # fmt: skip
_NOT_SECRET_WORDS = frozenset({"csrf", "xsrf", "public", "page", "next", "max", "min", "num"})


def _name_before(text: str, i: int) -> int:
    """Where the name that reaches position `i` starts (looking back at most 64 chars)."""
    stop = max(0, i - 64)
    while i > stop and text[i - 1] in _NAME_CHARS:
        i -= 1
    return i


def _secret_name(name: str) -> bool:
    """`DB_PASSWORD`, `githubToken`, `x-api-key`; not `TOKEN_URL`, `max_tokens`, `primary_key`."""
    words = [w.lower() for w in _WORD_RE.findall(name)]
    if not words or words[-1] in _NOT_SECRET_LAST or _NOT_SECRET_WORDS.intersection(words):
        return False
    for i, word in enumerate(words):
        if word in _SECRET_WORDS or word.endswith(_SECRET_SUFFIXES):
            return True
        if word == "key" and i > 0 and words[i - 1] in _KEY_QUALIFIERS:
            return True
    return False


def _assignment(m: re.Match[str], text: str) -> Span | None:
    start = _name_before(text, m.start())
    name = text[start : m.end("rest")]
    if m.group("op") is None and not name.startswith("-"):
        return None  # `NAME value` only for a command-line flag: `--password s3cr3t`
    span = m.span("qv") if m.group("qv") is not None else m.span("v")
    if not _secret_name(name) or not _assigned(text[span[0] : span[1]]):
        return None
    return span


# --- private keys ---------------------------------------------------------------------------

_KEY_HEAD_RE = re.compile(
    r"-{4,5} ?BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{4,5}"
    r"|(?P<putty>Private-Lines: ?\d{1,4})"
)
_KEY_END_RE = re.compile(r"-{4,5} ?END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_KEY_SPAN = 64 * 1024
_EOL = r"(?:\r?\n|\\r\\n|\\n)"
# A key cut off before its END line: the base64 (and `Name: value` armor) lines that follow.
_KEY_BODY_RE = re.compile(
    r"(?:[ \t]++[A-Za-z0-9+/=]++)*+"
    rf"(?:(?:[ \t]*+{_EOL})++[ \t]*+"
    r"(?:[A-Z][A-Za-z0-9-]{0,30}+:[ \t][^\n\\]{0,200}+|[A-Za-z0-9+/=]++)"
    rf"(?=[ \t]*+(?:{_EOL}|\Z)))*+"
)


def _private_keys(text: str) -> tuple[str, int]:
    """Replace whole private key blocks, or what is left of one that was cut off."""
    if "PRIVATE KEY" not in text and "Private-Lines:" not in text:
        return text, 0
    out: list[str] = []
    pos = 0
    end: re.Match[str] | None = None
    no_end_after = len(text) + 1  # no END line starts at or after this position
    nul = -1
    while (head := _KEY_HEAD_RE.search(text, pos)) is not None:
        stop = head.end()
        # Each search starts past the END line the previous one found: together they scan
        # the text once, however many headers there are.
        if end is not None and end.start() < stop:
            end = None
        if end is None and stop < no_end_after:
            end = _KEY_END_RE.search(text, stop)
            if end is None:
                no_end_after = stop
        if nul < stop:
            nul = text.find("\x00", stop)
            nul = len(text) if nul < 0 else nul
        if (
            head.group("putty") is None
            and end is not None
            and end.end() - head.start() <= _KEY_SPAN
            and end.start() < nul
        ):
            stop = end.end()
        else:
            body = _KEY_BODY_RE.match(text, stop)
            stop = body.end() if body else stop
        out += (text[pos : head.start()], "[REDACTED:private_key]")
        pos = stop
    if not out:
        return text, 0
    out.append(text[pos:])
    return "".join(out), len(out) // 2


# --- the rules, in order: specific kinds before the generic ones ----------------------------

_RULES: tuple[_Rule, ...] = (
    _prefixed("anthropic", ("sk-ant-",), r"[A-Za-z0-9_-]{20,}+"),
    _prefixed("openrouter", ("sk-or-v1-",), r"[A-Za-z0-9]{32,}+"),
    _prefixed("openai", ("sk-",), r"[A-Za-z0-9_-]{20,}+", _random),
    _Rule(
        "aws_access_key",
        (),
        re.compile(r"A(?<![A-Za-z0-9_]A)(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[0-9A-Z]{16}\b"),
        _whole,
    ),
    _prefixed("aws_bedrock", ("ABSK",), r"[A-Za-z0-9+/]{100,}+={0,2}"),
    _prefixed("github", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{36,}+", None, ()),
    _prefixed("github", ("github_pat_",), r"[A-Za-z0-9_]{22,}+"),
    _prefixed(
        "gitlab",
        tuple(f"gl{p}-" for p in ("pat", "dt", "ptt", "rt", "cbt", "ffct", "ft", "imt", "oas")),
        r"[A-Za-z0-9_-]{20,}+",
        triggers=(),
    ),
    _prefixed(
        "slack", (*(f"xox{c}-" for c in "abposre"), "xapp-"), r"[A-Za-z0-9-]{10,}+", None, ()
    ),
    _Rule(
        "webhook",
        ("hooks.slack.com/", "/api/webhooks/"),
        re.compile(
            r"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
            r"|discord(?:app)?\.com/api/webhooks/)(?P<v>[A-Za-z0-9+/_-]{20,}+)"
        ),
        _group(),
    ),
    _prefixed("google", ("AIza",), r"[A-Za-z0-9_-]{35}"),
    _prefixed("google", ("GOCSPX-",), r"[A-Za-z0-9_-]{20,}+"),
    _prefixed("google", ("ya29.",), r"[A-Za-z0-9_-]{20,}+"),
    _Rule(
        "azure",
        ("AccountKey=",),
        re.compile(r"AccountKey=(?P<v>[A-Za-z0-9+/=]{40,}+)"),
        _group(),
    ),
    _Rule(
        "azure",
        ("Q~",),
        re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,}+"),
        _whole,
    ),
    _prefixed(
        "stripe",
        tuple(f"{a}_{b}_" for a in ("sk", "rk") for b in ("live", "test", "prod")),
        r"[A-Za-z0-9]{10,}+",
        triggers=("k_live_", "k_test_", "k_prod_"),
    ),
    _prefixed("stripe", ("whsec_",), r"[A-Za-z0-9]{24,}+"),
    _prefixed("huggingface", ("hf_", "api_org_"), r"[A-Za-z0-9]{30,}+"),
    _prefixed("npm", ("npm_",), r"[A-Za-z0-9]{36,}+"),
    _prefixed("sendgrid", ("SG.",), r"[A-Za-z0-9_-]{16,32}+\.[A-Za-z0-9_-]{16,64}+"),
    _prefixed("pypi", ("pypi-AgE",), r"[A-Za-z0-9_-]{50,}+"),
    _prefixed("groq", ("gsk_",), r"[A-Za-z0-9]{48,}+"),
    _prefixed("xai", ("xai-",), r"[A-Za-z0-9]{48,}+"),
    _prefixed("perplexity", ("pplx-",), r"[A-Za-z0-9]{40,}+"),
    _prefixed("replicate", ("r8_",), r"[A-Za-z0-9]{30,}+"),
    _prefixed("age", ("AGE-SECRET-KEY-1",), r"[0-9A-Z]{50,}+"),
    _case_blind(
        "aws_secret",
        ("aws_secret_access_key",),
        r"aws_secret_access_key[\"']?[ \t]{0,8}+[=:][ \t]{0,8}+[\"']?(?P<v>[A-Za-z0-9/+=]{40})",
        _group(),
    ),
    _case_blind(
        "authorization",
        ("authorization",),
        r"authorization(?:\\?[\"'])?+[ \t]{0,8}+[:=][ \t]{0,8}+(?:\\?[\"'])?+"
        r"(?:(?:basic|bearer|token|bot|digest)[ \t]{1,8}+)?(?P<v>[^\s\"'\[\]\\]{8,}+)",
        _group(_token_like),
    ),
    _case_blind(
        "bearer",
        ("bearer",),
        r"bearer[ \t]{1,8}+(?P<v>[A-Za-z0-9._~+/=-]{16,}+)",
        _group(_token_like),
    ),
    _Rule(
        "jwt",
        ("eyJ",),
        re.compile(
            _at_token_start("eyJ") + r"[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+"
        ),
        _whole,
    ),
    _Rule("password", ("://",), _URL_RE, _url_password),
    _Rule(
        "password",
        ("-u", "--user"),
        re.compile(
            rf"(?:{_at_token_start('-u')}|{_at_token_start('--user')})(?:[ \t]{{1,4}}+|=)[\"']?"
            r"[^\s:\"']{0,64}+:(?P<v>[^\s\"']{1,200}+)"
        ),
        _group(lambda v: not _placeholder(v)),
    ),
    _case_blind("secret", ("secret", "token", "pass", "pwd", "key"), _ASSIGNMENT, _assignment),
)

KINDS = frozenset({"private_key", *(rule.kind for rule in _RULES)})


# Every trigger, for one early look: most texts (tool lines, titles) hold none, and then
# no rule needs a look of its own.
_EXACT_TRIGGERS = tuple({t for r in _RULES if r.folded is None for t in r.triggers})
_FOLDED_TRIGGERS = tuple({t for r in _RULES if r.folded is not None for t in r.triggers})


def _apply(rule: _Rule, text: str, hay: str) -> tuple[str, int]:
    """Redact what `rule` finds in `hay` (the text, or its lower-cased twin of equal length)."""
    pattern = rule.pattern
    if rule.folded is not None and len(hay) != len(text):
        pattern, hay = rule.folded, text
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(hay):
        span = rule.secret(m, text)
        if span is not None:
            out += (text[pos : span[0]], f"{MARKER}{rule.kind}]")
            pos = span[1]
    if not out:
        return text, 0
    out.append(text[pos:])
    return "".join(out), len(out) // 2


def redact(text: str) -> tuple[str, int]:
    """Replace secrets with `[REDACTED:<kind>]`; returns the new text and how many."""
    if not text:
        return text, 0
    text, count = _private_keys(text)
    # Redaction only takes text away (markers hold no secret): a trigger missing now stays so.
    exact = any(t in text for t in _EXACT_TRIGGERS)
    first_low = text.lower()
    folded = any(t in first_low for t in _FOLDED_TRIGGERS)
    low: str | None = first_low
    for rule in _RULES:
        if rule.folded is not None:
            if not folded:
                continue
            if low is None:
                low = text.lower()
            hay = low
        else:
            if rule.triggers and not exact:
                continue
            hay = text
        if rule.triggers and not any(t in hay for t in rule.triggers):
            continue
        text, n = _apply(rule, text, hay)
        if n:
            count += n
            low = None
    return text, count
