"""The watcher's logs are never written through a link out of the vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.errors import RefusedFileError
from dreaming.vault import Vault
from watcher.night import NightRequest, NightRunner
from watcher.serve import _logging


def test_the_watchers_log_is_never_written_through_a_link(vault: Vault, tmp_path: Path) -> None:
    (vault.logs / "watch.log").unlink(missing_ok=True)
    (vault.logs / "watch.log").symlink_to(tmp_path / "watch.log")
    with pytest.raises(RefusedFileError) as e, _logging(vault, vault.logs / "watch.log"):
        pass
    assert str(e.value).startswith(".dreaming/logs/watch.log: a link;")
    assert not (tmp_path / "watch.log").exists()


def test_a_nights_log_through_a_link_fails_the_night_and_writes_nothing(
    vault: Vault, tmp_path: Path
) -> None:
    (vault.logs / "night.log").symlink_to(tmp_path / "night.log")
    result = NightRunner(vault, ["false"]).run(NightRequest("test"), lambda _: None)
    assert result.status == "failed"
    assert "night.log: a link" in result.summary
    assert not (tmp_path / "night.log").exists()
