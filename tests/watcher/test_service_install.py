"""`dreaming service install | uninstall | status`: the files are validated, nothing is loaded
(the launchctl/systemctl commands go to a recording runner)."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from watcher.service import Installer, ServiceError, render_unit

VENV_DREAMING = Path(sys.executable).parent / "dreaming"


class Recorder:
    def __init__(self, code: int = 0, stdout: str = "") -> None:
        self.calls: list[list[str]] = []
        self.code, self.stdout = code, stdout

    def __call__(self, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(argv))
        return subprocess.CompletedProcess(list(argv), self.code, self.stdout, "it said no")


def found(name: str) -> str:
    return f"/usr/bin/{name}"


def installer(vault: Vault, home: Path, system: str, runner: Recorder) -> Installer:
    return Installer(vault, runner=runner, find=found, home=home, system=system)


def test_the_launch_agent_has_run_at_load_keep_alive_throttle_logs_and_the_venv_s_dreaming(
    vault: Vault, tmp_path: Path
) -> None:
    runner = Recorder()
    service = installer(vault, tmp_path / "home", "Darwin", runner).install()
    assert service.path.parent == tmp_path / "home" / "Library" / "LaunchAgents"
    plist = plistlib.loads(service.path.read_bytes())
    root = str(vault.root.resolve())
    assert plist["Label"] == service.name
    assert service.path.name == f"{service.name}.plist"
    assert plist["ProgramArguments"] == [str(VENV_DREAMING.absolute()), "watch", "--vault", root]
    assert plist["RunAtLoad"] is True
    assert plist["KeepAlive"] is True
    assert plist["ThrottleInterval"] >= 10
    assert plist["StandardOutPath"] == f"{root}/.dreaming/logs/watch.out.log"
    assert plist["StandardErrorPath"] == f"{root}/.dreaming/logs/watch.err.log"
    assert (vault.root / ".dreaming" / "logs").is_dir(), "launchd does not create it"
    assert runner.calls[-1][:2] == ["/usr/bin/launchctl", "bootstrap"]
    assert runner.calls[-1][3] == str(service.path)


def test_a_vault_path_with_markup_characters_stays_one_plist_string(tmp_path: Path) -> None:
    vault = init_vault(tmp_path / "a <b> & 'c'").vault
    service = installer(vault, tmp_path / "home", "Darwin", Recorder()).install()
    plist = plistlib.loads(service.path.read_bytes())
    assert plist["ProgramArguments"][3] == str(vault.root.resolve())


def test_two_vaults_get_two_services(tmp_path: Path) -> None:
    one = init_vault(tmp_path / "one").vault
    two = init_vault(tmp_path / "two").vault
    home = tmp_path / "home"
    for system in ("Darwin", "Linux"):
        a = installer(one, home, system, Recorder()).install()
        b = installer(two, home, system, Recorder()).install()
        assert a.name != b.name
        assert a.path.exists()
        assert b.path.exists()


def test_the_systemd_unit_runs_the_venv_s_dreaming_watch_and_is_enabled(
    vault: Vault, tmp_path: Path
) -> None:
    runner = Recorder()
    service = installer(vault, tmp_path / "home", "Linux", runner).install()
    assert service.path.parent == tmp_path / "home" / ".config" / "systemd" / "user"
    text = service.path.read_text()
    root = vault.root.resolve()
    assert f'ExecStart="{VENV_DREAMING.absolute()}" "watch" "--vault" "{root}"' in text
    assert f"WorkingDirectory={root}" in text
    assert runner.calls == [
        ["/usr/bin/systemctl", "--user", "daemon-reload"],
        ["/usr/bin/systemctl", "--user", "enable", "--now", service.name],
    ]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
@pytest.mark.parametrize("name", ["vault", "my vault 100% $HOME"])
def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path, name: str) -> None:
    root = tmp_path / name
    root.mkdir()
    unit = f"dreaming-watch-{name.split()[0]}.service"
    path = tmp_path / "units" / unit
    path.parent.mkdir()
    path.write_text(render_unit(unit, VENV_DREAMING.absolute(), root))
    # Verifying needs a runtime folder; a container or CI runner may have none.
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir()
    checked = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    if "Failed to initialize manager" in checked.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {checked.stderr.strip()}")
    assert (checked.returncode, checked.stderr) == (0, "")


def test_uninstall_stops_and_removes_the_service(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = installer(vault, home, "Linux", Recorder()).install()
    runner = Recorder()
    assert installer(vault, home, "Linux", runner).uninstall() is True
    assert not service.path.exists()
    assert ["/usr/bin/systemctl", "--user", "disable", "--now", service.name] in runner.calls
    assert installer(vault, home, "Linux", Recorder()).uninstall() is False


def test_status_says_installed_and_what_the_manager_says(vault: Vault, tmp_path: Path) -> None:
    home = tmp_path / "home"
    installer(vault, home, "Linux", Recorder()).install()
    state = installer(vault, home, "Linux", Recorder(code=0, stdout="active\n")).status()
    assert (state.installed, state.loaded, state.detail) == (True, True, "active")
    gone = installer(vault, home, "Darwin", Recorder(code=113)).status()
    assert (gone.installed, gone.loaded) == (False, False)


def test_a_missing_service_manager_says_how_to_run_the_watcher_by_hand(
    vault: Vault, tmp_path: Path
) -> None:
    none = Installer(vault, runner=Recorder(), find=lambda _: None, home=tmp_path, system="Linux")
    with pytest.raises(ServiceError, match="systemctl is not available") as refused:
        none.install()
    assert f"dreaming watch --vault {vault.root}" in str(refused.value)


def test_a_refused_load_is_one_clear_error(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(ServiceError, match="failed: it said no"):
        installer(vault, tmp_path, "Linux", Recorder(code=1)).install()


def test_another_system_has_no_service_and_is_told_to_run_it_by_hand(
    vault: Vault, tmp_path: Path
) -> None:
    with pytest.raises(ServiceError, match="no login service on Windows"):
        installer(vault, tmp_path, "Windows", Recorder())
