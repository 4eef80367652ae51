"""Installing the capture hook into each host's settings, and taking it out again: the
person's own settings and hooks stay as they were."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from dreaming.capture import claude, codex, pi
from dreaming.capture.hostfile import HOOK_FILE, HookError, backup, hook_argv, shell_command
from dreaming.vault import Vault
from tests.capture_support import fire_argv

THEIRS: dict[str, Any] = {
    "model": "opus",
    "hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "say bye"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "check-bash"}]}
        ],
    },
    "permissions": {"allow": ["Bash(ls:*)"]},
    "statusLine": {"type": "command", "command": "echo ✓"},
}


def settings_file(tmp_path: Path, doc: object = THEIRS, indent: int = 2) -> Path:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.dreaming-backup-*"))


def commands(path: Path, event: str) -> list[str]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [h["command"] for g in doc["hooks"].get(event, []) for h in g["hooks"]]


def test_install_adds_ours_beside_the_person_s_hooks_and_backs_the_file_up(
    vault: Vault, tmp_path: Path
) -> None:
    path = settings_file(tmp_path)
    before = path.read_bytes()
    change = claude.install(path, hook_argv("claude-code", vault.root))
    ours = shell_command(hook_argv("claude-code", vault.root))
    assert change.changed
    assert commands(path, "SessionEnd") == ["say bye", ours]
    assert commands(path, "PreCompact") == [ours]
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert {k: doc[k] for k in ("model", "permissions", "statusLine")} == {
        k: THEIRS[k] for k in ("model", "permissions", "statusLine")
    }
    assert doc["hooks"]["PreCompact"][0]["hooks"][0]["timeout"] == claude.TIMEOUT
    assert backups(path) == [change.backup]
    assert change.backup is not None
    assert change.backup.read_bytes() == before


def test_a_second_install_changes_nothing_not_even_a_backup(vault: Vault, tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    claude.install(path, hook_argv("claude-code", vault.root))
    after_first, stat = path.read_bytes(), path.stat()
    change = claude.install(path, hook_argv("claude-code", vault.root))
    assert not change.changed
    assert path.read_bytes() == after_first
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert len(backups(path)) == 1


@pytest.mark.parametrize("indent", [2, 4])
def test_uninstall_gives_back_the_person_s_file_byte_for_byte(
    vault: Vault, tmp_path: Path, indent: int
) -> None:
    path = settings_file(tmp_path, indent=indent)
    before = path.read_bytes()
    claude.install(path, hook_argv("claude-code", vault.root))
    change = claude.uninstall(path)
    assert change.changed
    assert path.read_bytes() == before
    assert not claude.uninstall(path).changed


def test_uninstall_leaves_the_person_s_hook_that_shares_a_group_with_ours(
    vault: Vault, tmp_path: Path
) -> None:
    ours = {"type": "command", "command": shell_command(hook_argv("claude-code", vault.root))}
    doc = {
        "hooks": {
            "PreCompact": [
                {"matcher": "auto", "hooks": [ours, {"type": "command", "command": "x"}]}
            ]
        }
    }
    path = settings_file(tmp_path, doc)
    claude.uninstall(path)
    assert json.loads(path.read_text()) == {
        "hooks": {
            "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "x"}]}]
        }
    }


def test_installing_for_another_vault_replaces_ours_and_adds_none(
    vault: Vault, tmp_path: Path
) -> None:
    path = settings_file(tmp_path)
    claude.install(path, hook_argv("claude-code", tmp_path / "old-vault"))
    assert claude.install(path, hook_argv("claude-code", vault.root)).changed
    ours = shell_command(hook_argv("claude-code", vault.root))
    assert commands(path, "SessionEnd") == ["say bye", ours]
    assert commands(path, "PreCompact") == [ours]
    assert claude.inspect(path).argv == tuple(hook_argv("claude-code", vault.root))


@pytest.mark.parametrize(
    "text",
    [
        '{"model": "opus",',
        "",
        '["a list"]',
        '{"hooks": ["a list"]}',
        '{"hooks": {"SessionEnd": {"not": "a list"}}}',
    ],
)
def test_a_settings_file_claude_code_could_not_read_is_refused_and_left_as_it_was(
    vault: Vault, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HookError) as e:
        claude.install(path, hook_argv("claude-code", vault.root))
    assert str(e.value).startswith(f"{path}: ")
    assert "nothing was changed" in str(e.value)
    assert "\n" not in str(e.value)
    assert path.read_text(encoding="utf-8") == text
    assert backups(path) == []


def test_a_missing_settings_file_is_created_with_our_hooks_only(
    vault: Vault, tmp_path: Path
) -> None:
    path = tmp_path / "new" / ".claude" / "settings.json"
    change = claude.install(path, hook_argv("claude-code", vault.root))
    assert change.changed
    assert change.backup is None
    assert set(json.loads(path.read_text())["hooks"]) == {"SessionEnd", "PreCompact"}
    claude.uninstall(path)
    assert json.loads(path.read_text()) == {}


def test_a_settings_file_that_is_a_link_stays_a_link(vault: Vault, tmp_path: Path) -> None:
    real = settings_file(tmp_path / "dotfiles")
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    claude.install(link, hook_argv("claude-code", vault.root))
    assert link.is_symlink()
    assert "PreCompact" in json.loads(real.read_text())["hooks"]


def test_an_edit_made_while_installing_is_kept_and_the_install_refused(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = settings_file(tmp_path)

    def backup_then_an_edit(p: Path) -> Path:
        saved = backup(p)
        p.write_text('{"model": "sonnet"}\n')
        return saved

    monkeypatch.setattr(claude, "backup", backup_then_an_edit)
    with pytest.raises(HookError, match="changed while dreaming was editing it"):
        claude.install(path, hook_argv("claude-code", vault.root))
    assert path.read_text() == '{"model": "sonnet"}\n'


def test_the_default_settings_file_follows_home_and_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert claude.default_path() == tmp_path / ".claude" / "settings.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "work-profile"))
    assert claude.default_path() == tmp_path / "work-profile" / "settings.json"


CONFIG = """\
# my codex settings
model = "gpt-5.1-codex-max"
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "4000"]

[profiles.fast]
model = "gpt-5.1"
"""


def config_file(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_codex_install_puts_our_notify_first_and_keeps_every_other_setting(
    vault: Vault, tmp_path: Path
) -> None:
    path = config_file(tmp_path)
    argv = hook_argv("codex", vault.root)
    change = codex.install(path, argv)
    assert change.changed
    assert change.backup is not None
    assert change.backup.read_text() == CONFIG
    doc = tomllib.loads(path.read_text())
    assert doc == {**tomllib.loads(CONFIG), "notify": argv}
    assert path.read_text().endswith(CONFIG)
    assert not codex.install(path, argv).changed
    assert len(backups(path)) == 1


def test_codex_uninstall_gives_back_the_file_byte_for_byte(vault: Vault, tmp_path: Path) -> None:
    path = config_file(tmp_path)
    codex.install(path, hook_argv("codex", vault.root))
    assert codex.uninstall(path).changed
    assert path.read_text() == CONFIG
    assert not codex.uninstall(path).changed


def test_a_notify_of_the_person_s_is_refused_never_replaced(vault: Vault, tmp_path: Path) -> None:
    text = 'notify = ["python3", "/home/ada/.codex/notify.py"]\n' + CONFIG
    path = config_file(tmp_path, text)
    with pytest.raises(HookError, match="not dreaming's; Codex runs only one notify program"):
        codex.install(path, hook_argv("codex", vault.root))
    assert path.read_text() == text
    assert backups(path) == []
    assert not codex.uninstall(path).changed


def test_an_invalid_codex_config_is_refused(vault: Vault, tmp_path: Path) -> None:
    path = config_file(tmp_path, "model = \n")
    with pytest.raises(HookError, match="not valid TOML"):
        codex.install(path, hook_argv("codex", vault.root))
    assert path.read_text() == "model = \n"


def test_codex_install_for_another_vault_rewrites_our_line(vault: Vault, tmp_path: Path) -> None:
    path = config_file(tmp_path)
    codex.install(path, hook_argv("codex", tmp_path / "old"))
    codex.install(path, hook_argv("codex", vault.root))
    assert tomllib.loads(path.read_text())["notify"] == hook_argv("codex", vault.root)
    assert [line for line in path.read_text().splitlines() if "notify" in line] == [
        codex.notify_line(hook_argv("codex", vault.root))
    ]
    codex.uninstall(path)
    assert path.read_text() == CONFIG


def test_a_missing_codex_config_is_created(vault: Vault, tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    assert codex.install(path, hook_argv("codex", vault.root)).changed
    assert tomllib.loads(path.read_text()) == {"notify": hook_argv("codex", vault.root)}


def test_the_installed_notify_command_captures_a_rollout(vault: Vault, tmp_path: Path) -> None:
    path = config_file(tmp_path)
    codex.install(path, hook_argv("codex", vault.root))
    argv = tomllib.loads(path.read_text())["notify"]
    assert argv[2:4] == ["-S", str(HOOK_FILE)]
    thread = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    day = tmp_path / ".codex" / "sessions" / "2025" / "05" / "07"
    day.mkdir(parents=True)
    (day / f"rollout-2025-05-07T17-24-21-{thread}.jsonl").write_text("{}\n")
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": thread})
    assert fire_argv("codex", vault.root, payload, tmp_path).returncode == 0
    assert len(list((vault.raw / "codex").rglob("rollout-*.jsonl"))) == 1


def test_pi_install_writes_our_extension_and_uninstall_removes_it(
    vault: Vault, tmp_path: Path
) -> None:
    path = tmp_path / ".pi" / "agent" / "extensions" / pi.NAME
    argv = hook_argv("pi", vault.root)
    assert pi.install(path, argv).changed
    assert json.dumps(argv) in path.read_text()
    assert pi.inspect(path).argv == tuple(argv)
    assert not pi.install(path, argv).changed
    assert pi.uninstall(path).changed
    assert not path.exists()
    assert not pi.uninstall(path).changed


def test_a_pi_extension_of_that_name_that_is_not_ours_is_left_alone(
    vault: Vault, tmp_path: Path
) -> None:
    path = tmp_path / pi.NAME
    path.write_text("export default function (pi) {}\n")
    with pytest.raises(HookError, match="not dreaming's"):
        pi.install(path, hook_argv("pi", vault.root))
    assert not pi.uninstall(path).changed
    assert path.read_text() == "export default function (pi) {}\n"


def test_a_claude_code_that_runs_no_hook_is_said(vault: Vault, tmp_path: Path) -> None:
    path = settings_file(tmp_path, {**THEIRS, "disableAllHooks": True})
    claude.install(path, hook_argv("claude-code", vault.root))
    warning = claude.inspect(path).warning
    assert warning is not None
    assert "disableAllHooks" in warning
    assert claude.inspect(settings_file(tmp_path / "other")).warning is None
