"""The wiki gold set: what a careful reader would file from each conversation, labelled
by hand before any tuning (format in docs/eval.md). A bad line is refused with its
file and line number, never half read."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreaming.article.validate import KINDS
from dreaming.errors import DreamingError
from dreaming.subjects.names import canonical

SPLITS = ("tune", "heldout")
MAX_BYTES = 16 * 1024 * 1024


class GoldError(DreamingError):
    """A gold file that cannot be read as labelled conversations."""


@dataclass(frozen=True, slots=True)
class GoldSubject:
    names: tuple[str, ...]
    kind: str
    main: bool


@dataclass(frozen=True, slots=True)
class Terms:
    """Groups of alternatives: a text holds it when it holds one of every group."""

    text: str
    terms: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Gold:
    conv: str
    split: str
    nothing: bool
    subjects: tuple[GoldSubject, ...]
    facts: tuple[Terms, ...]
    not_facts: tuple[Terms, ...]


def names_key(name: str) -> str:
    """The form two names of one subject meet in: the subject key, `_` read as a space."""
    return canonical(name.replace("_", " "))


def load_gold(path: Path) -> list[Gold]:
    try:
        # Non-blocking, so a named pipe is refused at once instead of waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise GoldError(f"{path}: cannot read the gold file ({e.strerror}); check the path") from e
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise GoldError(f"{path}: not a regular file; pass the gold JSONL file")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise GoldError(f"{path}: larger than {MAX_BYTES // 2**20} MiB; is it a gold file?")
    out: list[Gold] = []
    for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(_gold(json.loads(line)))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise GoldError(f"{path}:{n}: not a gold line ({e}); see docs/eval.md") from None
    return out


def _gold(row: dict[str, Any]) -> Gold:
    if row["split"] not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}")
    subjects = tuple(
        GoldSubject(tuple(str(n) for n in s["names"]), str(s["kind"]), bool(s.get("main")))
        for s in row.get("subjects", [])
    )
    for s in subjects:
        if s.kind not in KINDS or not s.names:
            raise ValueError(f"a subject needs names and a kind among {', '.join(KINDS)}")
    return Gold(
        conv=str(row["conv"]),
        split=str(row["split"]),
        nothing=bool(row.get("nothing", False)),
        subjects=subjects,
        facts=tuple(_terms(f, "fact") for f in row.get("facts", [])),
        not_facts=tuple(_terms(f, "statement") for f in row.get("not_facts", [])),
    )


def _terms(row: dict[str, Any], key: str) -> Terms:
    groups = tuple(tuple(str(t).casefold() for t in group) for group in row["terms"])
    if not groups or not all(groups) or not all(all(t for t in g) for g in groups):
        raise ValueError("terms must be non-empty lists of non-empty strings")
    return Terms(str(row[key]), groups)
