"""`settle` on real vaults and real git: the person's edit committed as theirs, then the
heated card and the notes index committed as dreaming's; `dreaming station heat | look`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dreaming.article.document import build
from dreaming.errors import RefusedFileError
from dreaming.ledger import Ledger
from dreaming.query.reindex import reindex
from dreaming.station.notes import note_id
from dreaming.station.settle import Changed, article_stems, git_head, index_path, look, settle
from dreaming.vault import OwnWrites, Vault
from dreaming.vault.repo import VaultRepo
from watcher.cli import cli

NOW = "2026-05-01T09:30:00+00:00"
LATER = "2026-05-01T11:45:00+00:00"


def git(vault: Vault, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=vault.root, capture_output=True, text=True, check=True
    ).stdout


def set_intent(vault: Vault, intent: str) -> Path:
    card = vault.root / "STATION.md"
    card.write_text(card.read_text().replace("(none yet)", intent))
    return card


def add_notes(vault: Vault, *lines: str) -> Path:
    page = vault.root / "NOTES.md"
    head = page.read_text().split("\n- ", 1)[0].rstrip("\n")
    page.write_text(head + "\n\n" + "".join(f"- {line}\n" for line in lines))
    return page


def commit_article(vault: Vault, stem: str) -> None:
    (vault.articles / f"{stem}.md").write_text(f"# {stem.replace('_', ' ')}\n\nA page.\n")
    git(vault, "add", "articles")
    git(vault, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", f"add {stem}")


def rows(vault: Vault) -> dict[str, str]:
    found = {}
    for line in (vault.root / "STATION.md").read_text().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if line.startswith("| ") and len(cells) == 2:
            found[cells[0]] = cells[1]
    return found


def test_a_persons_edit_is_committed_as_theirs_then_the_heat_as_dreamings(vault: Vault) -> None:
    commit_article(vault, "Python_packaging")
    set_intent(vault, "fix python packaging")
    result = settle(vault, OwnWrites(), changed={"station"}, now=NOW)
    assert result.problems == []
    assert git(vault, "log", "-1", "--format=%an", "HEAD~1").strip() != "dreaming"
    assert git(vault, "log", "-1", "--format=%s", "HEAD~1").strip() == "Edit STATION.md"
    assert git(vault, "log", "-1", "--format=%an", "HEAD").strip() == "dreaming"
    assert "Dreaming-Run: station-20260501T093000Z" in git(vault, "log", "-1", "--format=%B")
    assert git(vault, "show", "--name-only", "--format=", "HEAD~1").split() == ["STATION.md"]
    assert git(vault, "status", "--porcelain") == ""
    assert rows(vault)["Working"] == "[[articles/Python_packaging\\|Python packaging]]"
    assert rows(vault)["Git"] == "main@" + git(vault, "rev-parse", "--short=7", "HEAD~2").strip()


def test_a_pending_card_edit_is_committed_as_theirs_when_notes_changed(vault: Vault) -> None:
    set_intent(vault, "my pending intent")
    add_notes(vault, "a note")
    settle(vault, OwnWrites(), changed={"notes"}, now=NOW)
    authors = git(vault, "log", "-2", "--format=%an", "--", "STATION.md").split("\n")
    assert authors[0] == "dreaming"
    assert authors[1] != "dreaming"
    theirs = git(vault, "show", "HEAD~1:STATION.md")
    assert "| Intent | my pending intent |" in theirs
    assert "Heated | —" in theirs


def test_our_writes_are_recorded_in_the_registry(vault: Vault) -> None:
    registry = OwnWrites()
    set_intent(vault, "anything")
    settle(vault, registry, changed={"station", "notes"}, now=NOW)
    assert registry.is_own(vault.root / "STATION.md")
    assert registry.is_own(index_path(vault))
    assert not registry.is_own(vault.root / "NOTES.md")


def test_a_second_settle_of_a_hot_card_writes_and_commits_nothing(vault: Vault) -> None:
    set_intent(vault, "first intent")
    settle(vault, OwnWrites(), changed={"station", "notes"}, now=NOW)
    head = git(vault, "rev-parse", "HEAD")
    card = (vault.root / "STATION.md").read_bytes()
    registry = OwnWrites()
    result = settle(vault, registry, changed={"station", "notes"}, now=LATER)
    assert result.problems == []
    assert "STATION.md is already hot" in result.said
    assert git(vault, "rev-parse", "HEAD") == head
    assert (vault.root / "STATION.md").read_bytes() == card
    assert not registry.is_own(vault.root / "STATION.md")


def test_the_notes_index_is_committed_and_tracked(vault: Vault) -> None:
    add_notes(vault, "the ledger is sqlite", "deploy on friday")
    settle(vault, OwnWrites(), changed={"notes"}, now=NOW)
    assert git(vault, "ls-files", ".dreaming").split() == [
        ".dreaming/.gitignore",
        ".dreaming/session-notes.json",
    ]
    assert rows(vault)["Cascade"] == "record-map · notes 2 current"
    assert git(vault, "status", "--porcelain") == ""


def test_a_wiped_notes_md_keeps_its_notes_in_the_index(vault: Vault) -> None:
    page = add_notes(vault, "the ledger is sqlite")
    settle(vault, OwnWrites(), changed={"notes"}, now=NOW)
    page.write_text("# Notes\n")
    settle(vault, OwnWrites(), changed={"notes"}, now=LATER)
    assert look(vault, "sqlite").notes == ["the ledger is sqlite"]
    assert rows(vault)["Cascade"] == "record-map · notes 1 current"


def test_a_replaced_note_is_superseded_and_look_returns_the_new_line(vault: Vault) -> None:
    add_notes(vault, "alpha", "use postgres for the ledger", "gamma")
    settle(vault, OwnWrites(), changed={"notes"}, now=NOW)
    add_notes(vault, "alpha", "use sqlite for the ledger", "gamma")
    settle(vault, OwnWrites(), changed={"notes"}, now=LATER)
    doc = json.loads(index_path(vault).read_text())
    old = doc["notes"][note_id("use postgres for the ledger")]
    assert old["superseded_by"] == note_id("use sqlite for the ledger")
    assert look(vault, "ledger").notes == ["use sqlite for the ledger"]


class SaveDuring(OwnWrites):
    """The person saves STATION.md right after dreaming wrote the notes index, before the
    card: the heat must find their bytes changed and keep them."""

    def __init__(self, card: Path, text: str) -> None:
        super().__init__()
        self.card, self.text = card, text

    def record(self, path: Path, digest: str) -> None:
        super().record(path, digest)
        if path.name == "session-notes.json":
            self.card.write_text(self.text)


def test_a_persons_save_during_the_heat_is_never_overwritten(vault: Vault) -> None:
    card = set_intent(vault, "before")
    add_notes(vault, "a note")
    mine = card.read_text().replace("before", "my newer intent")
    result = settle(vault, SaveDuring(card, mine), changed={"station", "notes"}, now=NOW)
    assert card.read_text() == mine
    assert any(p.startswith("STATION.md: you saved it") for p in result.problems)
    assert git(vault, "status", "--porcelain").split() == ["M", "STATION.md"]
    assert git(vault, "ls-files", ".dreaming").split() == [
        ".dreaming/.gitignore",
        ".dreaming/session-notes.json",
    ]


def test_a_save_during_the_persons_commit_stays_out_of_dreamings_commit(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = set_intent(vault, "first words")
    first = card.read_bytes()
    newer = first.replace(b"first words", b"first words and more")
    real = VaultRepo._commit_tree

    def saving_meanwhile(self: VaultRepo, *args: Any) -> str:
        if card.read_bytes() == first:
            card.write_bytes(newer)
        return real(self, *args)

    monkeypatch.setattr(VaultRepo, "_commit_tree", saving_meanwhile)
    result = settle(vault, OwnWrites(), changed={"station"}, now=NOW)
    assert card.read_bytes() == newer
    assert any(p.startswith("STATION.md: you saved it") for p in result.problems)
    assert git(vault, "show", "HEAD:STATION.md").encode() == first
    assert git(vault, "log", "-1", "--format=%an", "--", "STATION.md").strip() != "dreaming"


def test_a_rebase_in_progress_means_nothing_is_written(vault: Vault) -> None:
    card = set_intent(vault, "mid rebase")
    before = card.read_bytes()
    (vault.root / ".git" / "rebase-merge").mkdir()
    head = git(vault, "rev-parse", "HEAD")
    result = settle(vault, OwnWrites(), changed={"station", "notes"}, now=NOW)
    assert len(result.problems) == 1
    assert "rebase is in progress" in result.problems[0]
    assert card.read_bytes() == before
    assert not index_path(vault).exists()
    assert git(vault, "rev-parse", "HEAD") == head


@pytest.mark.slow  # another process holds git's index lock
def test_a_held_index_lock_at_our_commit_puts_back_what_we_wrote(vault: Vault) -> None:
    card = vault.root / "STATION.md"
    before = card.read_bytes()
    (vault.root / ".git" / "index.lock").write_text("")
    result = settle(vault, OwnWrites(), changed={"station", "notes"}, now=NOW)
    assert any("index.lock" in p and "nothing committed" in p for p in result.problems)
    assert card.read_bytes() == before
    assert not index_path(vault).exists()


def test_a_broken_card_is_left_untouched_and_the_problem_named(vault: Vault) -> None:
    card = vault.root / "STATION.md"
    card.write_text("---\ntitle: [oops\n---\n" + card.read_text())
    git(vault, "commit", "-qam", "broken", "--author=P <p@x>")
    before = card.read_bytes()
    result = settle(vault, OwnWrites(), changed={"station"}, now=NOW)
    assert card.read_bytes() == before
    assert len(result.problems) == 1
    assert result.problems[0].startswith("STATION.md: the frontmatter is not valid YAML")


def test_a_missing_card_is_a_problem_naming_init(vault: Vault) -> None:
    (vault.root / "STATION.md").unlink()
    result = settle(vault, OwnWrites(), changed={"station"}, now=NOW)
    assert any("STATION.md: missing; run `dreaming init" in p for p in result.problems)


def test_git_names_a_detached_head(vault: Vault) -> None:
    git(vault, "checkout", "-q", "--detach")
    short = git(vault, "rev-parse", "--short=7", "HEAD").strip()
    assert git_head(VaultRepo(vault.root)) == f"detached@{short}"


def test_git_names_an_unborn_branch(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    assert git_head(VaultRepo(tmp_path)) == "(no commits)"


def test_look_names_articles_by_stem_and_by_alias(vault: Vault, ledger: Ledger) -> None:
    commit_article(vault, "Python_packaging")
    infobox = {"kind": "thing", "aliases": "levain bread"}
    page = build("Sourdough", lead="A bread.", sections=[], infobox=infobox)
    (vault.articles / "Sourdough.md").write_text(page)
    add_notes(vault, "wheels need a build backend", "coffee")
    reindex(vault, ledger)
    seen = look(vault, "python wheels and levain", ledger)
    assert seen.plane == "record-map"
    assert seen.articles == ["Python_packaging", "Sourdough"]
    assert seen.notes == ["wheels need a build backend"]
    assert look(vault, "levain").articles == []


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_station_heat_heats_the_card_from_the_command_line(vault: Vault) -> None:
    set_intent(vault, "ship it")
    code, out, _ = invoke("station", "heat", "--vault", str(vault.root))
    assert code == 0
    assert "heated STATION.md" in out
    assert rows(vault)["Intent"] == "ship it"
    assert git(vault, "status", "--porcelain") == ""


def test_station_heat_says_what_is_broken_and_exits_1(vault: Vault) -> None:
    (vault.root / "STATION.md").write_bytes(b"\0\1")
    code, _, err = invoke("station", "heat", "--vault", str(vault.root))
    assert code == 1
    assert "STATION.md: binary" in err


def test_station_heat_on_a_deeply_nested_frontmatter_is_one_clean_line(vault: Vault) -> None:
    card = vault.root / "STATION.md"
    card.write_bytes(b"---\nx: " + b"[" * 5000 + b"\n---\n" + card.read_bytes())
    code, _, err = invoke("station", "heat", "--vault", str(vault.root))
    assert code == 1
    assert err.startswith("dreaming: STATION.md: the frontmatter is nested more than ")
    assert err.rstrip().endswith("flatten it; left it untouched")


def test_station_look_json_has_stable_keys(vault: Vault) -> None:
    commit_article(vault, "Rust")
    add_notes(vault, "rust borrow checker notes \x1b[31m")
    code, out, _ = invoke("station", "look", "rust", "--json", "--vault", str(vault.root))
    assert code == 0
    doc = json.loads(out)
    assert doc == {
        "plane": "record-map",
        "articles": ["Rust"],
        "notes": ["rust borrow checker notes \x1b[31m"],
    }


def test_station_look_shows_untrusted_text_escaped(vault: Vault) -> None:
    add_notes(vault, "rust \x1b[31mred")
    code, out, _ = invoke("station", "look", "rust", "--vault", str(vault.root))
    assert code == 0
    assert "\x1b" not in out
    assert "rust \\x1b[31mred" in out
    assert out.startswith("plane: record-map\narticles: none\n")


@pytest.mark.parametrize("changed", [{"station"}, {"notes"}])
def test_settle_indexes_notes_when_no_index_exists_yet(vault: Vault, changed: set[Changed]) -> None:
    add_notes(vault, "first")
    settle(vault, OwnWrites(), changed=changed, now=NOW)
    assert index_path(vault).is_file()


def test_station_look_on_a_broken_index_is_one_clean_line(vault: Vault) -> None:
    index_path(vault).write_text("<<<<<<< HEAD\n")
    found = subprocess.run(
        [
            str(Path(sys.executable).parent / "dreaming"),
            "station",
            "look",
            "x",
            "--vault",
            str(vault.root),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 1
    assert found.stderr.startswith(
        "dreaming: error: .dreaming/session-notes.json: not a notes index"
    )
    assert len(found.stderr.splitlines()) == 1


def test_a_card_that_is_a_link_is_never_written_through(vault: Vault, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    card = vault.root / "STATION.md"
    elsewhere.write_bytes(card.read_bytes())
    card.unlink()
    card.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    result = settle(vault, OwnWrites(), changed={"station"}, now=NOW)
    assert card.is_symlink()
    assert elsewhere.read_bytes() == before
    assert any(p.startswith("STATION.md: a link") for p in result.problems)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("name", ["STATION.md", "NOTES.md"])
def test_a_named_pipe_for_a_station_file_is_a_problem_and_nothing_is_written(
    vault: Vault, name: str
) -> None:
    (vault.root / name).unlink()
    os.mkfifo(vault.root / name)
    before = git(vault, "rev-parse", "HEAD")
    result = settle(vault, OwnWrites(), changed={"station", "notes"}, now=NOW)
    assert result.problems == [f"{name}: a named pipe, not a file; delete it"]
    assert git(vault, "rev-parse", "HEAD") == before
    assert not index_path(vault).exists()


@pytest.mark.timeout(10)
def test_look_on_a_named_pipe_for_notes_is_one_line_not_a_wait(vault: Vault) -> None:
    (vault.root / "NOTES.md").unlink()
    os.mkfifo(vault.root / "NOTES.md")
    with pytest.raises(RefusedFileError, match=r"^NOTES\.md: a named pipe, not a file"):
        look(vault, "anything")


def test_an_article_that_is_a_link_out_of_the_vault_is_no_article_of_the_station(
    vault: Vault, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Elsewhere\n", encoding="utf-8")
    (vault.articles / "Elsewhere.md").symlink_to(outside)
    (vault.articles / "Here.md").write_text("# Here\n", encoding="utf-8")
    assert article_stems(vault) == ["Here"]
