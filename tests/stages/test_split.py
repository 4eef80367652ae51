"""EDITORIAL's splits on real vaults: a section that outgrew its article moves into a
child article named after it, the parent keeps a cited summary, every citation moves
with its words; a taken name or a person's edit makes a Talk proposal instead."""

from __future__ import annotations

import subprocess

import pytest

from dreaming.article import build, check, parse
from dreaming.article.markup import MAIN_LINE, markers
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from stages.editorial.stage import EditorialStage
from stages.runner.pipeline import run_stage
from stages.runner.report import StageReport
from stages.runner.write import Edit, Outcome, Writer
from tests.support import stage_context

NOW = "2026-06-01T03:00:00+00:00"
RULE = "```split\nmin_words: 40\nshare_percent: 50\n```\n"
ROOF = (
    "The roof is felt on ten millimetre boards with a slope of fifteen degrees.[^2]\n\n"
    "Felt lasts about fifteen years when the gutters are kept clear of leaves and moss.[^3]\n\n"
    "A second layer of felt went on in June because the first one tore near the door.[^3]"
)
REFS = (
    "[^1]: `conv:aaaa1111` (2026-03-01, chatgpt) — planning a shed\n"
    "[^2]: `conv:bbbb2222` (2026-04-01, chatgpt) — the felt roof\n"
    "[^3]: `conv:cccc3333` (2026-06-01, chatgpt) — repairing the felt"
)


def shed(vault: Vault, roof: str = ROOF) -> str:
    text = build(
        "Garden Shed",
        lead="The Garden Shed is a wooden shed at the back of the garden.[^1]",
        sections=[("Walls", "The walls are cedar.[^1]"), ("Roof", roof), ("References", REFS)],
        infobox={"kind": "project"},
    )
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    page = vault.meta / "Summary_Style.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "```split\nmin_words: 400\nshare_percent: 50\n```\n", RULE
        ),
        encoding="utf-8",
    )
    git(vault, "add", "-A")
    git(
        vault,
        "-c",
        "user.name=dreaming",
        "-c",
        "user.email=dreaming@localhost",
        "commit",
        "-qm",
        "ours",
    )
    return text


def git(vault: Vault, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(vault.root), *args], capture_output=True, text=True)
    return done.stdout


def night(vault: Vault, ledger: Ledger, run_id: str = "r1") -> StageReport:
    ctx = stage_context(vault, ledger, None, run_id=run_id, now=NOW, write=True)
    return run_stage(EditorialStage(), ctx)


def read(vault: Vault, stem: str) -> str:
    return (vault.articles / f"{stem}.md").read_text(encoding="utf-8")


def test_an_outgrown_section_becomes_its_own_article_with_a_banner(
    vault: Vault, ledger: Ledger
) -> None:
    shed(vault)
    assert night(vault, ledger).failures == []
    roof = parse(read(vault, "Roof"))
    assert roof.banner == "Garden Shed"
    assert roof.lead.startswith("The roof is felt on ten millimetre boards")
    assert "A second layer of felt went on in June" in read(vault, "Roof")


def test_the_parent_keeps_a_cited_summary_under_main_article(vault: Vault, ledger: Ledger) -> None:
    shed(vault)
    night(vault, ledger)
    section = parse(read(vault, "Garden_Shed")).section("Roof")
    assert section is not None
    first, _, summary = section.body.partition("\n\n")
    assert MAIN_LINE.fullmatch(first)
    assert "[[Roof]]" in first
    assert summary.startswith("The roof is felt on ten millimetre boards")
    assert markers(summary)


def test_every_citation_of_the_section_moves_with_its_words(vault: Vault, ledger: Ledger) -> None:
    shed(vault)
    night(vault, ledger)
    child = read(vault, "Roof")
    assert "`conv:bbbb2222`" in child
    assert "`conv:cccc3333`" in child
    assert "`conv:cccc3333`" not in read(vault, "Garden_Shed")


def test_both_articles_pass_the_audit_grammar(vault: Vault, ledger: Ledger) -> None:
    shed(vault)
    night(vault, ledger)
    assert check(None, read(vault, "Roof"), stem="Roof").ok


def test_a_split_article_is_not_split_again(vault: Vault, ledger: Ledger) -> None:
    shed(vault)
    night(vault, ledger, "r1")
    head = git(vault, "rev-parse", "HEAD")
    night(vault, ledger, "r2")
    assert git(vault, "rev-parse", "HEAD") == head


def test_a_taken_child_name_makes_a_talk_proposal(vault: Vault, ledger: Ledger) -> None:
    mine = "# Roof\n\nMy notes on roofs.\n"
    (vault.articles / "Roof.md").write_text(mine, encoding="utf-8")
    text = shed(vault)
    night(vault, ledger)
    assert read(vault, "Roof") == mine
    assert read(vault, "Garden_Shed") == text
    talk = (vault.talk / "Garden_Shed.md").read_text()
    assert "## Split Roof out of [[articles/Garden_Shed|Garden Shed]]?" in talk
    assert "[[articles/Roof|Roof]] is taken" in talk


def test_an_article_the_person_edited_gets_a_talk_proposal_not_a_split(
    vault: Vault, ledger: Ledger
) -> None:
    text = shed(vault) + "\nMy own line.\n"
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    night(vault, ledger)
    assert read(vault, "Garden_Shed") == text
    assert not (vault.articles / "Roof.md").exists()
    talk = (vault.talk / "Garden_Shed.md").read_text()
    assert "you edited the article" in talk
    # No article Roof yet: a link would be to no note, one Obsidian makes on a click.
    assert "its own article, *Roof*," in talk
    assert "[[Roof]]" not in talk.replace("`*Main article: [[Roof]]*`", "")


def test_a_split_proposed_before_links_named_paths_is_not_proposed_again(
    vault: Vault, ledger: Ledger
) -> None:
    text = shed(vault) + "\nMy own line.\n"
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    old = "# Talk: Garden Shed\n\n## Split Roof out of [[Garden Shed]]?\n\nAs proposed then.\n"
    (vault.talk / "Garden_Shed.md").write_text(old, encoding="utf-8")
    night(vault, ledger)
    assert (vault.talk / "Garden_Shed.md").read_text() == old


def test_a_section_below_the_rule_stays(vault: Vault, ledger: Ledger) -> None:
    text = shed(vault, roof="The roof is felt.[^2]")
    night(vault, ledger)
    assert read(vault, "Garden_Shed") == text
    assert not (vault.articles / "Roof.md").exists()


def test_a_night_killed_after_writing_the_child_finishes_the_parent(
    vault: Vault, ledger: Ledger
) -> None:
    shed(vault)
    night(vault, ledger, "r1")
    child, parent = read(vault, "Roof"), read(vault, "Garden_Shed")
    # Killed after the child's write: the next start commits it as ours, the parent as was.
    git(vault, "reset", "-q", "--hard", "HEAD~1")
    (vault.articles / "Roof.md").write_text(child, encoding="utf-8")
    ours = ("-c", "user.name=dreaming", "-c", "user.email=dreaming@localhost")
    git(vault, "add", "articles/Roof.md")
    git(vault, *ours, "commit", "-qm", "editorial: the child of an interrupted split")
    ledger.db.execute("DELETE FROM work WHERE stage = 'editorial'")
    assert night(vault, ledger, "r2").failures == []
    assert (read(vault, "Roof"), read(vault, "Garden_Shed")) == (child, parent)
    assert not (vault.talk / "Garden_Shed.md").exists()


def test_a_parent_and_its_child_are_never_proposed_for_a_merge(
    vault: Vault, ledger: Ledger
) -> None:
    shed(vault)
    night(vault, ledger, "r1")
    night(vault, ledger, "r2")
    assert not (vault.talk / "Garden_Shed.md").exists()
    assert not (vault.talk / "Roof.md").exists()


def test_a_section_with_code_moves_its_code_and_the_parent_is_written(
    vault: Vault, ledger: Ledger
) -> None:
    shed(vault, roof=f"{ROOF}\n\n```sh\nfelt --nail 40mm\n```")
    night(vault, ledger)
    assert "felt --nail 40mm" in read(vault, "Roof")
    assert MAIN_LINE.fullmatch(read(vault, "Garden_Shed").split("## Roof\n\n")[1].splitlines()[0])


def test_a_persons_edit_saved_between_the_childs_write_and_the_parents_wins(
    vault: Vault, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = shed(vault) + "\nMy own line.\n"
    real = Writer.write

    def racing(self: Writer, edit: Edit) -> Outcome:
        done = real(self, edit)
        if edit.target == "Roof":  # the child is on disk: the person saves the parent
            (vault.articles / "Garden_Shed.md").write_text(mine, encoding="utf-8")
        return done

    monkeypatch.setattr(Writer, "write", racing)
    report = night(vault, ledger)
    assert read(vault, "Garden_Shed") == mine
    assert report.rejected == 1  # the parent's edit, refused; the child stays written
