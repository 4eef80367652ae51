"""Secret shapes issue 21 found stored in the clear, and their siblings (none are real)."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.raw.redact import redact
from dreaming.raw.redact_rules import _has_aws_run
from tests.planted_secrets import (
    AWS_EXAMPLE,
    AWS_SECRET,
    ESCAPED,
    GHP,
    JWT,
    NEW_KINDS,
    QUERY_SECRETS,
    URL_PASSWORDS,
)
from tests.support import draws


def _gone(kind: str, text: str, value: str) -> str:
    out, n = redact(text)
    assert value not in out, out
    assert f"[REDACTED:{kind}]" in out, out
    assert n >= 1
    return out


# --- a URL password holding an unencoded `#`, `/` or `?` ---------------------------------


@pytest.mark.parametrize(("kind", "text", "value"), URL_PASSWORDS)
def test_a_url_password_with_a_hash_slash_or_question_mark_is_redacted(
    kind: str, text: str, value: str
) -> None:
    _gone(kind, text, value)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (
            "postgres://admin:P@ss#word@db.internal:5432/prod",
            "postgres://admin:{}@db.internal:5432/prod",
        ),
        (
            "mongodb://root:pw/with/slash@mongo.internal/admin",
            "mongodb://root:{}@mongo.internal/admin",
        ),
        ("amqp://guest:pw?q9@rabbit.internal:5672/", "amqp://guest:{}@rabbit.internal:5672/"),
        ("redis://:a#b/c?d9@cache:6379/0", "redis://:{}@cache:6379/0"),
        ("https://u:p9x@host/path?next=a@b", "https://u:{}@host/path?next=a@b"),
    ],
)
def test_a_url_password_goes_but_user_host_and_path_stay(url: str, kept: str) -> None:
    assert redact(url) == (kept.format("[REDACTED:password]"), 1)


@pytest.mark.parametrize(
    "text",
    [
        "see http://localhost:8080/x@y and https://example.com:443/a?b=c@d",
        "https://host/path#frag@x and ssh://git@github.com:22/repo",
        "https://example.com/a:b@c",
    ],
)
def test_a_port_or_a_path_with_an_at_sign_is_not_a_password(text: str) -> None:
    assert redact(text) == (text, 0)


# --- a secret after a harmless parameter -------------------------------------------------


@pytest.mark.parametrize(("kind", "text", "value"), QUERY_SECRETS)
def test_a_secret_after_a_harmless_query_parameter_is_redacted(
    kind: str, text: str, value: str
) -> None:
    _gone(kind, text, value)


@pytest.mark.parametrize(
    "text",
    [
        "curl 'https://api.example.com/v1?max_tokens=4096&api_key=Zx9Qw2Er7Ty1Ui8Op3'",
        "TOKEN_URL=https://auth.example.com/cb?password=Zx9Qw2Er7Ty1Ui8Op3",
        "token_type=bearer&access_token=Zx9Qw2Er7Ty1Ui8Op3",
        "key_name=prod password=Zx9Qw2Er7Ty1Ui8Op3",
    ],
)
def test_a_secret_after_a_rejected_name_is_still_found(text: str) -> None:
    _gone("secret", text, "Zx9Qw2Er7Ty1Ui8Op3")


# --- a key right after an escape, an encoded quote or a token character ------------------

PREFIXED = [
    ("github", GHP),
    ("jwt", JWT),
    ("gitlab", "glpat-" + "x9Yz8Wv7Ut6Sr5Qp4On3"),
    ("slack", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("google", "AIza" + "SyD4k9Qw2Er7Ty1Ui8Op3As6Df0Gh5Jk2Lz"),
    ("stripe", "sk_live_" + "51HqR2KLmN0pQrStUvWxYz12"),
    ("anthropic", "sk-ant-api03-" + "Zq7VtK2mW9xR4bN8cL1pD6fH3jS5gA0eY-AA"),
    ("openai", "sk-proj-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zQ"),
    ("aws_access_key", "AKIA" + "Q3EGRJ7ZLMNOP4XY"),
    ("huggingface", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    ("npm", "npm_" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"),
]
BEFORE = ["\\n", "\\t", "\\r", "7", "_", "-", "%22", "%27", "%3D", "\\u0022"]


@pytest.mark.parametrize(("kind", "text", "value"), ESCAPED)
def test_a_key_after_a_literal_escape_or_an_encoded_quote_is_redacted(
    kind: str, text: str, value: str
) -> None:
    _gone(kind, text, value)


@pytest.mark.parametrize("before", BEFORE)
@pytest.mark.parametrize(("kind", "key"), PREFIXED)
def test_a_key_after_any_escape_or_token_character_is_redacted(
    kind: str, key: str, before: str
) -> None:
    _gone(kind, f'"note{before}{key}"', key[-12:])


@pytest.mark.parametrize(("kind", "key"), [p for p in PREFIXED if p[0] in ("github", "google")])
@pytest.mark.parametrize("newline", ["\n", "\\n"])
def test_a_key_wrapped_across_two_lines_is_redacted_whole(
    kind: str, key: str, newline: str
) -> None:
    half = len(key) // 2
    out = _gone(kind, f"key: {key[:half]}{newline}{key[half:]}\nnext line", key[half:])
    assert key[4:half] not in out
    assert out.endswith("next line")


# --- an AWS secret access key with no label ----------------------------------------------


@pytest.mark.parametrize("key", [AWS_SECRET, AWS_EXAMPLE])
def test_a_bare_aws_secret_access_key_is_redacted(key: str) -> None:
    assert redact(f"the secret key is {key} ok") == (
        "the secret key is [REDACTED:aws_secret] ok",
        1,
    )


def test_nearly_every_random_40_character_base64_key_is_redacted() -> None:
    """The judgment is statistical (docs/formats.md): of keys drawn as AWS draws them,
    at most 1 in 200 may pass for a name."""
    rnd = random.Random(21)
    alphabet = string.ascii_letters + string.digits + "+/"
    keys = ["".join(rnd.choice(alphabet) for _ in range(40)) for _ in range(4000)]
    keys = [k for k in keys if any(c.isdigit() for c in k) and k.lower() != k != k.upper()]
    kept = [k for k in keys if k in redact(f"aws {k} x")[0]]
    assert len(kept) <= len(keys) // 200, kept[:5]


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2b1c0d9e8a7f6b5c4d3e2f1a0b9c8d7e6f5a4b fixed it",
        "COMMIT 3F2B1C0D9E8A7F6B5C4D3E2F1A0B9C8D7E6F5A4B",
        "getUserAccountSettingsFromRemoteServer12",
        "src/components/HeaderButton/Controller12",
        "usr/local/lib/python3/site/packages/foo12",
        "ThisIsAVeryLongCamelCaseIdentifierName12",
        "sha512 z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfu"
        "wvY7kxvUdBeoGlODJ6+SfaPg==",
    ],
)
def test_git_shas_paths_and_identifiers_of_40_characters_survive(text: str) -> None:
    assert redact(text) == (text, 0)


@settings(max_examples=draws(200), deadline=None)
@given(st.text(alphabet="0123456789abcdef", min_size=40, max_size=40))
def test_no_git_sha_is_taken_for_an_aws_secret(sha: str) -> None:
    text = f"git show {sha}"
    assert redact(text) == (text, 0)


AWS_RUN = re.compile(r"[A-Za-z0-9/+]{40}")
NEAR_RUNS = st.lists(
    st.tuples(
        st.text(alphabet="aZ09/+", min_size=36, max_size=44),
        st.sampled_from(["", " ", "=", "-", "_", "é", "\U0001f600", "\ud800"]),
    ),
    max_size=3,
).map(lambda parts: "".join(run + sep for run, sep in parts))


@settings(max_examples=draws(300))
@given(NEAR_RUNS | st.text())
def test_the_bare_aws_rule_is_skipped_only_where_its_regex_finds_no_run(text: str) -> None:
    assert _has_aws_run(text) == (AWS_RUN.search(text) is not None)


def test_digits_inside_a_hex_name_are_no_card() -> None:
    # Hypothesis found it: 16 Luhn-valid digits between two hex letters of a git SHA.
    text = "git show 000000000000000a6475152740518198a0000000"
    assert redact(text) == (text, 0)


# --- kinds the rules did not cover -------------------------------------------------------


@pytest.mark.parametrize(("kind", "text", "value"), NEW_KINDS)
def test_a_kind_not_covered_before_is_redacted(kind: str, text: str, value: str) -> None:
    _gone(kind, text, value)


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("password", "sshpass -p'Hq7rT2vX9w' scp a host:", "Hq7rT2vX9w"),
        ("password", "mysqldump -h db -uroot -pHq7rT2vX9w prod > x.sql", "Hq7rT2vX9w"),
        ("password", "podman login --username ada -p Hq7rT2vX9w quay.io", "Hq7rT2vX9w"),
        ("password", "redis-cli -h cache -a Hq7rT2vX9w ping", "Hq7rT2vX9w"),
        (
            "azure",
            "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=" + "Zm9vYmFyYmF6cXV4" * 3,
            "Zm9vYmFyYmF6",
        ),
        ("mailgun", "pubkey-" + "3ax6xnjp29jd6fds4gc373sgvjxteol0", "3ax6xnjp29jd"),
        (
            "telegram",
            "https://api.telegram.org/bot1234567890:" + "AAFx9Kq2Lm7Pz4Wb8Rt3Vn6Hc1Jd5Gf0SaQ/getMe",
            "x9Kq2Lm7Pz4W",
        ),
        (
            "session_cookie",
            "Set-Cookie: connect.sid=s%3A" + "k2x9Qw7Er1Ty5Ui3Op8As6Df; Path=/",
            "k2x9Qw7Er1Ty",
        ),
        (
            "session_cookie",
            "curl -b 'PHPSESSID=" + "9f8e7d6c5b4a39281716abcd' https://x",
            "9f8e7d6c5b4a",
        ),
        ("card", "card 5555555555554444 declined", "5555555555554444"),
        ("card", "amex 3782-822463-10005", "822463"),
        ("secret", '{"password": "' + 'sunshine"}', "sunshine"),
        ("secret", "DB_PASS=" + "letmein", "letmein"),
        ("secret", "mysql --password " + "sunshine", "sunshine"),
        (
            "secret",
            "PresharedKey = " + "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy4w=",
            "Zm9vYmFyYmF6",
        ),
    ],
)
def test_siblings_of_the_new_kinds_are_redacted(kind: str, text: str, value: str) -> None:
    _gone(kind, text, value)


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112 is not valid",
        "order 1712345678901234 shipped",
        "call 555-123-4567 or 0044 20 7946 0958",
        "password: string;",
        "password=password",
        "the password: use one you can remember",
        "docker run -p 8080:80 nginx",
        "mysql -p prod",
        "the key-value store keeps 32 entries",
        "SKU SK12 in stock",
        "time 12:34:56 and ratio 16:9",
        "Cookie: theme=dark; lang=en",
        "session_timeout=3600",
        "sig=1 in the formula",
    ],
)
def test_lookalikes_of_the_new_kinds_survive(text: str) -> None:
    assert redact(text) == (text, 0)
