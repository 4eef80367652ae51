"""The vault's logs: rotation, and an internal error's traceback kept where the line says."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.vault import Vault
from dreaming.vault.logs import internal_error, rotate


def _fault() -> ValueError:
    try:
        raise ValueError("the bug")
    except ValueError as e:
        return e


def test_an_internal_error_is_one_line_naming_the_log(vault: Vault) -> None:
    line = internal_error(vault, _fault(), "reading it")
    assert line == (
        "internal error reading it (ValueError); please report it with .dreaming/logs/internal.log"
    )
    kept = (vault.logs / "internal.log").read_text(encoding="utf-8")
    assert "ValueError: the bug" in kept
    assert "Traceback" in kept


def test_an_internal_error_still_says_one_line_when_its_log_cannot_be_written(
    vault: Vault,
) -> None:
    vault.logs.parent.mkdir(parents=True, exist_ok=True)
    if vault.logs.exists():
        for child in vault.logs.iterdir():
            child.unlink()
        vault.logs.rmdir()
    vault.logs.write_text("a file where the folder should be", encoding="utf-8")
    line = internal_error(vault, _fault(), "reading it")
    assert line.startswith("internal error reading it (ValueError); its traceback could not")
    assert "\n" not in line


def test_a_log_past_its_limit_moves_aside_and_older_ones_shift(tmp_path: Path) -> None:
    log = tmp_path / "night.log"
    log.write_bytes(b"x" * 11)
    (tmp_path / "night.log.1").write_bytes(b"older")
    rotate(log, limit=10, kept=3)
    assert not log.exists()
    assert (tmp_path / "night.log.1").read_bytes() == b"x" * 11
    assert (tmp_path / "night.log.2").read_bytes() == b"older"


@pytest.mark.parametrize("size", [0, 10])
def test_a_log_within_its_limit_stays(tmp_path: Path, size: int) -> None:
    log = tmp_path / "night.log"
    log.write_bytes(b"x" * size)
    rotate(log, limit=10)
    assert log.read_bytes() == b"x" * size
