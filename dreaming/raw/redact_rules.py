"""The redaction rules: what each kind of secret looks like, specific kinds before generic.

The rules port gitleaks' rule list (provider key shapes) and detect-secrets' keyword
detector (`NAME = value` assignments) to the kinds a chat transcript holds; see
docs/formats.md. Each rule is anchored on a prefix a provider puts on its keys, on a key
*name* (`Bearer`, `Authorization:`, `…_PASSWORD=`), or on a shape judged by its
characters (`redact_judge`), so prose, UUIDs, git SHAs and ordinary base64 do not match.

A key is found wherever it starts, even glued to what is before it: after a JSON escape
(`"…\\nghp_…"`), an encoded quote (`%22`), a digit, `_` or `-`. Only prefixes short or
common enough to start a word (`sk-`, `hf_`, `key-`) still need no letter before them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from dreaming.raw import redact_judge as judge
from dreaming.raw.redact_judge import Secret


@dataclass(frozen=True)
class Rule:
    kind: str
    triggers: tuple[str, ...]
    """Substrings, one of which must be in the text (lower-cased when `folded`); none where
    the regex, starting at a rare literal, is cheaper than looking for each of them."""
    pattern: re.Pattern[str]
    secret: Secret
    folded: re.Pattern[str] | None = None
    """For a case-blind rule, `pattern` (written in lower case) runs on the lower-cased text,
    4x faster than `(?i)`; this IGNORECASE twin runs where lower-casing changes lengths."""
    can_match: Callable[[str], bool] | None = None
    """For a rule with no trigger: a test, much cheaper than the regex, that is false only
    where the regex cannot match."""


_TOKEN_BYTES = bytes.maketrans(
    bytes(range(256)),
    bytes(b"a"[0] if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "/+") else b" "[0]
          for b in range(256)),
)  # fmt: skip
_AWS_RUN = b"a" * 40


def _has_aws_run(text: str) -> bool:
    """Whether `text` holds 40 characters of `[A-Za-z0-9/+]` in a row: a byte table
    run over its UTF-8 (every non-ASCII byte is no such character), 10x faster than
    the regex looking at every position. Most texts have no such run."""
    return _AWS_RUN in text.encode("utf-8", "surrogatepass").translate(_TOKEN_BYTES)


def _case_blind(kind: str, triggers: tuple[str, ...], regex: str, secret: Secret) -> Rule:
    return Rule(kind, triggers, re.compile(regex), secret, re.compile(regex, re.IGNORECASE))


def _word_start(literal: str) -> str:
    """`literal`, not preceded by a letter unless that letter ends an escape (`\\n`) or
    an encoded character (`%2F`). The checks follow the literal (as lookbehinds) so that
    the regex starts with a literal the engine can skip ahead to."""
    lit = re.escape(literal)
    return f"{lit}(?:(?<![A-Za-z]{lit})|(?<=\\\\[nrt]{lit})|(?<=%[0-9A-Fa-f]{{2}}{lit}))"


_BREAK = r"(?:\r?\n|\\n)"
_WRAP_CHARS = 64


def _prefixed(
    kind: str,
    prefixes: tuple[str, ...],
    chars: str,
    least: int,
    *,
    accept: Callable[[str], bool] | None = None,
    most: int | None = None,
    word: bool = False,
    triggers: tuple[str, ...] | None = None,
) -> Rule:
    """A key: one of `prefixes`, then `least` to `most` of `chars`. Anywhere, or at a
    word start (`word`) for a prefix that could end an ordinary word. A key shorter than
    `least` whose line ends in the middle of it continues on the next line."""
    alternatives = "|".join(_word_start(p) if word else re.escape(p) for p in prefixes)
    if most is not None:
        pattern = re.compile(f"(?:{alternatives}){chars}{{{least},{most}}}+(?![A-Za-z0-9])")
        secret = judge.whole if accept is None else judge.whole_if(accept)
    else:
        wrap = f"(?=(?P<c>{_BREAK}{chars}{{1,{_WRAP_CHARS}}}+)|)"
        pattern = re.compile(f"(?:{alternatives})(?P<t>{chars}{{1,}}+){wrap}")
        secret = judge.wrapped(least, accept)
    return Rule(kind, prefixes if triggers is None else triggers, pattern, secret)


# --- NAME = value assignments ----------------------------------------------------------------

# The value is looked at, not taken (a lookahead, bounded): when the name is not a
# secret's, a secret's name inside the value (`?token_type=x&client_secret=…`) is still
# found. A value cut at the bound is taken whole by `judge.assignment`.
_ASSIGNMENT = (
    r"(?:secret|token|pass|pwd|key)"
    r"(?P<rest>[A-Za-z0-9_.-]{0,64}+)"
    r"(?:\\?[\"'\]]){0,2}+"
    r"(?:(?P<op>[ \t]{0,8}+(?::=|=>|={1,3}|:(?!:))[ \t]{0,8}+)|[ \t]{1,4}+)"
    r"(?=\\?(?P<q>[\"'`])(?P<qv>[^\"'`\n\\]{1,200}+)\\?(?P=q)"
    r"|(?:\\?[\"'])?+(?P<v>[^\s\"'`,;\\)\]}>&]{1,200}+))"
)  # written in lower case: see `_case_blind`

_ARG = r"[ \t]++(?!-{flag})[^\s|;&]{{1,256}}+"
_PASSWORD_ARG = r"(?P<v>[^\s|;&]{1,256}+)"


def _command(kind: str, command: str, flag: str, glued: bool, triggers: tuple[str, ...]) -> Rule:
    """A password given on a command line: `command … -FLAG PW` (`-FLAGPW` when glued:
    `mysql -pPW`, where `-p PW` asks for one and PW is the database)."""
    space = "" if glued else "[ \t]*+"
    regex = f"{command}(?![A-Za-z0-9_.-])(?:{_ARG.format(flag=flag)}){{0,16}}+[ \t]++-{flag}{space}"
    return Rule(kind, triggers, re.compile(regex + _PASSWORD_ARG), judge.command_password)


# --- the rules, in order: specific kinds before the generic ones ----------------------------

_B64 = "[A-Za-z0-9+/]"
_ALNUM = "[A-Za-z0-9]"
_ALNUM_ = "[A-Za-z0-9_-]"

RULES: tuple[Rule, ...] = (
    _prefixed("anthropic", ("sk-ant-",), _ALNUM_, 20),
    _prefixed("openrouter", ("sk-or-v1-",), _ALNUM, 32),
    _prefixed("openai", ("sk-",), _ALNUM_, 20, accept=judge.random_tail, word=True),
    Rule(
        "aws_access_key",
        (),
        re.compile(
            r"A(?:(?<![A-Za-z]A)|(?<=\\[nrt]A)|(?<=%[0-9A-Fa-f]{2}A))"
            r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[0-9A-Z]{16}(?![A-Za-z0-9])"
        ),
        judge.whole,
    ),
    _prefixed("aws_bedrock", ("ABSK",), _B64, 100, word=True),
    _prefixed("github", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _ALNUM, 36, triggers=()),
    _prefixed("github", ("github_pat_",), "[A-Za-z0-9_]", 22),
    _prefixed(
        "gitlab",
        tuple(f"gl{p}-" for p in ("pat", "dt", "ptt", "rt", "cbt", "ffct", "ft", "imt", "oas")),
        _ALNUM_,
        20,
        triggers=(),
    ),
    _prefixed(
        "slack", (*(f"xox{c}-" for c in "abposre"), "xapp-"), "[A-Za-z0-9-]", 10, triggers=()
    ),
    Rule(
        "webhook",
        ("hooks.slack.com/", "/api/webhooks/"),
        re.compile(
            r"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
            r"|discord(?:app)?\.com/api/webhooks/)(?P<v>[A-Za-z0-9+/_-]{20,}+)"
        ),
        judge.group(),
    ),
    _prefixed("google", ("AIza",), _ALNUM_, 35),
    _prefixed("google", ("GOCSPX-",), _ALNUM_, 20),
    _prefixed("google", ("ya29.",), _ALNUM_, 20),
    Rule(
        "azure",
        ("AccountKey=", "SharedAccessKey="),
        re.compile(r"(?:AccountKey|SharedAccessKey)=(?P<v>[A-Za-z0-9+/=]{40,}+)"),
        judge.group(),
    ),
    Rule(
        "azure",
        ("sig=",),
        re.compile(r"sig=(?<=[?&;6]sig=)(?P<v>[A-Za-z0-9%+/=_-]{16,}+)"),
        judge.group(judge.has_digit),
    ),
    Rule(
        "azure",
        ("Q~",),
        re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,}+"),
        judge.whole,
    ),
    _prefixed(
        "stripe",
        tuple(f"{a}_{b}_" for a in ("sk", "rk") for b in ("live", "test", "prod")),
        _ALNUM,
        10,
        triggers=("k_live_", "k_test_", "k_prod_"),
    ),
    _prefixed("stripe", ("whsec_",), _ALNUM, 24),
    _prefixed("huggingface", ("hf_", "api_org_"), _ALNUM, 30, word=True),
    _prefixed("npm", ("npm_",), _ALNUM, 36, word=True),
    Rule(
        "sendgrid",
        ("SG.",),
        re.compile(_word_start("SG.") + r"[A-Za-z0-9_-]{16,32}+\.[A-Za-z0-9_-]{16,64}+"),
        judge.whole,
    ),
    _prefixed("pypi", ("pypi-AgE",), _ALNUM_, 50),
    _prefixed("groq", ("gsk_",), _ALNUM, 48, word=True),
    _prefixed("xai", ("xai-",), _ALNUM, 48, word=True),
    _prefixed("perplexity", ("pplx-",), _ALNUM, 40, word=True),
    _prefixed("replicate", ("r8_",), _ALNUM, 30, word=True),
    _prefixed("age", ("AGE-SECRET-KEY-1",), "[0-9A-Z]", 50),
    # `SK` is in many words (TASK, SKIP): as a trigger it would send every text to every rule.
    _prefixed(
        "twilio",
        ("SK",),
        "[0-9a-fA-F]",
        32,
        most=32,
        word=True,
        accept=judge.random_tail,
        triggers=(),
    ),
    _prefixed(
        "mailgun", ("key-", "pubkey-"), "[0-9a-z]", 32, most=32, word=True, accept=judge.has_digit
    ),
    Rule(
        "telegram",
        (":A",),
        re.compile(r":(?<=[0-9]{5}:)(?P<v>A[A-Za-z0-9_-]{34})(?![A-Za-z0-9_-])"),
        judge.group(),
    ),
    _case_blind(
        "aws_secret",
        ("aws_secret_access_key",),
        r"aws_secret_access_key[\"']?[ \t]{0,8}+[=:][ \t]{0,8}+[\"']?(?P<v>[A-Za-z0-9/+=]{40})",
        judge.group(),
    ),
    Rule(
        "aws_secret",
        (),
        re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40,}+(?![A-Za-z0-9/+=])"),
        judge.aws_secret,
        can_match=_has_aws_run,
    ),
    _case_blind(
        "authorization",
        ("authorization",),
        r"authorization(?:\\?[\"'])?+[ \t]{0,8}+[:=][ \t]{0,8}+(?:\\?[\"'])?+"
        r"(?:(?:basic|bearer|token|bot|digest)[ \t]{1,8}+)?(?P<v>[^\s\"'\[\]\\]{8,}+)",
        judge.group(judge.token_like),
    ),
    _case_blind(
        "bearer",
        ("bearer",),
        r"bearer[ \t]{1,8}+(?P<v>[A-Za-z0-9._~+/=-]{16,}+)",
        judge.group(judge.token_like),
    ),
    Rule(
        "jwt",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+"),
        judge.whole,
    ),
    Rule(
        "card",
        (),
        # Never inside a word (a hex name's digits), but right after an escape (`\n`).
        re.compile(
            r"[2-6](?:(?<![0-9A-Za-z][2-6])|(?<=\\[nrt][2-6]))[0-9](?:[ -]?+[0-9]){11,17}+"
            r"(?![0-9A-Za-z])"
        ),
        judge.card,
    ),
    Rule("password", ("://",), re.compile(r"://(?<=[A-Za-z0-9+.-]://)"), judge.url_password),
    Rule(
        "password",
        ("-u", "--user"),
        re.compile(
            rf"(?:{_word_start('-u')}|{_word_start('--user')})(?:[ \t]{{1,4}}+|=)[\"']?"
            r"[^\s:\"']{0,64}+:(?P<v>[^\s\"']{1,200}+)"
        ),
        judge.group(lambda v: not judge.placeholder(v)),
    ),
    _command("password", "sshpass", "p", False, ("sshpass",)),
    _command("password", "(?:mysql|mysqldump|mysqladmin|mariadb)", "p", True, ("mysql", "mariadb")),
    _command(
        "password",
        r"(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]registry)[ \t]++login",
        "p",
        False,
        ("docker", "podman", "buildah", "skopeo", "nerdctl", "oras", "helm"),
    ),
    _command("password", "redis-cli", "a", False, ("redis-cli",)),
    _case_blind(
        "session_cookie",
        ("sess", "sid="),
        r"(?:sess|sid)(?P<rest>[a-z0-9_.-]{0,32}+)=(?P<v>[^;\s\"'&,]{1,4096}+)",
        judge.session_cookie,
    ),
    _case_blind("secret", ("secret", "token", "pass", "pwd", "key"), _ASSIGNMENT, judge.assignment),
)
