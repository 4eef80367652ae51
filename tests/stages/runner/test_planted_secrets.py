"""A planted-secret corpus: every kind of secret issue 21 found stored in the clear,
planted in every transcript format, then ingest and a night with a model answering by
rule. No planted value is left anywhere under the vault but in Raw/ (which git ignores):
not in the ledger, its WAL, the logs, the articles, nor any git object."""

from __future__ import annotations

import contextlib
import subprocess
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.config import Settings
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from stages.runner.pipeline import run_night
from tests.planted_secrets import EVERY_KIND, GHP
from tests.planted_transcripts import FORMATS
from tests.rule_model import RuleModel
from tests.support import drop
from watcher.app import App

pytestmark = pytest.mark.slow  # a whole night


def _said() -> str:
    lines = [f"Sourdough Bread note {i}: keep it at {text} please." for i, (_, text, _) in
             enumerate(EVERY_KIND)]  # fmt: skip
    return "\n".join(lines)


def _every_byte(root: Path) -> bytes:
    """Every file under the vault but Raw/, git objects inflated, and git's own view."""
    out: list[bytes] = []
    for path in root.rglob("*"):
        if not path.is_file() or path.relative_to(root).parts[0] == "Raw":
            continue
        data = path.read_bytes()
        out.append(data)
        if ".git" in path.parts and "objects" in path.parts:
            # A pack is not one zlib stream: its objects come from `git cat-file` below.
            with contextlib.suppress(zlib.error):
                out.append(zlib.decompress(data))
    git = ["git", "-C", str(root)]
    out.append(subprocess.run([*git, "log", "-p", "--all"], capture_output=True).stdout)
    out.append(
        subprocess.run(
            [*git, "cat-file", "--batch-all-objects", "--batch"], capture_output=True
        ).stdout
    )
    return b"\n".join(out)


def test_no_planted_secret_is_stored_anywhere_in_the_vault(vault: Vault, model: RuleModel) -> None:
    for source, build in FORMATS.items():
        name, data = build(GHP, _said())
        drop(vault, f"{source}/{name}", data)
    with Ledger(vault.ledger_path) as db:
        report = ingest(vault, db)
        assert report.failed == [], report
        assert report.conversations_new >= len(FORMATS)
        # A night with the WAL still there: its pages are read too.
        with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
            run_night(app)
        wal = vault.ledger_path.with_name(vault.ledger_path.name + "-wal")
        assert wal.exists()
        stored = _every_byte(vault.root)
    assert model.calls > 0
    assert b"Sourdough" in stored  # the reading found what was stored
    left = [value for _, _, value in EVERY_KIND if value.encode() in stored]
    assert left == []
    assert GHP[4:].encode() not in stored
