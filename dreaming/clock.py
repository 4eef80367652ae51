"""Now, as every record dreaming keeps writes it: UTC, ISO 8601, to the second."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
