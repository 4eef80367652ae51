"""`dreaming hook …` as a person runs it, and our pi extension as pi runs it (under node)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dreaming.capture import pi
from dreaming.capture.hostfile import hook_argv
from dreaming.vault import Vault
from tests.capture_support import SESSION, claude_projects, host_env, session_end
from tests.support import REPO
from tests.watch_support import wait_for

# Slow: the hook and pi in child processes.
pytestmark = pytest.mark.slow


def dreaming(home: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "watcher.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=host_env(home),
        timeout=timeout,
        # A reader gone wrong (one that reads /dev/zero to its end) fails, not the machine.
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)),
    )


def test_install_then_the_written_command_captures_then_uninstall(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    installed = dreaming(home, "hook", "install", "claude-code", "--vault", str(vault.root))
    assert installed.returncode == 0, installed.stderr
    settings = home / ".claude" / "settings.json"
    assert f"installed SessionEnd and PreCompact hooks in {settings}" in installed.stdout
    [group] = json.loads(settings.read_text())["hooks"]["SessionEnd"]
    command = group["hooks"][0]["command"]

    folder = claude_projects(home)
    payload = json.dumps(session_end(folder / f"{SESSION}.jsonl"))
    fired = subprocess.run(
        ["sh", "-c", command],
        input=payload,
        text=True,
        capture_output=True,
        env=host_env(home),
        timeout=30,
    )
    assert (fired.returncode, fired.stdout, fired.stderr) == (0, "", "")
    assert list((vault.raw / "claude-code").rglob(f"{SESSION}.jsonl"))

    status = dreaming(home, "hook", "status")
    assert f"claude-code: installed in {settings} (SessionEnd, PreCompact)" in status.stdout
    assert f"for the vault {vault.root}" in status.stdout
    assert f"SessionEnd {SESSION}: Raw/claude-code/" in status.stdout
    assert "codex: not installed" in status.stdout

    removed = dreaming(home, "hook", "uninstall", "claude-code")
    assert removed.returncode == 0
    assert json.loads(settings.read_text()) == {}
    assert "claude-code: not installed" in dreaming(home, "hook", "status").stdout


def test_a_settings_file_that_is_not_json_is_one_line_and_exit_1(
    vault: Vault, tmp_path: Path
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{ not json")
    done = dreaming(
        tmp_path, "hook", "install", "claude-code", "--vault", str(vault.root),
        "--settings", str(settings),
    )  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dreaming: error: {settings}: not valid JSON")
    assert settings.read_text() == "{ not json"


def test_status_says_when_the_installed_hook_has_lost_its_vault(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    dreaming(home, "hook", "install", "codex", "--vault", str(vault.root))
    shutil.rmtree(vault.root)
    status = dreaming(home, "hook", "status", "codex")
    assert status.returncode == 0
    assert f"broken: the vault {vault.root} is gone" in status.stderr


def test_install_needs_a_vault(tmp_path: Path) -> None:
    done = dreaming(tmp_path, "hook", "install", "pi", "--vault", str(tmp_path / "nothing"))
    assert done.returncode == 1
    assert "no such folder" in done.stderr
    assert not (tmp_path / ".pi").exists()


def test_the_pi_extension_starts_the_hook_when_pi_ends_a_session(
    vault: Vault, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-ada--"
    folder.mkdir(parents=True)
    session = folder / "2026-01-02T10-00-00-000Z_0a1b2c3d.jsonl"
    session.write_text('{"type":"session","id":"0a1b2c3d"}\n')
    (tmp_path / "ext.mjs").write_text(pi.render(hook_argv("pi", vault.root)))
    (tmp_path / "pi.mjs").write_text(
        'import ext from "./ext.mjs";\n'
        "const on = {};\n"
        "ext({ on: (name, fn) => { on[name] = fn; } });\n"
        "const file = () => process.argv[2];\n"
        "const ctx = { cwd: '/home/ada', sessionManager: { getSessionFile: file } };\n"
        "await on.session_shutdown({ reason: 'quit' }, ctx);\n"
        "await on.session_before_compact({}, { cwd: '/', sessionManager: {} });\n"
        "console.log(JSON.stringify(Object.keys(on)));\n"
    )
    done = subprocess.run(
        [node, str(tmp_path / "pi.mjs"), str(session)],
        capture_output=True,
        text=True,
        env=host_env(tmp_path),
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["session_shutdown", "session_before_compact"]
    copy = vault.raw / "pi" / folder.name / session.name
    wait_for(copy.exists)
    assert copy.read_bytes() == session.read_bytes()


@pytest.mark.parametrize("command", ["install", "status"])
@pytest.mark.parametrize("kind", ["fifo", "device", "link to a device", "folder"])
def test_a_settings_path_that_is_not_a_regular_file_is_one_line_at_once(
    vault: Vault, tmp_path: Path, command: str, kind: str
) -> None:
    settings = tmp_path / "settings.json"
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "device":
        settings = Path("/dev/zero")
    elif kind == "link to a device":
        settings.symlink_to("/dev/zero")
    else:
        settings.mkdir()
    args = ["--vault", str(vault.root)] if command == "install" else []
    done = dreaming(
        tmp_path, "hook", command, "claude-code", *args, "--settings", str(settings), timeout=20
    )
    said = done.stderr if command == "install" else done.stdout
    assert done.returncode == (1 if command == "install" else 0), done.stderr
    [line] = said.splitlines()[:1]
    assert f"{settings}: " in line
    assert "not a regular file" in line or "is a folder" in line
    assert "Traceback" not in done.stderr
    assert list(tmp_path.glob("settings.json.dreaming-backup-*")) == []


def test_a_settings_file_over_the_size_cap_is_refused_without_reading_it(
    vault: Vault, tmp_path: Path
) -> None:
    settings = tmp_path / "settings.json"
    with settings.open("wb") as f:
        f.write(b'{"model": "opus"}')
        f.truncate(5 << 20)
    done = dreaming(
        tmp_path, "hook", "install", "claude-code", "--vault", str(vault.root),
        "--settings", str(settings),
    )  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dreaming: error: {settings}: ")
    assert "over 4 MB" in line
    assert settings.stat().st_size == 5 << 20


def test_status_with_a_fifo_where_the_hook_log_is_does_not_hang(
    vault: Vault, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    dreaming(home, "hook", "install", "codex", "--vault", str(vault.root))
    vault.logs.mkdir(parents=True, exist_ok=True)
    os.mkfifo(vault.logs / "hooks.log")
    status = dreaming(home, "hook", "status", "codex", timeout=20)
    assert status.returncode == 0
    assert "no capture logged yet" in status.stdout
