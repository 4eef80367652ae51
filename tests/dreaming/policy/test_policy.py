"""The Meta pages in force: read once a run, a broken one replaced by its last good version."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreaming.config import Settings
from dreaming.errors import PolicyError
from dreaming.policy.pages import Policy, accept_edit, policy_problems
from dreaming.vault import Vault, checksum
from stages.runner.pipeline import run_night
from stages.segment.plan import parse_rules
from tests.rule_model import RuleModel
from tests.support import drop, every_load_gives, raw_note
from watcher.app import App
from watcher.cli import cli


def test_a_page_is_read_with_the_checksum_of_its_bytes(vault: Vault) -> None:
    page = Policy(vault).page("Chunking")
    assert page.text == (vault.meta / "Chunking.md").read_text(encoding="utf-8")
    assert page.checksum == checksum((vault.meta / "Chunking.md").read_bytes())


def test_a_page_is_read_once_a_run(vault: Vault) -> None:
    policy = Policy(vault)
    first = policy.text("Chunking")
    (vault.meta / "Chunking.md").write_text("edited mid-run\n", encoding="utf-8")
    assert policy.text("Chunking") == first


def test_a_missing_page_with_no_version_to_fall_back_on_says_how_to_restore_it(
    vault: Vault,
) -> None:
    (vault.meta / "Mine.md").write_text("x", encoding="utf-8")
    (vault.meta / "Mine.md").unlink()
    with pytest.raises(PolicyError, match="dreaming init"):
        Policy(vault).text("Mine")


def test_a_broken_page_keeps_its_last_good_version_and_is_reported(vault: Vault) -> None:
    good = Policy(vault, keep=True).text("Chunking")
    (vault.meta / "Chunking.md").write_bytes(b"\xff\xfe not text")
    policy = Policy(vault)
    assert policy.text("Chunking") == good
    (problem,) = policy.problems
    assert "Chunking.md: not UTF-8 text; save it as UTF-8" in problem
    assert "last good version" in problem


def test_a_broken_page_never_seen_good_falls_back_to_the_shipped_one(vault: Vault) -> None:
    shipped = (vault.meta / "Chunking.md").read_text(encoding="utf-8")
    (vault.meta / "Chunking.md").unlink()
    policy = Policy(vault)
    assert policy.text("Chunking") == shipped
    assert "dreaming init" in policy.problems[0]


def test_a_run_that_only_reads_remembers_nothing(vault: Vault) -> None:
    Policy(vault).text("Chunking")
    (vault.meta / "Chunking.md").write_text("# Chunking\n\nmine\n", encoding="utf-8")
    Policy(vault).text("Chunking")
    (vault.meta / "Chunking.md").write_bytes(b"\xff")
    assert "mine" not in Policy(vault).text("Chunking")


def broken_limits(vault: Vault) -> None:
    page = vault.meta / "Chunking.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(re.sub(r"max_messages: \d+", "max_messages: 1", text), encoding="utf-8")


def test_a_page_failing_its_checks_is_not_put_in_force(vault: Vault) -> None:
    shipped = (vault.meta / "Chunking.md").read_text(encoding="utf-8")
    broken_limits(vault)
    policy = Policy(vault, keep=True)
    assert policy.text("Chunking") == shipped
    (problem,) = policy.problems
    assert problem.startswith("Meta/Chunking.md: min_messages (2) must be at least 1")
    assert problem.endswith("until then the shipped version is in force")
    assert not (vault.state / "policy" / "Chunking.md").exists()


def test_a_10_mb_page_is_refused_without_being_read_whole(vault: Vault) -> None:
    with (vault.meta / "Chunking.md").open("ab") as f:
        f.write(b"x" * (10 * 1024 * 1024))
    policy = Policy(vault)
    policy.text("Chunking")
    assert "KiB a policy page may hold" in policy.problems[0]


def test_an_accepted_edit_becomes_the_last_good_version(vault: Vault) -> None:
    page = vault.meta / "Chunking.md"
    mine = page.read_text(encoding="utf-8").replace("max_messages: 500", "max_messages: 80")
    page.write_text(mine, encoding="utf-8")
    assert accept_edit(vault, "Chunking") == []
    assert (vault.state / "policy" / "Chunking.md").read_text(encoding="utf-8") == mine
    broken_limits(vault)
    problems = accept_edit(vault, "Chunking")
    assert [p.split(":")[0] for p in problems] == ["Meta/Chunking.md"]
    assert problems[0].endswith("until then its last good version is in force")
    assert Policy(vault).text("Chunking") == mine


def test_a_person_s_own_page_in_meta_is_not_policy(vault: Vault) -> None:
    (vault.meta / "My_Ideas.md").write_bytes(b"")
    assert accept_edit(vault, "My_Ideas") == []
    assert not (vault.state / "policy" / "My_Ideas.md").exists()


def test_policy_problems_lists_every_page_not_in_force(vault: Vault) -> None:
    assert policy_problems(vault) == []
    broken_limits(vault)
    (vault.meta / "Buckets.md").write_bytes(b"")
    (vault.meta / "Entities.md").unlink()
    found = policy_problems(vault)
    assert [p.split(":")[0] for p in found] == [
        "Meta/Buckets.md",
        "Meta/Chunking.md",
        "Meta/Entities.md",
    ]
    assert not (vault.state / "policy").exists()


def test_a_night_on_a_broken_page_runs_on_its_last_good_version_and_the_report_says_so(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    every_load_gives(monkeypatch, RuleModel())
    page = vault.meta / "Chunking.md"
    good = page.read_text(encoding="utf-8").replace("max_messages: 500", "max_messages: 80")
    page.write_text(good, encoding="utf-8")
    assert accept_edit(vault, "Chunking") == []
    drop(vault, "talk.md", raw_note(("user", "How do I keep bread?"), ("assistant", "Freeze it.")))
    page.write_bytes(b"")
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        report = run_night(app)
        assert report.stages[0].done == 1
        assert parse_rules(Policy(vault).text("Chunking")).max_messages == 80
    assert report.report is not None
    section = (vault.root / report.report).read_text(encoding="utf-8").split("UTC\n\n", 1)[1]
    assert section.startswith("> [!warning] Needs your attention\n> - Meta/Chunking.md: is empty;")
    assert "until then its last good version is in force" in section.splitlines()[1]


def test_status_shows_the_policy_problems(vault: Vault) -> None:
    def status(*args: str) -> str:
        result = CliRunner().invoke(cli, ["status", "--vault", str(vault.root), *args])
        assert result.exit_code == 0, result.output
        return result.output

    assert "Policy: every Meta page in force" in status()
    assert json.loads(status("--json"))["policy_problems"] == []
    (vault.meta / "Buckets.md").write_bytes(b"\0\0")
    text = status()
    assert "Policy: 1 Meta page problem;" in text
    assert "refused Meta/Buckets.md: holds binary data" in text
    (problem,) = json.loads(status("--json"))["policy_problems"]
    assert problem.startswith("Meta/Buckets.md: holds binary data")


@pytest.mark.timeout(10)
def test_status_on_a_named_pipe_for_a_meta_page_says_so_and_returns(vault: Vault) -> None:
    (vault.meta / "Buckets.md").unlink()
    os.mkfifo(vault.meta / "Buckets.md")
    result = CliRunner().invoke(cli, ["status", "--vault", str(vault.root), "--json"])
    assert result.exit_code == 0, result.output
    (problem,) = json.loads(result.output)["policy_problems"]
    assert problem == (
        "Meta/Buckets.md: a named pipe, not a file; delete it; "
        "until then the shipped version is in force"
    )


def test_a_meta_page_that_is_a_link_out_of_the_vault_is_not_read(
    vault: Vault, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "Chunking.md"
    elsewhere.write_bytes((vault.meta / "Chunking.md").read_bytes())
    (vault.meta / "Chunking.md").unlink()
    (vault.meta / "Chunking.md").symlink_to(elsewhere)
    policy = Policy(vault)
    policy.text("Chunking")
    (problem,) = policy.problems
    assert problem.startswith("Meta/Chunking.md: a link;")


@pytest.mark.timeout(10)
def test_a_named_pipe_as_the_last_good_version_falls_back_to_the_shipped_one(
    vault: Vault,
) -> None:
    (vault.state / "policy").mkdir()
    os.mkfifo(vault.state / "policy" / "Chunking.md")
    (vault.meta / "Chunking.md").write_bytes(b"")
    policy = Policy(vault, keep=True)
    policy.text("Chunking")
    (problem,) = policy.problems
    assert problem.endswith("until then the shipped version is in force")
