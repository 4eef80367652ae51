"""Secret redaction, with secrets planted by these tests (none are real)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dreaming.raw import read_transcript
from dreaming.raw.redact import redact

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
