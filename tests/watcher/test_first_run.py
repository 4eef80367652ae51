"""A vault's first run finds the history on this machine and offers it once: import it,
capture what comes next. Nothing is read until the person says yes, a "no" is never
asked again, and an import stopped half-way is taken up by the next run."""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreaming.checks.status import status
from dreaming.importing import discover as discover_module
from dreaming.importing.discover import discover
from dreaming.vault import Vault
from tests.import_support import chatgpt_conversation, chatgpt_zip, claude_projects, dreaming
from watcher.app import App
from watcher.cmd_first import ANSWERS, offer_history


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "XDG_DOWNLOAD_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def app(vault: Vault) -> Iterator[App]:
    with App.open(vault.root) as app:
        yield app


class Person:
    """Answers each question as told, and remembers what was asked."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, question: str) -> bool:
        self.asked.append(question)
        return self.answers.pop(0)


def raw_sessions(vault: Vault) -> list[Path]:
    return sorted((vault.raw / "claude-code").rglob("*.jsonl"))


def test_claude_code_history_is_found_with_its_sessions_size_and_dates(home: Path) -> None:
    made = claude_projects(home, {"bread": 3, "garden": 2})
    sidecar = home / ".claude" / "projects" / "bread" / "agent.meta.json"
    sidecar.write_text("{}", encoding="utf-8")
    (found,) = discover()
    assert found.source.kind == "claude-code"
    assert found.sessions == 5
    assert found.size == sum(p.stat().st_size for p in made.values()) + 2
    assert found.first is not None
    assert found.last is not None


def test_a_chatgpt_export_in_downloads_is_found_and_other_zips_are_not(home: Path) -> None:
    downloads = home / "Downloads"
    downloads.mkdir()
    chatgpt_zip(downloads / "export.zip", [chatgpt_conversation(1, 1.7e9)])
    with zipfile.ZipFile(downloads / "photos.zip", "w") as z:
        z.writestr("cat.jpg", b"\xff\xd8")
    (downloads / "broken.zip").write_bytes(b"PK\x03\x04 cut short")
    (found,) = discover()
    assert found.source.kind == "chatgpt"
    assert found.source.path.name == "export.zip"


def test_a_folder_past_the_count_cap_is_said_as_more_than(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_projects(home, {"bread": 5})
    monkeypatch.setattr(discover_module, "COUNT_CAP", 3)
    (found,) = discover()
    assert (found.sessions, found.more) == (3, True)


def test_a_link_loop_in_a_history_folder_is_not_followed(home: Path) -> None:
    claude_projects(home, {"bread": 2})
    (home / ".claude" / "projects" / "bread" / "loop").symlink_to(home / ".claude")
    (found,) = discover()
    assert found.sessions == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder without permission")
def test_an_unreadable_folder_is_one_line_and_the_rest_is_counted(home: Path) -> None:
    claude_projects(home, {"bread": 2, "secret": 1})
    locked = home / ".claude" / "projects" / "secret"
    locked.chmod(0)
    try:
        (found,) = discover()
    finally:
        locked.chmod(0o755)
    assert found.sessions == 2
    assert "secret" in (found.problem or "")


def test_yes_twice_imports_the_history_and_installs_the_hook(
    home: Path, app: App, vault: Vault
) -> None:
    claude_projects(home, {"bread": 3})
    person = Person(True, True)
    offer_history(app, person)
    assert len(person.asked) == 2
    assert len(raw_sessions(vault)) == 3
    assert status(app.ledger)["conversations"] == 3
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "SessionEnd" in settings["hooks"]


def test_no_is_remembered_and_never_asked_again(home: Path, app: App, vault: Vault) -> None:
    claude_projects(home, {"bread": 3})
    offer_history(app, Person(False, False))
    again = Person()
    offer_history(app, again)
    assert again.asked == []
    assert raw_sessions(vault) == []
    assert not (home / ".claude" / "settings.json").exists()


def test_an_import_stopped_half_way_is_taken_up_without_asking(
    home: Path, app: App, vault: Vault
) -> None:
    claude_projects(home, {"bread": 3})
    (vault.state / ANSWERS).write_text(json.dumps({"import": "started"}), encoding="utf-8")
    person = Person(False)  # the hook question only
    offer_history(app, person)
    assert [q.split()[0] for q in person.asked] == ["Capture"]
    assert len(raw_sessions(vault)) == 3


def test_without_a_terminal_the_commands_are_printed_and_nothing_is_done(
    home: Path, tmp_path: Path
) -> None:
    claude_projects(home, {"bread": 3})
    vault = tmp_path / "new-vault"
    done = dreaming(home, "init", str(vault), "--find-history")
    assert done.returncode == 0, done.stderr
    assert "found Claude Code history: 3 sessions" in done.stdout
    assert f"dreaming import claude-code --vault {vault}" in done.stdout
    assert f"dreaming hook install claude-code --vault {vault}" in done.stdout
    assert not (vault / "Raw" / "claude-code").exists()
    assert not (home / ".claude" / "settings.json").exists()


def test_init_without_a_terminal_looks_for_nothing_unless_asked(home: Path, tmp_path: Path) -> None:
    claude_projects(home, {"bread": 3})
    done = dreaming(home, "init", str(tmp_path / "v"))
    assert done.returncode == 0, done.stderr
    assert "Claude Code" not in done.stdout


def test_one_session_found_is_said_as_one_session(
    home: Path, app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    claude_projects(home, {"bread": 1})
    offer_history(app, Person(False, False))
    said = " ".join(capsys.readouterr().out.split())
    assert "found Claude Code history: 1 session in" in said
