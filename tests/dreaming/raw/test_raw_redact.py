"""Secret redaction, with secrets planted by these tests (none are real)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.raw import read_transcript
from dreaming.raw.common import KEY_ARG_CHARS, TITLE_CHARS, shorten, title_from, tool_call
from dreaming.raw.redact import KINDS, redact
from dreaming.transcript import Message
from tests.support import REPO, draws

# Built from pieces so this file itself never holds a scannable key.
A40 = "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1"
SECRETS = [
    ("openai", "sk-" + "Zr4T9qLm2Xv8Bn6Kc1Wd5Hs3Jf7Gp0Ay" + "Qe2Ru4Ti"),
    ("openai", "sk-proj-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z_-Q"),
    ("anthropic", "sk-ant-api03-" + "Zq7VtK2mW9xR4bN8cL1pD6fH3jS5gA0eY-AA"),
    ("aws_access_key", "AKIA" + "Q3EGRJ7ZLMNOP4XY"),
    ("aws_access_key", "ASIA" + "Y7RT2K9QWER5TYU1"),
    ("github", "ghp_" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX"),
    ("github", "gho_" + "9zY8xW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC"),
    ("github", "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("gitlab", "glpat-" + "x9Yz8Wv7Ut6Sr5Qp4On3"),
    ("slack", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack", "xoxp-" + "1111111111-2222222222-abcdef"),
    ("google", "AIza" + "SyD4k9Qw2Er7Ty1Ui8Op3As6Df0Gh5Jk2Lz"),
    ("stripe", "sk_live_" + "51HqR2KLmN0pQrStUvWxYz12"),
    ("stripe", "rk_live_" + "51HqR2KLmN0pQrStUvWxYz34"),
    ("huggingface", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_provider_keys(kind: str, secret: str) -> None:
    text = f"use this: {secret} and tell me if it works"
    out, n = redact(text)
    assert n == 1
    assert out == f"use this: [REDACTED:{kind}] and tell me if it works"


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_keys_inside_code_and_quotes(kind: str, secret: str) -> None:
    out, n = redact(f'client = Client(api_key="{secret}")')
    assert n == 1
    assert secret not in out


def test_aws_secret_access_key_keeps_the_name() -> None:
    for line in (f"aws_secret_access_key = {A40}", f'"aws_secret_access_key": "{A40}"'):
        out, n = redact(line)
        assert n == 1
        assert A40 not in out
        assert "aws_secret_access_key" in out
        assert "[REDACTED:aws_secret]" in out


def test_bearer_and_authorization_headers() -> None:
    jwt = (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    )
    out, n = redact(f"curl -H 'Authorization: Bearer {jwt}' https://api.example.com")
    assert n == 1
    assert jwt not in out
    assert "Authorization: Bearer [REDACTED:authorization]" in out
    out, n = redact(f"Bearer {jwt}")
    assert (out, n) == ("Bearer [REDACTED:bearer]", 1)
    out, n = redact("Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==")
    assert (out, n) == ("Authorization: Basic [REDACTED:authorization]", 1)
    out, n = redact("authorization: token 9f8e7d6c5b4a39281716")
    assert n == 1
    assert "9f8e7d6c5b4a39281716" not in out


def test_private_key_block() -> None:
    block = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACDk2V0aGVyZWFsa2V5bm90cmVhbGtleW5vdHJlYWxrZXkAAAA=\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    out, n = redact(f"here:\n{block}\nthanks")
    assert (out, n) == ("here:\n[REDACTED:private_key]\nthanks", 1)
    out, n = redact("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nQ2x")  # cut off
    assert out == "[REDACTED:private_key]"
    assert n == 1


def test_password_in_url_keeps_user_and_host() -> None:
    out, n = redact("DATABASE_URL=postgres://app:s3cr3tPa55@db.internal:5432/prod")
    assert n == 1
    assert out == "DATABASE_URL=postgres://app:[REDACTED:password]@db.internal:5432/prod"
    out, n = redact("git clone https://ada:hunter22@git.example.com/repo.git")
    assert out == "git clone https://ada:[REDACTED:password]@git.example.com/repo.git"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("DB_PASSWORD=hunter22", "hunter22"),
        ("export GITHUB_TOKEN='tok_9a8b7c6d5e'", "tok_9a8b7c6d5e"),
        ('SECRET_KEY = "django-insecure-4x9!k2"', "django-insecure-4x9!k2"),
        ("MY_API_KEY: abcdef123456", "abcdef123456"),
        ("OPENAI_API_KEY=proxy-key-1234", "proxy-key-1234"),
        ("private_key = 'correcthorsebatterystaple'", "correcthorsebatterystaple"),
        ("  client_secret: Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4"),
        ('"passwd": "t0ps3cret",', "t0ps3cret"),
    ],
)
def test_env_style_assignments(line: str, value: str) -> None:
    out, n = redact(f"my config:\n{line}\nend")
    assert n == 1, out
    assert value not in out
    assert "[REDACTED:secret]" in out
    assert out.startswith("my config:\n")
    assert out.endswith("\nend")


NOT_SECRETS = [
    "The quick brown fox jumps over the lazy dog, then asks for a token of appreciation.",
    "session 7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b resumed",
    "commit 3f2b1c0d9e8a7f6b5c4d3e2f1a0b9c8d7e6f5a4b fixed it",
    "img = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQ"
    "GAhKmMIQAAAABJRU5ErkJggg=='",
    "MAX_TOKENS=4096",
    "TOKENIZER_PATH=/models/tokenizer.json",
    "PASSWORD_MIN_LENGTH=12",
    "password = request.form['password']",
    "DB_PASSWORD=${DB_PASSWORD}",
    "API_KEY=<your-api-key>",
    "SECRET_KEY=changeme",
    "token = get_token()",
    "Use a Bearer token in the Authorization header.",
    "Authorization: required for every call",
    'headers = {"Authorization": f"Bearer {token}"}',
    "postgres://user:password@localhost/db",
    "see https://example.com/path?q=1 and http://localhost:8080/x@y",
    "the task-specific risk-assessment-framework-for-teams doc",
    "pip install scikit-learn && python -m sk-learn-helper",
    "ask-for-help ghp_short xoxo hf_hub_download(repo_id)",
    "git@github.com:daaain/online-llm-tokenizer.git",
    "const ASIA_REGION = 'ap-south-1' // AKIA prefix explained",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_no_false_positives(text: str) -> None:
    assert redact(text) == (text, 0)


def test_counts_several_and_is_idempotent() -> None:
    text = f"{SECRETS[0][1]} then {SECRETS[5][1]}\nDB_PASSWORD=hunter22\n"
    once, n = redact(text)
    assert n == 3
    assert redact(once) == (once, 0)


def test_every_kind_is_documented() -> None:
    docs = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Secrets") :]
    assert [kind for kind in sorted(KINDS) if f"`{kind}`" not in section] == []


def test_redaction_is_applied_by_read_transcript(tmp_path: Path) -> None:
    note = (
        "---\ntitle: keys " + SECRETS[3][1] + "\n---\n"
        "## user\nMy key is " + SECRETS[2][1] + "\n\n## assistant\nRotate it now.\n"
    )
    result = read_transcript(tmp_path / "n.md", note.encode())
    [conv] = result.conversations
    assert result.redactions == 2
    assert conv.title == "keys [REDACTED:aws_access_key]"
    assert conv.messages[0].text == "My key is [REDACTED:anthropic]"


def test_fast_on_a_megabyte_of_prose() -> None:
    text = (
        "Tokens and passwords are discussed here, see https://example.com/docs. " * 15 + "\n"
    ) * 1000
    start = time.perf_counter()
    _, n = redact(text)
    assert n == 0
    assert time.perf_counter() - start < 0.5


# --- kinds the first rule set missed (issue 6) and their siblings -------------------------

JWT = (
    "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
PGP_BLOCK = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n"
    "Version: GnuPG v2\n\n"
    "lQOYBF0nZ9YBCADVxZ3mHk2eJx9rT8wq4p7sA1yJ0bLfW2kQ6mN8vC3dE5gH7iJ9\n"
    "kL1mN3oP5qR7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1qR3sT5uV7wX9yZ1\n"
    "=Kp2x\n"
    "-----END PGP PRIVATE KEY BLOCK-----"
)
MISSED = [
    # (kind, text holding the secret, the part that must not survive)
    ("openai", "key sk-None-" + "Xy7Kq2Lm9Pz4Wb8Rt3Vn6Hc1_Jd5Gf0-SaQe4Zx" + " ok", "Xy7Kq2Lm9Pz4"),
    ("openrouter", "sk-or-v1-" + "0f9e8d7c6b5a4938" * 4, "0f9e8d7c6b5a4938"),
    ("private_key", f"the key:\n{PGP_BLOCK}\nthanks", "lQOYBF0nZ9YB"),
    ("jwt", f"here is the token {JWT} for staging", "dozjgNryP4J3"),
    ("jwt", '{"access_token":"' + JWT + '","expires_in":3600}', "dozjgNryP4J3"),
    (
        "slack",
        "xapp-1-" + "A052FGTS2DL-5171572773297-610b6a11f4b7eb819e87b767d80e6575",
        "610b6a11f4b7",
    ),
    (
        "webhook",
        "post to https://hooks.slack.com/services/"
        + "T0DCUJB1Q/B0DD08H5G/bJtrpFi1fO1JMCcwLx8uZyAg",
        "bJtrpFi1fO1J",
    ),
    ("password", "REDIS_URL=redis://:" + "Xk29fhq0Lz@cache.internal:6379/0", "Xk29fhq0Lz"),
    ("secret", "run it as DB_PASSWORD=" + "hunter22x ./migrate --all", "hunter22x"),
    ("password", "postgres://app:" + "p@ss@word99@db.internal/prod", "ss@word99"),
]


@pytest.mark.parametrize(("kind", "text", "value"), MISSED)
def test_missed_kinds_are_redacted(kind: str, text: str, value: str) -> None:
    out, n = redact(text)
    assert value not in out
    assert f"[REDACTED:{kind}]" in out
    assert n == 1


def test_url_password_with_at_signs_keeps_user_and_host() -> None:
    out, _ = redact("postgres://app:p@ss@word99@db.internal/prod")
    assert out == "postgres://app:[REDACTED:password]@db.internal/prod"


def test_pgp_block_is_redacted_whole() -> None:
    out, n = redact(f"the key:\n{PGP_BLOCK}\nthanks")
    assert (out, n) == ("the key:\n[REDACTED:private_key]\nthanks", 1)


SIBLINGS = [
    ("anthropic", "sk-ant-admin01-" + "Zq7VtK2mW9xR4bN8cL1pD6fH3jS5gA0eY-AA", "Zq7VtK2mW9xR"),
    ("aws_access_key", "ABIA" + "Q3EGRJ7ZLMNOP4XY", "Q3EGRJ7ZLMNOP4XY"),
    ("github", "ghr_" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX", "1aB2cD3eF4gH"),
    ("gitlab", "gldt-" + "x9Yz8Wv7Ut6Sr5Qp4On3", "x9Yz8Wv7Ut6S"),
    ("slack", "xoxe-1-" + "My0xLTMxNzcwMjQ0MTcxMy01MTU4MTUyNjkxNzE0", "My0xLTMxNzcw"),
    (
        "webhook",
        "https://discord.com/api/webhooks/" + "123456789012345678/" + "Ab3dE5fG7hI9jK1lM3nO" * 3,
        "Ab3dE5fG7hI9",
    ),
    ("google", "GOCSPX-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9t", "Ab3dE5fG7hI9"),
    ("google", "ya29." + "a0AfH6SMBx7Yq2Lm9Pz4Wb8Rt3Vn6Hc1Jd5Gf0", "a0AfH6SMBx7Y"),
    (
        "azure",
        "AccountKey=" + "Zm9vYmFyYmF6cXV4" * 5 + "Zm9vYmFy==;EndpointSuffix=x",
        "Zm9vYmFyYmF6",
    ),
    ("azure", 'secret = "' + "abc8Q~" + "Xy7Kq2Lm9Pz4Wb8Rt3Vn6Hc1Jd5Gf0SaQe" + '"', "Xy7Kq2Lm9Pz4"),
    ("stripe", "whsec_" + "Ab3dE5fG7hI9jK1lM3nO5pQ7", "Ab3dE5fG7hI9"),
    ("stripe", "sk_prod_" + "51HqR2KLmN0pQrStUvWxYz12", "51HqR2KLmN0p"),
    ("npm", "npm_" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", "Ab3dE5fG7hI9"),
    (
        "sendgrid",
        "SG." + "Ab3dE5fG7hI9jK1lM3nO5p.Q7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3rS5",
        "Q7rS9tU1vW3x",
    ),
    (
        "pypi",
        "pypi-AgEIcHlwaS5vcmc" + "CJDk4ZTY3ZjNiLTQ0ZjAtNGQ5Ny1hNzRmLTJmNGY2ZjQ4ZWUyMgAC",
        "CJDk4ZTY3ZjNi",
    ),
    ("groq", "gsk_" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5j", "Ab3dE5fG7hI9"),
    ("xai", "xai-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5j", "Ab3dE5fG7hI9"),
    ("perplexity", "pplx-" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE", "Ab3dE5fG7hI9"),
    ("replicate", "r8_" + "Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z", "Ab3dE5fG7hI9"),
    (
        "age",
        "AGE-SECRET-KEY-1" + "QYZ3XQ7MZ2D8QF9L6W0VJ4K5N8P2R7T3Y6U1H9G4E5C0S8A2LX7M3N",
        "QYZ3XQ7MZ2D8",
    ),
    ("password", "curl -u ada:" + "S3cr3tPass https://api.example.com", "S3cr3tPass"),
    ("secret", "mysql --password=" + "S3cr3tPass -h db", "S3cr3tPass"),
    ("secret", "vault login --token " + "s.Xk29fhq0LzQw", "s.Xk29fhq0LzQw"),
    ("secret", "curl -H 'X-API-Key: " + "9f8e7d6c5b4a3928' https://api", "9f8e7d6c5b4a3928"),
    ("secret", 'const githubToken = "' + '9f8e7d6c5b4a39281716";', "9f8e7d6c5b4a39281716"),
    ("secret", '{"user":"ada","password":"' + 'hunter22x"}', "hunter22x"),
    ("secret", "PGPASSWORD=" + "hunter22x psql -h db", "hunter22x"),
    ("secret", 'PASSWORD="' + 'correct horse battery staple 9"', "correct horse battery"),
    ("secret", "- api_key: " + "abcdef123456  # staging", "abcdef123456"),
]


@pytest.mark.parametrize(("kind", "text", "value"), SIBLINGS)
def test_sibling_kinds_are_redacted(kind: str, text: str, value: str) -> None:
    out, n = redact(text)
    assert value not in out, out
    assert f"[REDACTED:{kind}]" in out
    assert n == 1


def test_private_key_inside_json_string_with_escaped_newlines() -> None:
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\nBKcwggSjAgEAAoIBAQC7"
    doc = (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + body
        + '\\n-----END PRIVATE KEY-----\\n", "client_email": "x@y.iam.gserviceaccount.com"}'
    )
    out, n = redact(doc)
    assert "MIIEvQIBADAN" not in out
    assert '"client_email": "x@y.iam.gserviceaccount.com"' in out
    assert n == 1


def test_cut_off_private_key_stops_at_prose() -> None:
    out, n = redact(
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkz9fQ2\nAoGBAMx7\n\nWhy does ssh reject it?"
    )
    assert (out, n) == ("[REDACTED:private_key]\n\nWhy does ssh reject it?", 1)


def test_ssh2_and_putty_private_keys() -> None:
    ssh2 = (
        '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\n'
        "P2/56wAAA+wAAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0\n"
        "---- END SSH2 ENCRYPTED PRIVATE KEY ----"
    )
    assert redact(ssh2) == ("[REDACTED:private_key]", 1)
    putty = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n"
        "AAAAIBqR2KLmN0pQrStUvWxYz12Ab3dE5fG7hI9jK1lM3nO5\nPrivate-MAC: 4f3c2b1a09\n"
    )
    out, n = redact(putty)
    assert "AAAAIBqR2KLm" not in out
    assert "4f3c2b1a09" not in out
    assert n == 1


PROSE_AND_CODE = [
    "Rotate the token every night; the password policy says twelve characters.",
    "We keep secrets in the vault, keys in the keyring, and tokens in memory.",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "git checkout 3f2b1c0d9e8a7f6b5c4d3e2f1a0b9c8d7e6f5a4b && git log -3",
    "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfu"
    "wvY7kxvUdBeoGlODJ6+SfaPg==",
    "tokenizer = AutoTokenizer.from_pretrained(model_id)",
    "api_key_header = APIKeyHeader(name='X-API-Key')",
    "const apiKey = process.env.OPENAI_API_KEY;",
    "SECRET_KEY = settings.SECRET_KEY",
    "password: str = Field(min_length=12)",
    "private readonly apiKey: ConfigService,",
    "token_count += len(tokens)  # MAX_TOKENS=4096",
    "secret_name: my-app-secrets",
    "TOKEN_URL=https://auth.example.com/oauth/token",
    "the key: press Ctrl+K to open the palette",
    "secrets.token_hex(32)",
    "app = Flask(secret_key=DJANGO_SECRET_KEY)",
    "run(password=get_password_from_vault())",
    '"token_type": "Bearer", "expires_in": 3600',
    "docker run -u 1000:1000 image",
    "git push -u origin feature/x",
    "monkey=banana123 turkey: sandwich42",
    "eyJ is how every base64 JSON object starts",
    "see https://user@example.com/path and ssh://git@github.com/repo",
    "the build hash is a3f5c9e1b7d2 and the session uuid 7c1e2f0a-5b3d-4e6f-8a9b-0c1d2e3f4a5b",
]


@pytest.mark.parametrize("text", PROSE_AND_CODE)
def test_prose_identifiers_and_hashes_are_left_alone(text: str) -> None:
    assert redact(text) == (text, 0)


# --- redact first, then shorten -----------------------------------------------------------


@pytest.mark.parametrize("cut", [5, 10, 20, 30])
def test_a_title_cut_inside_a_secret_keeps_no_prefix_of_it(cut: int) -> None:
    secret = SECRETS[1][1]
    lead = "x" * (TITLE_CHARS - cut)
    title = title_from([Message("user", f"{lead} {secret} please check")])
    assert title is not None
    assert secret[: cut - 2] not in title
    assert "[REDACTED:openai]" in title


@pytest.mark.parametrize("cut", [5, 10, 20, 30])
def test_a_tool_line_cut_inside_a_secret_keeps_no_prefix_of_it(cut: int) -> None:
    lead = "y" * (KEY_ARG_CHARS - cut)
    line = tool_call("Bash", f"{lead} {JWT}")
    assert JWT[: cut - 2] not in line


def test_a_heredoc_in_a_tool_line_keeps_no_secret() -> None:
    line = tool_call(
        "Bash",
        "cat <<EOF > .env\nDB_PASSWORD=hunter22x\nEOF\n"
        "cat <<EOF > id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAA\nEOF",
    )
    assert "hunter22x" not in line
    assert "b3BlbnNzaC1r" not in line
    assert "[REDACTED:secret]" in line


def test_a_cut_never_splits_a_redaction_marker() -> None:
    for lead in range(100, 118):  # the marker starts before the cut and ends past it
        out = shorten("z" * lead + " " + SECRETS[0][1] + " and more")
        assert out.endswith("[REDACTED:openai]…"), out


@pytest.mark.parametrize("lead", [0, 100])  # the line whole, or cut through the key
def test_secrets_redacted_in_tool_lines_are_counted(tmp_path: Path, lead: int) -> None:
    session = "0f0e0d0c-0b0a-4909-8807-060504030201"
    call = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {"command": "x" * lead + " export KEY=" + SECRETS[0][1]},
    }
    records = [
        {"type": "user", "sessionId": session, "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "deploy it"}},
        {"type": "assistant", "sessionId": session, "uuid": "a1", "parentUuid": "u1",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"id": "m1", "role": "assistant", "content": [call]}},
    ]  # fmt: skip
    data = "\n".join(json.dumps(r) for r in records).encode()
    result = read_transcript(tmp_path / f"{session}.jsonl", data)
    [conv] = result.conversations
    tool_line = conv.messages[1].text
    assert "Zr4T9qLm" not in tool_line
    assert "[REDACTED:" in tool_line
    assert result.redactions == 1


# --- properties -----------------------------------------------------------------------------

EMBEDDED = [(kind, secret, secret[8:]) for kind, secret in SECRETS] + [
    (kind, text, value) for kind, text, value in MISSED + SIBLINGS if "\n" not in text
]
PROSE = st.text(alphabet="abcdefghij klmnop.,:;!?()", max_size=140)


def _contexts(secret: str, before: str, after: str) -> list[str]:
    return [
        f"{secret} {after}",
        f"{before} {secret} {after}",
        json.dumps({"note": before, "value": secret, "more": after}),
        json.dumps({"note": before, "value": secret}, separators=(",", ":")),
        f"{before} https://example.com/cb?state=1&code={secret}&next=2 {after}",
    ]


@settings(max_examples=draws(150), deadline=None)
@given(st.sampled_from(EMBEDDED), PROSE, PROSE)
def test_an_embedded_secret_never_survives(
    case: tuple[str, str, str], before: str, after: str
) -> None:
    _, secret, value = case
    for text in _contexts(secret, before, after):
        out, n = redact(text)
        assert value not in out, text
        assert n >= 1
        # What is stored: a title or tool line, redacted again with its message.
        probe = value[:10]
        assert probe not in redact(shorten(text, TITLE_CHARS))[0]
        assert probe not in redact(tool_call("Bash", text))[0]


@settings(max_examples=draws(150), deadline=None)
@given(st.lists(st.sampled_from([c[1] for c in EMBEDDED]) | PROSE, max_size=6))
def test_redaction_is_idempotent(parts: list[str]) -> None:
    once, _ = redact("\n".join(parts))
    assert redact(once) == (once, 0)


def test_a_long_conversation_is_redacted_in_batches_and_every_secret_still_goes(
    tmp_path: Path,
) -> None:
    secret = "ghp_" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX"
    said = f"{secret} " + "words of a long reply " * 30_000 + f" {secret}"
    turns = "".join(f"## user\n\n{said}\n\n## assistant\n\nok {secret}\n\n" for _ in range(6))
    path = tmp_path / "long.md"
    path.write_text(turns, encoding="utf-8")
    result = read_transcript(path)
    stored = "".join(m.text for c in result.conversations for m in c.messages)
    assert secret not in stored
    assert stored.count("[REDACTED") == 18
