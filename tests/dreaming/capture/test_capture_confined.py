"""What the capture hook will read and write: only the host's own session files, only a
bounded amount of each, and its log only as a plain file of the vault's."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

import pytest

from dreaming.capture import hook
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
    session_end,
)

SECRET = '{"type":"user","message":{"role":"user","content":"not a session of the host"}}\n'


def raw_files(vault: Vault) -> list[Path]:
    # Raw/.gitignore is the vault's, never a capture.
    return sorted(
        p.relative_to(vault.raw)
        for p in vault.raw.rglob("*")
        if p.is_file() and p.name != ".gitignore"
    )


def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere" / "secret.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SECRET)
    return path


@pytest.mark.parametrize("where", ["outside", "dot-dot", "link", "link-folder"])
def test_a_transcript_path_outside_claude_code_s_projects_is_not_copied(
    vault: Vault, tmp_path: Path, where: str
) -> None:
    home = tmp_path / "home"
    projects = claude_projects(home).parent
    secret = secret_file(tmp_path)
    named = {
        "outside": secret,
        "dot-dot": projects / ".." / ".." / ".." / "elsewhere" / "secret.jsonl",
        "link": projects / PROJECT / "linked.jsonl",
        "link-folder": projects / "-linked" / "secret.jsonl",
    }[where]
    if where == "link":
        named.symlink_to(secret)
    if where == "link-folder":
        named.parent.symlink_to(secret.parent)
    done = fire_claude(vault.root, session_end(named), home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert raw_files(vault) == [Path("README.md")]
    [line] = hook_log(vault.root)
    assert "not a session file of claude-code" in line
    assert "nothing copied" in line


@pytest.mark.parametrize("name", [".dreaming/ledger.sqlite", ".git/config"])
def test_a_payload_naming_a_file_of_the_vault_copies_nothing(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    claude_projects(home)
    # The one way a vault's file can be under the host's folder: the vault is there.
    inside = init_vault(home / ".claude" / "projects" / "-vault").vault
    Ledger(inside.ledger_path).close()
    fire_claude(inside.root, session_end(inside.root / name), home)
    assert raw_files(inside) == [Path("README.md")]
    [line] = hook_log(inside.root)
    assert "inside the vault" in line


def test_a_vault_file_named_from_outside_the_host_s_folder_copies_nothing(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    claude_projects(home)
    fire_claude(vault.root, session_end(vault.root / ".dreaming" / "ledger.sqlite"), home)
    assert raw_files(vault) == [Path("README.md")]
    assert "not a session file of claude-code" in hook_log(vault.root)[0]


def test_a_session_under_claude_config_dir_is_captured(vault: Vault, tmp_path: Path) -> None:
    config = tmp_path / "profile"
    folder = config / "projects" / "-notes"
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text(SECRET)
    home = tmp_path / "home"
    fire_claude(vault.root, session_end(folder / "s1.jsonl"), home, CLAUDE_CONFIG_DIR=str(config))
    assert raw_files(vault) == [Path("README.md"), Path("claude-code/-notes/s1.jsonl")]
    # The same file is not a session of a Claude Code that keeps its folder in ~/.claude.
    fire_claude(vault.root, session_end(folder / "s1.jsonl"), home)
    assert "not a session file of claude-code" in hook_log(vault.root)[1]


def test_a_subagent_file_that_links_out_of_the_projects_is_not_copied(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    subagents = folder / SESSION / "subagents"
    (subagents / "agent-b0.jsonl").symlink_to(secret_file(tmp_path))
    (subagents / "agent-b1.meta.json").symlink_to(secret_file(tmp_path))
    fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home)
    copied = {p.name for p in (vault.raw / "claude-code" / PROJECT).rglob("*")}
    assert "agent-b0.jsonl" not in copied
    assert "agent-b1.meta.json" not in copied
    assert "agent-a1b2c3d4e5f607182.jsonl" in copied
    [line] = hook_log(vault.root)
    assert "agent-b0.jsonl: not a session file of claude-code" in line
    assert "agent-b1.meta.json: not a session file of claude-code" in line


def test_a_codex_rollout_that_links_out_of_its_sessions_is_not_copied(
    vault: Vault, tmp_path: Path
) -> None:
    thread = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    day = tmp_path / ".codex" / "sessions" / "2025" / "05" / "07"
    day.mkdir(parents=True)
    (day / f"rollout-2025-05-07T17-24-21-{thread}.jsonl").symlink_to(secret_file(tmp_path))
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": thread})
    assert fire_argv("codex", vault.root, payload, tmp_path).returncode == 0
    assert raw_files(vault) == [Path("README.md")]
    assert "not a session file of codex" in hook_log(vault.root)[0]


def test_a_pi_transcript_outside_pi_s_sessions_is_not_copied(vault: Vault, tmp_path: Path) -> None:
    (tmp_path / ".pi" / "agent" / "sessions").mkdir(parents=True)
    payload = json.dumps(
        {"hook_event_name": "session_shutdown", "transcript_path": str(secret_file(tmp_path))}
    )
    assert fire_argv("pi", vault.root, payload, tmp_path).returncode == 0
    assert raw_files(vault) == [Path("README.md")]
    assert "not a session file of pi" in hook_log(vault.root)[0]


def test_a_pi_session_under_pi_coding_agent_dir_is_captured(vault: Vault, tmp_path: Path) -> None:
    folder = tmp_path / "pi-profile" / "sessions" / "--home-ada--"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(SECRET)
    payload = json.dumps({"hook_event_name": "x", "transcript_path": str(folder / "s.jsonl")})
    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "pi-profile")}
    assert fire_argv("pi", vault.root, payload, tmp_path / "home", **env).returncode == 0
    assert raw_files(vault) == [Path("README.md"), Path("pi/--home-ada--/s.jsonl")]


def test_a_subagent_sidecar_over_the_cap_is_skipped_and_said(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = claude_projects(home)
    big = folder / SESSION / "subagents" / "agent-big.meta.json"
    with big.open("wb") as f:
        f.truncate(hook.MAX_SIDECAR + 1)
    done = fire_claude(vault.root, session_end(folder / f"{SESSION}.jsonl"), home)
    assert done.returncode == 0
    assert not (vault.raw / "claude-code" / PROJECT / SESSION / "subagents" / big.name).exists()
    [line] = hook_log(vault.root)
    assert f"agent-big.meta.json: {hook.MAX_SIDECAR + 1} bytes, over 64 KB; skipped" in line


def test_a_sidecar_is_read_no_further_than_the_cap(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sidecar that grows past what its size said is cut off, not read to its end."""
    side = tmp_path / "home" / "agent-a.meta.json"
    side.parent.mkdir()
    side.write_bytes(b"{}")
    asked: list[int] = []
    real_read = os.read

    def read(fd: int, n: int) -> bytes:
        asked.append(n)
        return b"x" * n if len(asked) < 100 else real_read(fd, n)

    monkeypatch.setattr(os, "read", read)
    dest = vault.raw / "agent-a.meta.json"
    with pytest.raises(hook.Skip, match="over 64 KB; skipped"):
        hook.copy_whole(side, dest)
    assert sum(asked) <= hook.MAX_SIDECAR + 1
    assert not dest.exists()


def test_the_hook_log_is_never_written_through_a_link(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs\n")
    vault.logs.mkdir(parents=True, exist_ok=True)
    (vault.logs / "hooks.log").symlink_to(outside)
    home = tmp_path / "home"
    fire_claude(vault.root, b"{nope", home)
    assert outside.read_text() == "theirs\n"
    [line] = (home / ".local" / "state" / "dreaming" / "hooks.log").read_text().splitlines()
    assert f"vault {vault.root}: " in line
    assert "payload is not JSON" in line


def test_a_fifo_where_the_hook_log_is_does_not_hang_the_hook(vault: Vault, tmp_path: Path) -> None:
    vault.logs.mkdir(parents=True, exist_ok=True)
    os.mkfifo(vault.logs / "hooks.log")
    home = tmp_path / "home"
    done = fire_claude(vault.root, b"{nope", home, timeout=10)
    assert done.returncode == 0
    assert "payload is not JSON" in (home / ".local/state/dreaming/hooks.log").read_text()


def test_a_codex_session_folder_that_is_a_link_is_followed(vault: Vault, tmp_path: Path) -> None:
    """A host folder kept elsewhere (a dotfiles link) is still the host's folder."""
    real = tmp_path / "dotfiles" / "codex"
    at = datetime.datetime(2026, 3, 4, 22, 30)
    thread = f"{int(at.timestamp() * 1000):012x}"
    thread = f"{thread[:8]}-{thread[8:]}-7a1b-8c2d-0123456789ab"
    day = real / "sessions" / "2026" / "03" / "04"
    day.mkdir(parents=True)
    (day / f"rollout-2026-03-04T22-30-00-{thread}.jsonl").write_text("{}\n")
    (tmp_path / ".codex").symlink_to(real)
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": thread})
    assert fire_argv("codex", vault.root, payload, tmp_path).returncode == 0
    assert len(list((vault.raw / "codex").rglob("rollout-*.jsonl"))) == 1
