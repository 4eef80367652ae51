"""The cursor holds only what landed: an export is remembered as read to its end only when
every conversation of it is in Raw/ (or was there already); a copy that did not land is
never counted as already there, and a file that arrived at a copy's place meanwhile is
never overwritten."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dreaming.importing import ImportReport, copier, parse_source, plan, run_import
from dreaming.ledger import Ledger, imports
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.import_support import (
    chatgpt_conversation,
    chatgpt_zip,
    claude_projects,
    claude_session,
    raw_files,
    session_id,
)

MAY_2025 = 1_746_100_000.0


def do_import(vault: Vault, ledger: Ledger, *specs: str) -> ImportReport:
    def ingest_batch(paths: list[Path]) -> None:
        ingest(vault, ledger, paths, record_run=False)

    chosen = [plan(parse_source(spec), vault.root) for spec in specs]
    return run_import(vault, ledger, chosen, on_batch=ingest_batch)


def export_of(tmp_path: Path, name: str, numbers: range) -> Path:
    return chatgpt_zip(tmp_path / name, [chatgpt_conversation(n, MAY_2025) for n in numbers])


def test_an_export_none_of_which_landed_is_read_again_once_the_link_is_fixed(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    export = export_of(tmp_path, "export.zip", range(1, 13))
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.raw / "chatgpt").symlink_to(outside)
    report = do_import(vault, ledger, str(export))
    source = report.sources[0]
    assert (source.copied, source.missed, len(source.failed)) == (0, 12, 12)
    assert list(outside.iterdir()) == []
    assert imports.get(ledger, f"export:{export}") is None
    (vault.raw / "chatgpt").unlink()
    again = do_import(vault, ledger, str(export))
    assert (again.copied, again.sources[0].notes) == (12, [])
    assert len(raw_files(vault.root)) == 12
    assert imports.get(ledger, f"export:{export}") is not None


def refuse_placing(monkeypatch: pytest.MonkeyPatch, names: set[str], times: int = 1) -> None:
    """`os.replace` into Raw/ fails for files of these names, the first `times` times."""
    real = os.replace
    left = dict.fromkeys(names, times)

    def replace(src: Any, dst: Any) -> None:
        name = Path(dst).name
        if left.get(name, 0) > 0:
            left[name] -= 1
            raise PermissionError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


def test_one_conversation_that_did_not_land_keeps_its_export_unrecorded(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = export_of(tmp_path, "export.zip", range(1, 4))
    refuse_placing(monkeypatch, {f"{session_id(2)}.json"})
    report = do_import(vault, ledger, str(export))
    assert (report.copied, report.sources[0].missed) == (2, 1)
    assert imports.get(ledger, f"export:{export}") is None
    again = do_import(vault, ledger, str(export))
    assert (again.copied, again.sources[0].unchanged) == (1, 2)
    assert imports.get(ledger, f"export:{export}") is not None


def test_a_file_beside_an_export_that_did_not_land_is_not_the_exports_miss(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "backup"
    folder.mkdir()
    session = folder / "session.jsonl"
    session.write_text(claude_session(session_id(9)), encoding="utf-8")
    export = folder / "conversations.json"
    export.write_text(json.dumps([chatgpt_conversation(1, MAY_2025)]), encoding="utf-8")
    refuse_placing(monkeypatch, {session.name})
    report = do_import(vault, ledger, str(folder))
    assert (report.copied, report.sources[0].missed) == (1, 1)
    assert imports.get(ledger, str(session)) is None
    assert imports.get(ledger, f"export:{export}") is not None


def test_a_conversation_that_did_not_land_is_not_counted_as_there_by_a_second_export(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = export_of(tmp_path, "first.zip", range(1, 3))
    second = export_of(tmp_path, "second.zip", range(1, 3))
    refuse_placing(monkeypatch, {f"{session_id(1)}.json"})
    report = do_import(vault, ledger, str(first), str(second))
    one, two = report.sources
    assert (one.copied, one.missed) == (1, 1)
    assert (two.copied, two.unchanged, two.missed) == (1, 1, 0)
    assert len(raw_files(vault.root)) == 2
    assert imports.get(ledger, f"export:{first}") is None
    assert imports.get(ledger, f"export:{second}") is not None


def test_a_file_that_did_not_land_is_copied_again_for_a_second_source_naming_it(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = claude_projects(tmp_path / "home", {"-p": 1})
    [source] = made.values()
    refuse_placing(monkeypatch, {source.name})
    report = do_import(vault, ledger, f"claude-code={source.parent.parent}", str(source))
    assert [(s.copied, s.unchanged, s.missed) for s in report.sources] == [(0, 0, 1), (1, 0, 0)]
    assert list(raw_files(vault.root).values()) == [source.read_bytes()]
    assert imports.get(ledger, str(source)) is not None


def test_a_file_that_could_not_be_read_is_not_counted_as_there_by_a_second_source(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    made = claude_projects(home, {"-p": 1})
    [source] = made.values()
    real = shutil.copyfile

    def copyfile(src: Path, dst: Path) -> object:
        if Path(src) == source:
            raise PermissionError(13, "Permission denied", str(src))
        return real(src, dst)

    monkeypatch.setattr(shutil, "copyfile", copyfile)
    report = do_import(vault, ledger, f"claude-code={source.parent.parent}", str(source))
    assert [(s.copied, s.unchanged, s.missed) for s in report.sources] == [(0, 0, 1), (0, 0, 1)]


def test_a_file_that_arrived_at_a_copys_place_meanwhile_is_never_overwritten(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = claude_projects(tmp_path / "home", {"-p": 1})
    [source] = made.values()
    target = vault.raw / "claude-code" / "-p" / source.name
    flush = copier._Copier._flush

    def theirs_lands_first(self: copier._Copier) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("## user\n\nmy own notes\n", encoding="utf-8")
        flush(self)

    monkeypatch.setattr(copier._Copier, "_flush", theirs_lands_first)
    report = do_import(vault, ledger, f"claude-code={source.parent.parent}")
    assert target.read_text(encoding="utf-8") == "## user\n\nmy own notes\n"
    [line] = report.sources[0].failed
    assert line == (
        f"{source}: a file not made by this import arrived at Raw/claude-code/-p/{source.name} "
        "meanwhile; left as it is, run the same command again to copy it beside that file"
    )
    assert (report.copied, report.sources[0].missed) == (0, 1)
    assert imports.get(ledger, str(source)) is None
    monkeypatch.undo()
    do_import(vault, ledger, f"claude-code={source.parent.parent}")
    assert raw_files(vault.root)[f"claude-code/-p/{source.stem}-1.jsonl"] == source.read_bytes()
