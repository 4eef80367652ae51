"""The capture hook driven as each host drives it: a real process, a real payload."""

from __future__ import annotations

import ast
import datetime
import errno
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import platformdirs
import pytest

from dreaming.capture import hook
from dreaming.capture.hostfile import HOOK_FILE, hook_argv
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from tests.capture_support import (
    PROJECT,
    SESSION,
    claude_projects,
    fire_argv,
    fire_claude,
    hook_log,
    host_env,
    session_end,
)
from tests.support import corpus_or_skip
from tests.watch_support import wait_for, watched

# Slow: the hook in child processes, as each host runs it.
pytestmark = pytest.mark.slow


def record(n: int, session: str = "11111111-2222-3333-4444-555555555555") -> str:
    """One Claude Code user record of a session."""
    return (
        json.dumps(
            {
                "type": "user",
                "sessionId": session,
                "uuid": f"00000000-0000-4000-8000-{n:012d}",
                "timestamp": f"2026-01-01T00:00:{n:02d}Z",
                "cwd": "/home/ada/src/notes",
                "message": {"role": "user", "content": f"question number {n} about the notes"},
            }
        )
        + "\n"
    )


def test_a_session_end_copies_the_session_and_its_subagents_into_raw(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    done = fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    copied = vault.raw / "claude-code" / PROJECT
    for rel in (
        f"{SESSION}.jsonl",
        f"{SESSION}/subagents/agent-a1b2c3d4e5f607182.jsonl",
        f"{SESSION}/subagents/agent-a1b2c3d4e5f607182.meta.json",
    ):
        assert (copied / rel).read_bytes() == (folder / rel).read_bytes(), rel
    [line] = hook_log(vault.root)
    assert f"claude-code SessionEnd {SESSION}: Raw/claude-code/{PROJECT}/{SESSION}.jsonl" in line
    assert "copied" in line
    assert "1 subagent files, 1 copied" in line


def test_a_corpus_session_is_captured_well_within_the_time_a_host_allows(
    vault: Vault, tmp_path: Path
) -> None:
    corpus = corpus_or_skip()
    project = "-src-experiments-claude_p"
    session = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
    folder = tmp_path / "home" / ".claude" / "projects" / project
    shutil.copytree(corpus / "claude-code" / project, folder)
    done = fire_claude(vault.root, session_end(folder / f"{session}.jsonl"), tmp_path / "home")
    assert done.returncode == 0
    copy = vault.raw / "claude-code" / project / f"{session}.jsonl"
    assert copy.read_bytes() == (folder / f"{session}.jsonl").read_bytes()
    sub = Path(session) / "subagents" / "agent-a2271d1.jsonl"
    assert (copy.parent / sub).read_bytes() == (folder / sub).read_bytes()
    # Claude Code cancels a SessionEnd hook after 1.5 s unless told otherwise.
    assert done.seconds < 1.0


def test_a_missing_vault_exits_0_and_says_so_in_the_user_state_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    gone = tmp_path / "moved-vault"
    done = fire_claude(gone, session_end(folder / f"{SESSION}.jsonl"), home)
    assert (done.returncode, done.stderr) == (0, "")
    [line] = (home / ".local" / "state" / "dreaming" / "hooks.log").read_text().splitlines()
    assert f"vault {gone}" in line
    assert "not a dreaming vault" in line
    assert not gone.exists()


def test_a_missing_transcript_exits_0_and_is_one_log_line(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    gone = home / ".claude" / "projects" / "-nowhere" / "x.jsonl"
    done = fire_claude(vault.root, session_end(gone), home)
    assert done.returncode == 0
    [line] = hook_log(vault.root)
    assert "no such file; nothing copied" in line


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (b"{not json", "payload is not JSON"),
        (b"[1, 2]", "payload is not a JSON object"),
        (b"", "payload is not JSON"),
        (b'{"session_id": "s"}', "names no transcript_path"),
        (b" " * (hook.MAX_PAYLOAD + 1), "payload over"),
    ],
)
def test_a_bad_payload_exits_0_and_is_one_log_line(
    vault: Vault, tmp_path: Path, payload: bytes, said: str
) -> None:
    done = fire_claude(vault.root, payload, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [line] = hook_log(vault.root)
    assert said in line
    assert sorted(p.name for p in vault.raw.iterdir()) == [".gitignore", "README.md"]


def test_a_longer_transcript_replaces_the_copy_and_a_shorter_one_never_does(
    vault: Vault, tmp_path: Path
) -> None:
    session = tmp_path / "home" / ".claude" / "projects" / "-notes" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(record(1) + record(2))
    copy = vault.raw / "claude-code" / "-notes" / "s1.jsonl"

    home = tmp_path / "home"
    fire_claude(vault.root, session_end(session, "PreCompact"), home)
    assert copy.read_text() == record(1) + record(2)
    session.write_text(record(1) + record(2) + record(3) + record(4))
    fire_claude(vault.root, session_end(session), home)
    assert copy.read_text() == record(1) + record(2) + record(3) + record(4)
    session.write_text(record(1))
    fire_claude(vault.root, session_end(session), home)
    assert copy.read_text() == record(1) + record(2) + record(3) + record(4)

    assert [p.name for p in copy.parent.iterdir()] == ["s1.jsonl"]
    said = hook_log(vault.root)
    assert "copied" in said[0]
    assert "copied" in said[1]
    assert "a longer copy" in said[2]


def test_a_copy_holding_other_bytes_is_kept_and_the_session_lands_beside_it(
    vault: Vault, tmp_path: Path
) -> None:
    session = tmp_path / "home" / ".claude" / "projects" / "-notes" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(record(1) + record(2))
    copy = vault.raw / "claude-code" / "-notes" / "s1.jsonl"
    copy.parent.mkdir(parents=True)
    # An earlier copy whose record differs where a reader does not look (the cwd).
    theirs = record(1).replace("/home/ada/src/notes", "/home/ada/elsewhere")
    copy.write_text(theirs)

    fire_claude(vault.root, session_end(session), tmp_path / "home")
    beside = copy.with_name("s1-1.jsonl")
    assert copy.read_text() == theirs
    assert beside.read_text() == record(1) + record(2)
    session.write_text(record(1) + record(2) + record(3))
    fire_claude(vault.root, session_end(session), tmp_path / "home")
    assert copy.read_text() == theirs
    assert beside.read_text() == record(1) + record(2) + record(3)
    assert sorted(p.name for p in copy.parent.iterdir()) == ["s1-1.jsonl", "s1.jsonl"]
    said = hook_log(vault.root)
    assert "copied (" in said[0]
    assert "as s1-1.jsonl: s1.jsonl holds other bytes" in said[0]


def test_a_copy_of_the_same_size_with_other_bytes_is_not_taken_for_the_session(
    vault: Vault, tmp_path: Path
) -> None:
    session = tmp_path / "home" / ".claude" / "projects" / "-notes" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(record(1))
    copy = vault.raw / "claude-code" / "-notes" / "s1.jsonl"
    copy.parent.mkdir(parents=True)
    theirs = record(2)
    copy.write_text(theirs)
    fire_claude(vault.root, session_end(session), tmp_path / "home")
    assert copy.read_text() == theirs
    assert copy.with_name("s1-1.jsonl").read_text() == record(1)


def test_a_subagent_sidecar_holding_other_bytes_is_kept(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    side = f"{SESSION}/subagents/agent-a1b2c3d4e5f607182.meta.json"
    copy = vault.raw / "claude-code" / PROJECT / side
    copy.parent.mkdir(parents=True)
    mine = b'{"agentType": "general-purpose", "description": "My own words"}'
    copy.write_bytes(mine)
    fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home)
    assert copy.read_bytes() == mine
    beside = copy.with_name("agent-a1b2c3d4e5f607182-1.meta.json")
    assert beside.read_bytes() == (folder / side).read_bytes()


def test_a_line_still_being_written_waits_for_the_next_firing(vault: Vault, tmp_path: Path) -> None:
    session = tmp_path / "home" / ".claude" / "projects" / "-notes" / "s2.jsonl"
    session.parent.mkdir(parents=True)
    whole = record(1) + record(2)
    session.write_text(whole[:-20])
    copy = vault.raw / "claude-code" / "-notes" / "s2.jsonl"

    fire_claude(vault.root, session_end(session, "PreCompact"), tmp_path / "home")
    assert copy.read_text() == record(1)
    session.write_text(whole)
    fire_claude(vault.root, session_end(session), tmp_path / "home")
    assert copy.read_text() == whole


def test_a_session_without_a_complete_line_copies_nothing(vault: Vault, tmp_path: Path) -> None:
    session = tmp_path / ".claude" / "projects" / "-notes" / "s3.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(record(1)[:-1])
    fire_claude(vault.root, session_end(session), tmp_path)
    assert not (vault.raw / "claude-code").exists()
    assert "no complete line yet" in hook_log(vault.root)[0]


def test_a_full_disk_is_logged_and_the_hook_still_exits_0(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / ".claude" / "projects" / "-notes" / "s4.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(record(1))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)

    def full(src: int, out: int, count: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(hook, "_copy_range", full)
    stdin = io.BytesIO(json.dumps(session_end(session)).encode())
    assert hook.main(["hook.py", "claude-code", str(vault.root)], stdin) == 0
    [line] = hook_log(vault.root)
    assert "disk full" in line
    assert list((vault.raw / "claude-code" / "-notes").iterdir()) == []


def test_a_link_in_raw_leading_out_of_the_vault_is_not_written_through(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault.raw / "claude-code").symlink_to(outside)
    home = tmp_path / "home"
    folder = claude_projects(home)
    assert fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home).returncode == 0
    assert list(outside.iterdir()) == []
    assert "leads out of Raw/ by a link; skipped" in hook_log(vault.root)[0]


def uuid7(at: datetime.datetime) -> str:
    ms = f"{int(at.timestamp() * 1000):012x}"
    return f"{ms[:8]}-{ms[8:]}-7a1b-8c2d-0123456789ab"


def notify(thread: str, kind: str = "agent-turn-complete") -> str:
    """Codex's notify argument."""
    return json.dumps(
        {
            "type": kind,
            "thread-id": thread,
            "turn-id": "1",
            "cwd": "/home/ada/src/notes",
            "input-messages": ["rename foo"],
            "last-assistant-message": "done",
        }
    )


def test_codex_notify_copies_the_thread_s_rollout_from_its_day(
    vault: Vault, tmp_path: Path
) -> None:
    at = datetime.datetime(2026, 3, 4, 22, 30)
    thread = uuid7(at)
    day = tmp_path / "codex" / "sessions" / "2026" / "03" / "04"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2026-03-04T22-30-00-{thread}.jsonl"
    rollout.write_text('{"type":"session_meta","payload":{"id":"x"}}\n')
    (day / "rollout-2026-03-04T22-31-00-0190aaaa-0000-7000-8000-000000000000.jsonl").write_text(
        "{}\n"
    )
    done = fire_argv(
        "codex", vault.root, notify(thread), tmp_path, CODEX_HOME=str(tmp_path / "codex")
    )
    assert done.returncode == 0
    copies = sorted(p.relative_to(vault.raw) for p in (vault.raw / "codex").rglob("*.jsonl"))
    assert copies == [Path("codex/2026/03/04") / rollout.name]
    assert "codex agent-turn-complete " + thread in hook_log(vault.root)[0]


def test_a_codex_thread_without_a_time_in_its_id_is_looked_for_on_every_day(
    vault: Vault, tmp_path: Path
) -> None:
    thread = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"  # a UUIDv4, as older Codex wrote
    day = tmp_path / ".codex" / "sessions" / "2025" / "05" / "07"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2025-05-07T17-24-21-{thread}.jsonl"
    rollout.write_text("{}\n")
    assert fire_argv("codex", vault.root, notify(thread), tmp_path).returncode == 0
    assert (vault.raw / "codex" / "2025" / "05" / "07" / rollout.name).read_text() == "{}\n"


def test_a_codex_notification_of_another_kind_is_ignored(vault: Vault, tmp_path: Path) -> None:
    thread = uuid7(datetime.datetime(2026, 3, 4))
    done = fire_argv("codex", vault.root, notify(thread, "approval-requested"), tmp_path)
    assert done.returncode == 0
    assert "carries no session; ignored" in hook_log(vault.root)[0]


def test_a_pi_session_lands_under_its_folder(vault: Vault, tmp_path: Path) -> None:
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-ada-src-notes--"
    folder.mkdir(parents=True)
    session = folder / "2026-01-02T10-00-00-000Z_0a1b2c3d.jsonl"
    session.write_text('{"type":"session","id":"0a1b2c3d"}\n')
    payload = json.dumps({"hook_event_name": "session_shutdown", "transcript_path": str(session)})
    assert fire_argv("pi", vault.root, payload, tmp_path).returncode == 0
    copy = vault.raw / "pi" / "--home-ada-src-notes--" / session.name
    assert copy.read_bytes() == session.read_bytes()


def test_the_hook_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse(HOOK_FILE.read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    outside = {n for n in names if n.partition(".")[0] not in sys.stdlib_module_names}
    assert outside == set()
    assert names >= {"json", "os"}


def test_a_captured_session_is_ingested_by_the_running_watcher(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    transcript = folder / f"{SESSION}.jsonl"
    rel = f"Raw/claude-code/{PROJECT}/{SESSION}.jsonl"

    def messages() -> int:
        row = ledger.db.execute(
            "SELECT SUM(message_count) FROM conversations WHERE file = ?", (rel,)
        ).fetchone()
        return int(row[0] or 0)

    with watched(vault) as w:
        fire_claude(vault.root, session_end(transcript, "PreCompact"), home)
        wait_for(lambda: messages() > 0)
        before = messages()
        with transcript.open("a") as f:
            f.write(
                json.dumps(
                    {
                        "type": "user",
                        "sessionId": SESSION,
                        "uuid": "00000000-0000-4000-8000-000000000099",
                        "timestamp": "2025-03-14T10:00:00.000Z",
                        "message": {"role": "user", "content": "One more question, later on."},
                    }
                )
                + "\n"
            )
        fire_claude(vault.root, session_end(transcript), home)
        wait_for(lambda: messages() == before + 1)
        assert w.reaction(lambda r: r.path == rel).outcome == "ingested"
    files = [r[0] for r in ledger.db.execute("SELECT path FROM raw_files ORDER BY path")]
    assert files == [
        rel,
        f"Raw/claude-code/{PROJECT}/{SESSION}/subagents/agent-a1b2c3d4e5f607182.jsonl",
    ]


def test_a_payload_never_ended_on_stdin_is_given_up_on(vault: Vault, tmp_path: Path) -> None:
    argv = hook_argv("claude-code", vault.root)
    start = time.monotonic()
    with subprocess.Popen(argv, stdin=subprocess.PIPE, env=host_env(tmp_path)) as proc:
        assert proc.stdin is not None
        proc.stdin.write(b'{"transcript_path": ')
        proc.stdin.flush()
        assert proc.wait(timeout=10) == 0
        took = time.monotonic() - start
        proc.stdin.close()
    assert took < hook.STDIN_SECONDS + 2
    assert "no end of the payload on stdin" in hook_log(vault.root)[0]


def test_a_fifo_where_the_transcript_was_is_skipped_not_waited_on(
    vault: Vault, tmp_path: Path
) -> None:
    fifo = tmp_path / ".claude" / "projects" / "-notes" / "s5.jsonl"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    sub = fifo.parent / "s5" / "subagents"
    sub.mkdir(parents=True)
    os.mkfifo(sub / "agent-a1.meta.json")
    os.mkfifo(sub / "agent-a1.jsonl")
    done = fire_claude(vault.root, session_end(fifo), tmp_path)
    assert done.returncode == 0
    assert done.seconds < 5
    assert "no such file; nothing copied" in hook_log(vault.root)[0]


def test_a_vault_whose_path_a_shell_would_mangle_is_still_the_one_written_to(
    tmp_path: Path,
) -> None:
    odd = init_vault(tmp_path / "my notes $HOME 'quoted' `x`; y").vault
    home = tmp_path / "home"
    folder = claude_projects(home)
    assert fire_claude(odd.root, session_end(folder / f"{SESSION}.jsonl"), home).returncode == 0
    assert (odd.raw / "claude-code" / PROJECT / f"{SESSION}.jsonl").is_file()


def test_a_log_over_a_megabyte_is_moved_aside_before_the_next_line(
    vault: Vault, tmp_path: Path
) -> None:
    log = vault.logs / "hooks.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("old line\n" * (hook.LOG_ROTATE_BYTES // 9 + 1))
    fire_claude(vault.root, b"{nope", tmp_path)
    assert (vault.logs / "hooks.log.1").read_text().startswith("old line\n")
    assert len(hook_log(vault.root)) == 1


@pytest.mark.parametrize("xdg", [None, "/tmp/some-state"])
def test_the_fallback_log_is_where_platformdirs_puts_the_user_s_state(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, xdg: str | None
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_STATE_HOME", xdg)
    assert hook.state_dir() == Path(platformdirs.user_state_dir("dreaming"))


def test_a_raw_folder_that_is_a_link_is_not_written_through(vault: Vault, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    vault.raw.rename(elsewhere)
    vault.raw.symlink_to(elsewhere)
    home = tmp_path / "home"
    folder = claude_projects(home)
    assert fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home).returncode == 0
    assert sorted(p.name for p in elsewhere.iterdir()) == [".gitignore", "README.md"]
    assert "is a link" in hook_log(vault.root)[0]
