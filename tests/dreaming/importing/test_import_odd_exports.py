"""Exports built to cost time or memory, or that are no export: each refused early, in one
line naming the file and what to do, having read little more than the limit it broke;
what came before a damaged part kept and recorded, the rest said. The limits are made
small here: the behaviour, not the gigabytes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from dreaming.errors import SourceError
from dreaming.importing import chatgpt_export, parse_source, plan, run_import
from dreaming.importing.chatgpt_export import Export, ReadCount, conversations, json_export
from dreaming.ledger import Ledger, imports
from dreaming.vault import Vault
from tests.import_support import chatgpt_conversation, damaged_zip, raw_files, session_id

MAY_2025 = 1_746_100_000.0
BLOCK = 1024


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chatgpt_export, "BLOCK", BLOCK)


def export_file(tmp_path: Path, data: bytes) -> Export:
    path = tmp_path / "conversations.json"
    path.write_bytes(data)
    return json_export(path, path.stat())


def one(n: int) -> bytes:
    return json.dumps(chatgpt_conversation(n, MAY_2025)).encode()


def read_all(export: Export, counter: ReadCount, max_bytes: int = 1 << 30) -> list[str]:
    return [item.key for item in conversations(export, counter, max_bytes)]


def test_a_value_over_the_limit_is_refused_having_read_little_more_than_the_limit(
    tmp_path: Path,
) -> None:
    limit = 16 * BLOCK
    export = export_file(tmp_path, b'[{"title": "' + b"x" * (limit * 20) + b'"}]')
    counter = ReadCount()
    with pytest.raises(SourceError) as caught:
        read_all(export, counter, limit)
    assert str(caught.value) == (
        f"{export.path}: a conversation at byte 1 is over 16 KB, the limit for a transcript; "
        "raise max_raw_file_mb in .dreaming/config.toml to import it"
    )
    assert counter.read <= limit + 2 * BLOCK


def test_a_conversation_just_under_the_limit_still_comes_in(tmp_path: Path) -> None:
    text = one(1)
    export = export_file(tmp_path, b"[" + text + b"]")
    assert read_all(export, ReadCount(), len(text)) == [f"chatgpt:{session_id(1)}"]


def test_blank_space_where_a_conversation_should_start_is_refused_within_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chatgpt_export, "MAX_GAP", 4 * BLOCK)
    first = one(1)
    export = export_file(tmp_path, b"[" + first + b"," + b" \n" * (50 * BLOCK) + one(2) + b"]")
    counter = ReadCount()
    items = conversations(export, counter, 1 << 30)
    assert next(items).key == f"chatgpt:{session_id(1)}"
    with pytest.raises(SourceError) as caught:
        next(items)
    assert str(caught.value) == (
        f"{export.path}: more than 4 KB of blank space at byte {len(first) + 2} where a "
        "conversation should start; the export is damaged: download it again"
    )
    assert counter.read <= len(first) + 4 * BLOCK + 2 * BLOCK


@pytest.mark.parametrize("top", [b'{"a": 1}', b"42", b'"text"', b"null"])
def test_a_top_level_that_is_no_list_of_conversations_is_refused(
    tmp_path: Path, top: bytes
) -> None:
    with pytest.raises(SourceError, match=r"conversations\.json: not a ChatGPT export"):
        read_all(export_file(tmp_path, top), ReadCount())


def test_one_conversation_alone_not_in_a_list_is_read(tmp_path: Path) -> None:
    assert read_all(export_file(tmp_path, one(1)), ReadCount()) == [f"chatgpt:{session_id(1)}"]


def test_a_list_holding_no_conversation_at_all_is_refused(tmp_path: Path) -> None:
    export = export_file(tmp_path, b'[{"a": 1}, {"title": "no mapping"}]')
    with pytest.raises(SourceError) as caught:
        read_all(export, ReadCount())
    assert str(caught.value) == (
        f"{export.path}: not a ChatGPT export: none of its 2 elements is a conversation "
        "(none has a mapping); give the conversations.json of a ChatGPT data export"
    )


def test_an_empty_list_is_an_account_with_no_conversations(tmp_path: Path) -> None:
    assert read_all(export_file(tmp_path, b"[]\n"), ReadCount()) == []


def zip_of(path: Path, data: bytes) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", data)
    return path


@pytest.mark.parametrize("data", [b"42", b'  \n"a string"', b"null", b"", b"\xef\xbb\xbf true"])
def test_a_zip_whose_conversations_json_is_no_list_is_refused_before_anything_is_read(
    tmp_path: Path, data: bytes
) -> None:
    path = zip_of(tmp_path / "export.zip", data)
    with pytest.raises(SourceError) as caught:
        plan(parse_source(str(path)))
    assert str(caught.value) == (
        f"{path}: its conversations.json is not a ChatGPT export (it does not start with a "
        "list of conversations); give the zip of a ChatGPT data export"
    )


def test_a_zip_that_would_unpack_to_far_more_than_an_export_compresses_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chatgpt_export, "BOMB_FLOOR", 64 * BLOCK)
    path = zip_of(tmp_path / "export.zip", b"[" + b" " * (1 << 20) + one(1) + b"]")
    with pytest.raises(SourceError) as caught:
        plan(parse_source(str(path)))
    said = str(caught.value)
    assert said.startswith(f"{path}: its conversations.json would unpack to 1 MB from ")
    assert said.endswith(
        "far more than any export compresses (a zip bomb?); refused: download the export again"
    )


def test_a_zip_that_compresses_as_an_export_does_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chatgpt_export, "BOMB_FLOOR", 1)
    chats = [chatgpt_conversation(n, MAY_2025) for n in range(20)]
    path = zip_of(tmp_path / "export.zip", json.dumps(chats, indent=2).encode())
    assert len(plan(parse_source(str(path))).exports) == 1


def do_import(vault: Vault, ledger: Ledger, path: Path) -> Any:
    return run_import(vault, ledger, [plan(parse_source(str(path)))])


@pytest.mark.parametrize(("tail", "why"), [(b"", "Bad CRC-32"), (b"\xff" * 16, "invalid block")])
def test_a_damaged_zip_stream_keeps_what_came_before_and_says_the_rest_did_not(
    vault: Vault, ledger: Ledger, tmp_path: Path, tail: bytes, why: str
) -> None:
    chats = [chatgpt_conversation(n, MAY_2025, turns=3) for n in range(20)]
    data = json.dumps(chats, indent=2).encode()
    path = damaged_zip(tmp_path / "export.zip", data, len(data) // 2, tail)
    report = do_import(vault, ledger, path)
    came = report.copied
    assert 0 < came < 20
    [line] = report.sources[0].failed
    assert line.startswith(f"{path}: conversations.json cannot be unpacked (")
    assert why in line
    assert line.endswith(
        f"download the export again ({came} conversations before that "
        "point came in, the rest did not)"
    )
    landed = raw_files(vault.root)
    assert len(landed) == came
    for n in range(came):
        assert imports.get(ledger, f"chatgpt:{session_id(n)}") is not None
    assert imports.get(ledger, f"export:{path}") is None
