"""Secrets planted by tests (none are real), one of every kind issue 21 found stored in
the clear, each as (kind, the text that holds it, the part that must not survive).

Built from pieces so that no file of the repository holds a scannable key.
"""

from __future__ import annotations

GHP = "ghp_" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2wX"
JWT = (
    "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)
AWS_SECRET = "Zq7/VtK2mW9xR4bN8cL1+pD6fH3jS5gA0eYw3Tb9"
AWS_EXAMPLE = "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1"
OPENVPN = (
    "-----BEGIN OpenVPN Static key V1-----\n"
    + "\n".join(f"{i:02x}" + "3f9a1c7e5b2d8f40" * 2 for i in range(4))
    + "\n-----END OpenVPN Static key V1-----"
)
SAS_SIG = "Zm9vYmFy%2BYmF6cXV4Zm9vYmFyYmF6%3D"
TWILIO = "SK" + "0f9e8d7c6b5a49382716a5b4c3d2e1f0"
MAILGUN = "key-" + "3ax6xnjp29jd6fds4gc373sgvjxteol0"
TELEGRAM = "1234567890:" + "AAF" + "x9Kq2Lm7Pz4Wb8Rt3Vn6Hc1Jd5Gf0SaQ"
SESSION = "k2x9Qw7Er1Ty5Ui3Op8As6Df"
CARD = "4111 1111 1111 1111"

URL_PASSWORDS = [
    ("password", "postgres://admin:" + "P@ss#word" + "@db.internal:5432/prod", "ss#word"),
    ("password", "mongodb://root:" + "pw/with/slash" + "@mongo.internal/admin", "with/slash"),
    ("password", "amqp://guest:" + "pw?q9" + "@rabbit.internal:5672/", "pw?q9"),
]
QUERY_SECRETS = [
    (
        "secret",
        "https://api.example.com/cb?token_type=access&client_secret=" + "Zx9Qw2Er7Ty1Ui8Op3",
        "Zx9Qw2Er7Ty1Ui8Op3",
    ),
    (
        "secret",
        "https://api.example.com/v1?key_id=1&secret=" + "Zx9Qw2Er7Ty1Ui8Op3",
        "Zx9Qw2Er7Ty1",
    ),
]
NEW_KINDS = [
    ("private_key", f"my tls-auth key:\n{OPENVPN}\nthanks", "3f9a1c7e5b2d8f40"),
    ("password", "sshpass -p " + "Hq7rT2vX9w" + " ssh ada@host", "Hq7rT2vX9w"),
    ("password", "mysql -u root -p" + "Hq7rT2vX9w" + " prod", "Hq7rT2vX9w"),
    ("password", "docker login -u ada -p " + "Hq7rT2vX9w" + " registry.example.com", "Hq7rT2vX9w"),
    (
        "azure",
        "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sig=" + SAS_SIG,
        "Zm9vYmFy%2BYmF6",
    ),
    ("twilio", f"twilio api key {TWILIO} for sms", TWILIO[2:]),
    ("mailgun", f"mailgun {MAILGUN}", MAILGUN[4:]),
    ("telegram", f"bot token {TELEGRAM}", TELEGRAM[11:]),
    ("session_cookie", "Cookie: theme=dark; sessionid=" + SESSION + "; lang=en", SESSION),
    ("card", f"charge card {CARD} exp 12/29", CARD),
    ("secret", "ADMIN_PASSWORD=" + "sunshine", "sunshine"),
    ("aws_secret", f"the secret key is {AWS_SECRET} ok", AWS_SECRET),
]
ESCAPED = [
    ("github", '{"note": "primary\\n' + GHP + '"}', GHP[4:]),
    ("jwt", '{"log": "auth ok\\n' + JWT + '"}', JWT[20:]),
    ("github", "token=%22" + GHP + "%22", GHP[4:]),
]
FRONTMATTER_ID = ("github", "---\nid: " + GHP + "\ntitle: keys\n---\n", GHP[4:])

EVERY_KIND = URL_PASSWORDS + QUERY_SECRETS + NEW_KINDS + ESCAPED
