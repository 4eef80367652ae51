"""A ChatGPT export imported: split one file per conversation, streamed in bounded memory,
read as the whole export reads; zips that are not exports, or that would write outside
their folder, refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from dreaming.errors import SourceError
from dreaming.importing import chatgpt_export, parse_source, plan, run_import
from dreaming.importing.chatgpt_export import ReadCount, conversations, json_export, zip_export
from dreaming.ledger import Ledger
from dreaming.ledger import conversations as stored
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest
from tests.import_support import ROOT, chatgpt_conversation, chatgpt_zip, raw_files, session_id
from tests.support import FIXTURES

FIX = FIXTURES / "raw" / "chatgpt" / "conversations.json"
MAY_2025 = 1_746_100_000.0


def do_import(vault: Vault, ledger: Ledger, spec: str, since: float | None = None) -> Any:
    def ingest_batch(paths: list[Path]) -> None:
        ingest(vault, ledger, paths, record_run=False)

    return run_import(vault, ledger, [plan(parse_source(spec))], since=since, on_batch=ingest_batch)


def what_was_said(ledger: Ledger) -> dict[str, tuple[object, str | None, list[object]]]:
    """Each conversation's id → (its citation, title, messages)."""
    return {
        c.id: (stored.citation(ledger, c.id), c.title, list(stored.messages(ledger, c.id)))
        for c in stored.by_updated(ledger)
    }


def test_each_conversation_is_read_as_the_whole_export_reads_it(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as z:
        z.write(FIX, "conversations.json")
    do_import(vault, ledger, str(export))
    whole = init_vault(tmp_path / "whole").vault
    with Ledger(whole.ledger_path) as other:
        ingest(whole, other, [FIX])
        assert what_was_said(ledger) == what_was_said(other)
    assert len(what_was_said(ledger)) == 2


def test_each_conversation_lands_in_the_month_it_began(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    chats = [chatgpt_conversation(1, MAY_2025), chatgpt_conversation(2, MAY_2025 + 40 * 86400)]
    do_import(vault, ledger, str(chatgpt_zip(tmp_path / "export.zip", chats)))
    assert sorted(raw_files(vault.root)) == [
        f"chatgpt/2025/05/{session_id(1)}.json",
        f"chatgpt/2025/06/{session_id(2)}.json",
    ]


def test_a_conversations_json_given_alone_is_split_too(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chatgpt_conversation(1, MAY_2025)]), encoding="utf-8")
    report = do_import(vault, ledger, str(path))
    assert report.copied == 1
    assert list(raw_files(vault.root)) == [f"chatgpt/2025/05/{session_id(1)}.json"]


def test_an_export_read_to_its_end_is_skipped_unread_next_time(
    vault: Vault, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = chatgpt_zip(tmp_path / "export.zip", [chatgpt_conversation(1, MAY_2025)])
    do_import(vault, ledger, str(export))

    def never(*args: object) -> object:
        raise AssertionError("the export was read again")

    monkeypatch.setattr("dreaming.importing.copier.conversations", never)
    report = do_import(vault, ledger, str(export))
    assert report.sources[0].notes == ["already imported and unchanged since: not read again"]


def test_two_different_conversations_under_one_id_both_land(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    short, long = chatgpt_conversation(1, MAY_2025), chatgpt_conversation(1, MAY_2025, turns=2)
    report = do_import(vault, ledger, str(chatgpt_zip(tmp_path / "e.zip", [short, long])))
    assert report.copied == 2
    assert len(raw_files(vault.root)) == 2


def test_a_later_export_adds_only_the_conversations_that_changed_beside_their_copies(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    first = [chatgpt_conversation(1, MAY_2025), chatgpt_conversation(2, MAY_2025)]
    do_import(vault, ledger, str(chatgpt_zip(tmp_path / "first.zip", first)))
    before = raw_files(vault.root)
    later = [chatgpt_conversation(1, MAY_2025, turns=3), chatgpt_conversation(2, MAY_2025)]
    report = do_import(vault, ledger, str(chatgpt_zip(tmp_path / "later.zip", later)))
    assert (report.copied, report.sources[0].unchanged) == (1, 1)
    after = raw_files(vault.root)
    assert len(after) == 3
    # The older copy holds bytes the new one lacks (its update_time): it stays.
    assert {k: after[k] for k in before} == before
    grown = stored.get(ledger, session_id(1))
    assert grown is not None
    assert grown.message_count == 6


def test_a_conversation_renamed_in_a_later_export_keeps_its_old_title_in_raw(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    chat = chatgpt_conversation(1, MAY_2025)
    do_import(vault, ledger, str(chatgpt_zip(tmp_path / "first.zip", [chat])))
    renamed = chat | {"title": "Bread, as I call it now"}
    do_import(vault, ledger, str(chatgpt_zip(tmp_path / "later.zip", [renamed])))
    titles = sorted(json.loads(data)[0]["title"] for data in raw_files(vault.root).values())
    assert titles == ["Bread, as I call it now", "Chat 1"]


def test_since_compares_each_conversations_last_change(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    chats = [chatgpt_conversation(1, MAY_2025), chatgpt_conversation(2, MAY_2025 + 86400)]
    report = do_import(
        vault, ledger, str(chatgpt_zip(tmp_path / "e.zip", chats)), since=MAY_2025 + 3600
    )
    assert (report.copied, report.sources[0].older) == (1, 1)


def test_a_zip_without_conversations_json_is_refused_naming_what_it_needs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "photos.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("chat.html", "<html></html>")
    with pytest.raises(SourceError) as caught:
        zip_export(path)
    assert str(caught.value) == (
        f"{path}: no conversations.json in this zip; a ChatGPT data export (Settings → Data "
        "controls → Export data) holds one: give that zip, or the conversations.json itself"
    )


@pytest.mark.parametrize("member", ["../evil.txt", "a/../../evil.txt", "/tmp/evil.txt", "C:x"])
def test_a_zip_slip_member_refuses_the_whole_zip(tmp_path: Path, member: str) -> None:
    path = chatgpt_zip(
        tmp_path / "export.zip", [chatgpt_conversation(1, MAY_2025)], **{member: b"x"}
    )
    with pytest.raises(SourceError, match=r"would be written outside .* \(zip-slip\); refused"):
        plan(parse_source(str(path)))


def test_a_file_named_zip_that_is_none_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    path.write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(SourceError, match=r"not a readable zip \(a download cut short\?\)"):
        plan(parse_source(str(path)))


def split(data: bytes, tmp_path: Path) -> list[bytes]:
    path = tmp_path / "conversations.json"
    path.write_bytes(data)
    return [
        i.data or b"" for i in conversations(json_export(path, path.stat()), ReadCount(), 1 << 30)
    ]


def test_conversations_keep_their_exact_bytes_across_any_window_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = [chatgpt_conversation(n, MAY_2025) for n in range(5)]
    chats[1]["title"] = "Brot und Käse 🍞"  # characters of 2 and 4 bytes cut by the blocks
    chats[3]["mapping"]["user-0"]["message"]["content"]["parts"] = ["x" * 5000]
    texts = [json.dumps(c, indent=2, ensure_ascii=False).encode() for c in chats]
    export = b"\xef\xbb\xbf[\n" + b",\n".join(texts) + b"\n]\n"
    for block in (3, 7, 64, 1 << 20):
        monkeypatch.setattr(chatgpt_export, "BLOCK", block)
        assert split(export, tmp_path) == [b"[\n" + t + b"\n]\n" for t in texts]


def test_bytes_that_are_not_utf8_survive_the_split_unchanged(tmp_path: Path) -> None:
    one = json.dumps(chatgpt_conversation(1, MAY_2025)).encode().replace(b"Chat 1", b"Caf\xe9")
    assert split(b"[" + one + b"]", tmp_path) == [b"[\n" + one + b"\n]\n"]


def test_an_export_cut_short_keeps_what_came_before_and_says_where(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    chats = [chatgpt_conversation(n, MAY_2025) for n in (1, 2)]
    text = json.dumps(chats, indent=2)
    path = tmp_path / "conversations.json"
    path.write_text(text[: len(text) * 3 // 4], encoding="utf-8")
    report = do_import(vault, ledger, str(path))
    [line] = report.sources[0].failed
    assert line.startswith(f"{path}: not valid JSON at byte ")
    assert line.endswith(
        "the export is damaged or cut short: download it again (1 conversation before that "
        "point came in, the rest did not)"
    )
    assert list(raw_files(vault.root)) == [f"chatgpt/2025/05/{session_id(1)}.json"]


def test_an_element_that_is_no_conversation_is_left_out(tmp_path: Path) -> None:
    one = json.dumps(chatgpt_conversation(1, MAY_2025)).encode()
    assert len(split(b'[{"title": "no mapping"}, ' + one + b"]", tmp_path)) == 1


def test_a_list_of_something_else_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"at byte 1 \(a conversation \(a JSON object\)"):
        split(b"[1, 2]", tmp_path)


@pytest.mark.slow  # a big export, its memory measured
def test_a_big_export_is_split_in_memory_that_does_not_grow_with_it(tmp_path: Path) -> None:
    # 40 MB of conversations: read whole, the export would take about four times that.
    chats = ",\n".join(
        json.dumps(chatgpt_conversation(n, MAY_2025, turns=80), indent=2) for n in range(400)
    )
    path = tmp_path / "conversations.json"
    path.write_text(f"[\n{chats}\n]\n", encoding="utf-8")
    assert path.stat().st_size > 20_000_000
    code = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from dreaming.importing.chatgpt_export import ReadCount, conversations, json_export\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "p = Path(sys.argv[1])\n"
        "n = sum(1 for _ in conversations(json_export(p, p.stat()), ReadCount(), 1 << 30))\n"
        "grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base\n"
        "print(n, grew // 1024)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True, text=True, cwd=ROOT, check=True, timeout=60,
    )  # fmt: skip
    count, grew_mb = map(int, run.stdout.split())
    assert count == 400
    assert grew_mb < 15, f"the split grew memory by {grew_mb} MB"


def test_an_export_holding_a_number_too_long_to_read_says_where(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    good = json.dumps(chatgpt_conversation(1, MAY_2025))
    path = tmp_path / "conversations.json"
    path.write_text(f'[{good}, {{"n": {"9" * 5000}}}]', encoding="utf-8")
    report = do_import(vault, ledger, str(path))
    [line] = report.sources[0].failed
    assert line.startswith(f"{path}: not valid JSON at byte {len(good) + 3} (a number of more")
    assert list(raw_files(vault.root)) == [f"chatgpt/2025/05/{session_id(1)}.json"]
