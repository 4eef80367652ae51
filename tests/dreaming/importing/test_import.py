"""`dreaming import`'s copy loop on real vaults: what lands in Raw/, once, where, and what
the cursor remembers; faults (an unreadable file, a foreign file in the way) and scale."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest

from dreaming.errors import DreamingError, SourceError
from dreaming.importing import ImportReport, Plan, parse_source, plan, run_import, survey
from dreaming.importing import copier as copier_module
from dreaming.ledger import Ledger, conversations, imports
from dreaming.ledger.raw_files import in_state as raw_files_in
from dreaming.ledger.work import backlog
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from tests.import_support import claude_projects, claude_session, raw_files, session_id
from tests.support import FIXTURES

FIX = FIXTURES / "raw"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


def plans(*specs: str, vault: Vault | None = None) -> list[Plan]:
    return [plan(parse_source(spec), vault.root if vault else None) for spec in specs]


def do_import(
    vault: Vault, ledger: Ledger, *specs: str, since: float | None = None
) -> ImportReport:
    def ingest_batch(paths: list[Path]) -> None:
        ingest(vault, ledger, paths, record_run=False)

    return run_import(vault, ledger, plans(*specs, vault=vault), since=since, on_batch=ingest_batch)


def test_every_session_lands_once_under_its_project_byte_for_byte(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-home-ada-src-bread": 3, "-home-ada-src-rye": 2})
    report = do_import(vault, ledger, "claude-code")
    assert report.copied == 5
    landed = raw_files(vault.root)
    assert landed == {f"claude-code/{rel}": path.read_bytes() for rel, path in made.items()}
    for rel, path in made.items():
        # The session's own date stays on its copy.
        assert (vault.raw / "claude-code" / rel).stat().st_mtime_ns == path.stat().st_mtime_ns


def test_the_copies_are_ingested_as_they_land(vault: Vault, ledger: Ledger, home: Path) -> None:
    claude_projects(home, {"-p": 4})
    do_import(vault, ledger, "claude-code")
    assert {c.id for c in conversations.by_updated(ledger)} == {session_id(n) for n in range(1, 5)}
    assert backlog(ledger) == 4


def test_a_second_import_copies_nothing(vault: Vault, ledger: Ledger, home: Path) -> None:
    claude_projects(home, {"-p": 3})
    do_import(vault, ledger, "claude-code")
    inodes = {p: p.stat().st_ino for p in vault.raw.rglob("*.jsonl")}
    again = do_import(vault, ledger, "claude-code")
    assert (again.copied, again.sources[0].unchanged) == (0, 3)
    assert {p: p.stat().st_ino for p in vault.raw.rglob("*.jsonl")} == inodes


def test_a_file_named_by_two_sources_is_copied_once(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 2})
    report = do_import(vault, ledger, "claude-code", str(home / ".claude" / "projects"))
    assert (report.copied, report.sources[1].unchanged) == (2, 2)
    assert sorted(raw_files(vault.root)) == sorted(f"claude-code/{rel}" for rel in made)


def test_a_session_that_went_on_replaces_its_older_copy(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 2})
    do_import(vault, ledger, "claude-code")
    grown = made[f"-p/{session_id(1)}.jsonl"]
    with grown.open("a", encoding="utf-8") as f:
        f.write(claude_session(session_id(1), 3, first=2))
    report = do_import(vault, ledger, "claude-code")
    assert (report.copied, report.sources[0].unchanged) == (1, 1)
    assert raw_files(vault.root)[f"claude-code/-p/{session_id(1)}.jsonl"] == grown.read_bytes()
    assert len(raw_files(vault.root)) == 2
    stored = conversations.get(ledger, session_id(1))
    assert stored is not None
    assert stored.message_count == 10


def test_a_session_rewritten_otherwise_is_kept_beside_its_older_copy(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 1})
    path = made[f"-p/{session_id(1)}.jsonl"]
    before = path.read_bytes()
    do_import(vault, ledger, "claude-code")
    path.write_text(claude_session(session_id(1), 3, first=7), encoding="utf-8")
    do_import(vault, ledger, "claude-code")
    landed = raw_files(vault.root)
    assert landed[f"claude-code/-p/{session_id(1)}.jsonl"] == before
    assert landed[f"claude-code/-p/{session_id(1)}-1.jsonl"] == path.read_bytes()


def test_a_hooks_earlier_copy_at_the_same_place_is_taken_over(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 1})
    source = made[f"-p/{session_id(1)}.jsonl"]
    captured = vault.raw / "claude-code" / "-p" / f"{session_id(1)}.jsonl"
    captured.parent.mkdir(parents=True)
    captured.write_bytes(source.read_bytes()[:200])
    do_import(vault, ledger, "claude-code")
    assert raw_files(vault.root) == {f"claude-code/-p/{session_id(1)}.jsonl": source.read_bytes()}


def test_a_foreign_file_in_the_way_is_never_overwritten(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 1})
    mine = vault.raw / "claude-code" / "-p" / f"{session_id(1)}.jsonl"
    mine.parent.mkdir(parents=True)
    mine.write_text("## user\n\nmy own notes\n", encoding="utf-8")
    do_import(vault, ledger, "claude-code")
    landed = raw_files(vault.root)
    assert landed[f"claude-code/-p/{session_id(1)}.jsonl"] == b"## user\n\nmy own notes\n"
    assert (
        landed[f"claude-code/-p/{session_id(1)}-1.jsonl"]
        == made[f"-p/{session_id(1)}.jsonl"].read_bytes()
    )


def test_a_file_that_cannot_be_read_is_one_line_and_the_rest_goes_in(
    vault: Vault, ledger: Ledger, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = claude_projects(home, {"-p": 3})
    locked = made[f"-p/{session_id(2)}.jsonl"]
    real = shutil.copyfile

    def copyfile(src: Path, dst: Path) -> object:
        if Path(src) == locked:
            raise PermissionError(13, "Permission denied", str(src))
        return real(src, dst)

    monkeypatch.setattr(shutil, "copyfile", copyfile)
    report = do_import(vault, ledger, "claude-code")
    [line] = report.sources[0].failed
    assert line == f"{locked}: cannot be read (Permission denied); skipped, the rest goes on"
    assert sorted(raw_files(vault.root)) == [
        f"claude-code/-p/{session_id(1)}.jsonl",
        f"claude-code/-p/{session_id(3)}.jsonl",
    ]
    monkeypatch.undo()
    # Not recorded: the next import tries it again.
    assert imports.get(ledger, str(locked)) is None


def test_a_dangling_link_in_a_source_is_one_line(vault: Vault, ledger: Ledger, home: Path) -> None:
    claude_projects(home, {"-p": 1})
    gone = home / ".claude" / "projects" / "-p" / "gone.jsonl"
    gone.symlink_to(home / "nowhere.jsonl")
    report = do_import(vault, ledger, "claude-code")
    assert report.sources[0].failed == [
        f"{gone}: cannot be read (No such file or directory); skipped"
    ]
    assert report.copied == 1


def test_a_fifo_given_as_a_source_is_refused_without_waiting_on_it(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SourceError, match=r"session\.jsonl: not a regular file"):
        parse_source(str(fifo))


def test_a_file_whose_name_is_not_utf8_is_one_line_and_the_rest_goes_in(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 2})
    odd = os.fsencode(made[f"-p/{session_id(2)}.jsonl"].parent) + b"/caf\xe9.jsonl"
    os.rename(made.pop(f"-p/{session_id(2)}.jsonl"), odd)
    report = do_import(vault, ledger, "claude-code")
    assert report.sources[0].failed == [
        f"{home}/.claude/projects/-p/caf\\xe9.jsonl: its name is not UTF-8; "
        "rename it to import it; skipped"
    ]
    assert sorted(raw_files(vault.root)) == [f"claude-code/{rel}" for rel in made]


def test_a_name_too_long_for_raw_is_one_line_and_the_rest_goes_in(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 2})
    longest = made[f"-p/{session_id(2)}.jsonl"].with_name("s" * 249 + ".jsonl")  # 255 bytes
    os.rename(made.pop(f"-p/{session_id(2)}.jsonl"), longest)
    # A file of the person's in the way: the copy would need a `-1` name, 257 bytes long.
    theirs = vault.raw / "claude-code" / "-p" / longest.name
    theirs.parent.mkdir(parents=True)
    theirs.write_text("the person's own notes\n", encoding="utf-8")
    report = do_import(vault, ledger, "claude-code")
    (failed,) = report.sources[0].failed
    assert failed.startswith(f"{longest}: its name is too long for Raw/ here")
    assert f"claude-code/-p/{session_id(1)}.jsonl" in raw_files(vault.root)
    assert theirs.read_text(encoding="utf-8") == "the person's own notes\n"


def test_a_link_in_a_source_to_a_file_inside_the_vault_is_not_imported_again(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 1})
    do_import(vault, ledger, "claude-code")
    copied = vault.raw / "claude-code" / f"-p/{session_id(1)}.jsonl"
    (made[f"-p/{session_id(1)}.jsonl"].parent / "again.jsonl").symlink_to(copied)
    report = do_import(vault, ledger, "claude-code")
    assert report.sources[0].copied == 0
    assert sorted(raw_files(vault.root)) == [f"claude-code/-p/{session_id(1)}.jsonl"]


def test_a_link_in_raw_leading_out_of_the_vault_takes_no_copy_out(
    vault: Vault, ledger: Ledger, home: Path, tmp_path: Path
) -> None:
    made = claude_projects(home, {"-p": 1})
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.raw / "claude-code").symlink_to(outside)
    report = do_import(vault, ledger, "claude-code")
    (failed,) = report.sources[0].failed
    assert "a link in Raw/ leads out of the vault" in failed
    assert list(outside.iterdir()) == []
    assert made  # the source is untouched
    assert all(p.is_file() for p in made.values())


def test_a_longer_copy_the_hook_landed_meanwhile_is_not_replaced(
    vault: Vault, ledger: Ledger, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = claude_projects(home, {"-p": 1})
    target = vault.raw / "claude-code" / f"-p/{session_id(1)}.jsonl"
    longer = made[f"-p/{session_id(1)}.jsonl"].read_bytes() + b'{"more": 1}\n'
    flush = copier_module._Copier._flush

    def hook_fires_first(self: copier_module._Copier) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(longer)
        flush(self)

    monkeypatch.setattr(copier_module._Copier, "_flush", hook_fires_first)
    report = do_import(vault, ledger, "claude-code")
    assert target.read_bytes() == longer
    assert report.sources[0].copied == 0


def test_a_different_copy_landed_meanwhile_is_not_replaced(
    vault: Vault, ledger: Ledger, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_projects(home, {"-p": 1})
    target = vault.raw / "claude-code" / f"-p/{session_id(1)}.jsonl"
    mine = b"## user\n\nmy own notes\n"
    flush = copier_module._Copier._flush

    def written_first(self: copier_module._Copier) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(mine)
        flush(self)

    monkeypatch.setattr(copier_module._Copier, "_flush", written_first)
    report = do_import(vault, ledger, "claude-code")
    assert target.read_bytes() == mine
    assert report.sources[0].copied == 0


def test_a_source_whose_name_is_not_utf8_is_refused(tmp_path: Path) -> None:
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.jsonl")
    Path(odd).write_text(claude_session(session_id(1)), encoding="utf-8")
    with pytest.raises(SourceError, match=r"caf\\xe9.jsonl: its name is not UTF-8; rename it"):
        parse_source(odd)


def test_since_leaves_out_what_last_changed_before_it(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 3})
    old = made[f"-p/{session_id(1)}.jsonl"]
    os.utime(old, (1_600_000_000, 1_600_000_000))
    report = do_import(vault, ledger, "claude-code", since=1_700_000_000)
    assert (report.copied, report.sources[0].older) == (2, 1)
    assert f"claude-code/-p/{session_id(1)}.jsonl" not in raw_files(vault.root)


def test_a_survey_counts_and_dates_what_an_import_would_copy(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    made = claude_projects(home, {"-p": 2, "-q": 1})
    for n, path in enumerate(made.values()):
        os.utime(path, (1_700_000_000 + n * 86400, 1_700_000_000 + n * 86400))
    size = sum(p.stat().st_size for p in made.values())
    [s] = survey(ledger, plans("claude-code")).sources
    assert (s.found, s.size, s.copied, s.unchanged) == (3, size, 3, 0)
    assert (s.first, s.last) == (1_700_000_000, 1_700_000_000 + 2 * 86400)
    assert raw_files(vault.root) == {}
    do_import(vault, ledger, "claude-code")
    [s] = survey(ledger, plans("claude-code")).sources
    assert (s.copied, s.unchanged) == (0, 3)


def test_codex_and_pi_sessions_keep_their_folders(vault: Vault, ledger: Ledger, home: Path) -> None:
    rollout = home / ".codex" / "sessions" / "2025" / "12" / "28"
    rollout.mkdir(parents=True)
    shutil.copy(FIX / "codex" / "rollout-2025-12-28T12-18-30-019b64e5.jsonl", rollout)
    pi = home / ".pi" / "agent" / "sessions" / "--home-ada-src-bread--"
    pi.mkdir(parents=True)
    shutil.copy(FIX / "pi" / "tree.jsonl", pi / "2025-12-01T10-00-00-000Z_abc.jsonl")
    (pi / "notes.md").write_text("not a session", encoding="utf-8")
    do_import(vault, ledger, "codex", "pi")
    assert sorted(raw_files(vault.root)) == [
        "codex/2025/12/28/rollout-2025-12-28T12-18-30-019b64e5.jsonl",
        "pi/--home-ada-src-bread--/2025-12-01T10-00-00-000Z_abc.jsonl",
    ]
    assert {s.source for s in conversations.by_source(ledger)} == {"codex", "pi"}


def test_a_named_source_takes_another_folder(vault: Vault, ledger: Ledger, tmp_path: Path) -> None:
    elsewhere = tmp_path / "backup"
    claude_projects(elsewhere, {"-p": 2})
    report = do_import(vault, ledger, f"claude-code={elsewhere / '.claude' / 'projects'}")
    assert report.copied == 2
    assert len(raw_files(vault.root)) == 2


def test_a_named_source_missing_at_its_default_place_is_nothing_to_import(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    [s] = do_import(vault, ledger, "codex").sources
    assert s.missing
    assert (s.found, s.failed) == (0, [])


def test_a_named_source_at_a_place_that_is_no_folder_is_refused(home: Path) -> None:
    with pytest.raises(SourceError, match=r"codex=/nowhere: /nowhere is not a folder"):
        parse_source("codex=/nowhere")


def test_one_hidden_file_given_as_source_lands_under_a_name_ingest_reads(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    hidden = tmp_path / ".session.jsonl"
    shutil.copy(FIX / "claude-code" / "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b.jsonl", hidden)
    do_import(vault, ledger, str(hidden))
    assert sorted(raw_files(vault.root)) == ["claude-code/session.jsonl"]
    (count,) = ledger.db.execute("SELECT count(*) FROM conversations").fetchone()
    assert count > 0  # ingested: a hidden name would have been passed over


def test_a_folder_goes_in_by_the_format_of_each_file(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "old-logs"
    (folder / "deep").mkdir(parents=True)
    shutil.copy(FIX / "claude-code" / "8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b.jsonl", folder / "deep")
    shutil.copy(FIX / "aider" / "aider.chat.history.md", folder)
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (folder / ".hidden.jsonl").write_text("{}", encoding="utf-8")
    report = do_import(vault, ledger, str(folder))
    assert sorted(raw_files(vault.root)) == [
        "aider/aider.chat.history.md",
        "claude-code/deep/8e7f6a5b-4c3d-4e2f-9a1b-0c9d8e7f6a5b.jsonl",
    ]
    assert report.sources[0].skipped == 1


def test_subagents_and_their_sidecars_land_beside_their_session(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    project = home / ".claude" / "projects" / "-p"
    shutil.copytree(FIX / "claude-code", project)
    do_import(vault, ledger, "claude-code")
    expected = {
        f"claude-code/-p/{p.relative_to(project).as_posix()}"
        for p in project.rglob("*")
        if p.is_file() and p.name.endswith((".jsonl", ".meta.json"))
    }
    assert set(raw_files(vault.root)) == expected
    # The sidecar was read with its subagent, never on its own.
    assert raw_files_in(ledger, "failed") == []


def test_no_copy_is_left_half_done_in_the_state_folder(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    claude_projects(home, {"-p": 2})
    staging = vault.state / copier_module.STAGING
    staging.mkdir()
    (staging / "copy-left-by-a-killed-import").write_bytes(b"half")
    do_import(vault, ledger, "claude-code")
    assert not staging.exists()
    assert len(raw_files(vault.root)) == 2


@pytest.mark.slow  # ten thousand real files
def test_ten_thousand_files_go_in_with_steady_progress(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    root = home / ".claude" / "projects"
    for n in range(10_000):
        folder = root / f"-p{n // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id(n)}.jsonl").write_text(f'{{"n": {n}}}\n', encoding="utf-8")
    steps: list[float] = []

    class Clock:
        def start(self, label: str, files: int | None, size: int) -> None:
            assert files == 10_000

        def step(self, files: int, size: int, name: str) -> None:
            steps.append(time.monotonic())

    report = run_import(vault, ledger, plans("claude-code"), watch=Clock())
    assert report.copied == 10_000
    assert len(steps) == 10_000
    # A batch's flush is the longest pause a bar ever shows.
    assert max(b - a for a, b in pairwise(steps)) < 2.0
    assert len(list(vault.raw.rglob("*.jsonl"))) == 10_000


def test_a_stop_asked_mid_way_ends_after_the_batch_in_hand(
    vault: Vault, ledger: Ledger, home: Path
) -> None:
    claude_projects(home, {"-p": 10})
    looked: list[int] = []

    class Count:
        def start(self, label: str, files: int | None, size: int) -> None:
            pass

        def step(self, files: int, size: int, name: str) -> None:
            looked.append(files)

    stop: Callable[[], bool] = lambda: len(looked) >= 4  # noqa: E731
    report = run_import(vault, ledger, plans("claude-code"), watch=Count(), stop=stop)
    assert report.interrupted
    assert report.copied == 4
    # What was copied is in place and recorded: the next import goes on from there.
    assert len(raw_files(vault.root)) == 4
    rest = run_import(vault, ledger, plans("claude-code"))
    assert (rest.copied, rest.sources[0].unchanged) == (6, 4)


def test_a_source_inside_the_vault_is_refused(vault: Vault) -> None:
    with pytest.raises(SourceError, match=r"inside the vault .*; what is there is not imported"):
        plans(str(vault.raw), vault=vault)


def test_a_folder_holding_the_vault_is_read_around_it(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    (vault.raw / "kept.md").write_text("## user\n\nhi\n\n## assistant\n\nhello\n")
    shutil.copy(FIX / "aider" / "aider.chat.history.md", tmp_path)
    report = do_import(vault, ledger, str(tmp_path))
    assert report.copied == 1
    assert sorted(raw_files(vault.root)) == ["aider/aider.chat.history.md", "kept.md"]


def test_a_full_disk_stops_the_import_in_one_line_and_it_resumes(
    vault: Vault, ledger: Ledger, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_projects(home, {"-p": 3})
    real = shutil.copyfile

    def full(src: Path, dst: Path) -> object:
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(shutil, "copyfile", full)
    with pytest.raises(DreamingError) as caught:
        do_import(vault, ledger, "claude-code")
    assert str(caught.value).startswith("cannot write into the vault (No space left on device: ")
    assert str(caught.value).endswith(
        "free some space or fix its permissions, then run the same command again: "
        "it goes on where it stopped"
    )
    assert raw_files(vault.root) == {}
    assert not (vault.state / copier_module.STAGING).exists()
    monkeypatch.setattr(shutil, "copyfile", real)
    assert do_import(vault, ledger, "claude-code").copied == 3
