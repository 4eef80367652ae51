"""EDITORIAL's tighten on real vaults: a repeat goes with its citation kept, a near one
only when the model says it adds nothing, under the person's Editorial Guidelines."""

from __future__ import annotations

import os
import subprocess

from dreaming.checks.audit import audit
from dreaming.ledger import Ledger, runs
from dreaming.model import TextModel
from dreaming.vault import Vault
from stages.editorial.stage import EditorialStage
from stages.prompts import tighten as prompt
from stages.runner.pipeline import run_stage
from tests.support import Answer, ScriptedModelFactory, stage_context

NOW = "2026-03-02T03:00:00+00:00"
LEAD = "Beads is an issue tracker for coding agents."
REFS = "## References\n\n[^1]: `conv:aaaa1111` (2026-03-01, claude-code) — a talk\n"


def write(vault: Vault, stem: str, section: str, *, ours: bool = True) -> str:
    """An article whose Design section is `section`, committed as dreaming's (or not)."""
    text = (
        f"# {stem}\n\n```info\nkind: thing\n```\n\n{LEAD.replace('Beads', stem)}[^1]\n\n"
        f"## Design\n\n{section}\n\n{REFS}"
    )
    (vault.articles / f"{stem}.md").write_text(text, encoding="utf-8")
    if ours:
        git = ["git", "-C", str(vault.root)]
        subprocess.run([*git, "add", "-A"], check=True)
        who = ["-c", "user.name=dreaming", "-c", "user.email=dreaming@localhost"]
        subprocess.run([*git, *who, "commit", "-qm", "ours"], check=True)
    return text


def night(vault: Vault, ledger: Ledger, model: TextModel | None = None, run_id: str = "r1") -> int:
    ctx = stage_context(vault, ledger, model, run_id=run_id, now=NOW, write=True)
    return run_stage(EditorialStage(), ctx).done


def read(vault: Vault, stem: str = "Beads") -> str:
    return (vault.articles / f"{stem}.md").read_text(encoding="utf-8")


def test_a_section_repeating_the_lead_is_tightened_without_a_model_call(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Beads", f"{LEAD} It uses hash ids.[^1]")
    assert night(vault, ledger) == 1  # a model call would fail the test
    assert "## Design\n\nBeads uses hash ids.[^1]\n" in read(vault)
    assert audit(vault, None).clean


def test_an_article_the_person_wrote_keeps_its_repeat(vault: Vault, ledger: Ledger) -> None:
    before = write(vault, "Beads", f"{LEAD} It uses hash ids.[^1]", ours=False)
    night(vault, ledger)
    assert read(vault) == before


def test_a_tightened_vault_is_left_alone_the_next_night(vault: Vault, ledger: Ledger) -> None:
    write(vault, "Beads", f"{LEAD} It uses hash ids.[^1]")
    night(vault, ledger)
    after = read(vault)
    assert night(vault, ledger, run_id="r2") == 0
    assert read(vault) == after


def asked(earlier: str, sentence: str, said: str, guidelines: str) -> list[Answer]:
    """The two questions about a near repeat; `said` answers "adds anything?", and the
    other is answered to agree with it."""
    system = prompt.system(guidelines)
    covers = "no" if said == "yes" else "yes"
    return [
        Answer("editorial", prompt.adds("Beads", earlier, sentence), said, system),
        Answer("editorial", prompt.covers("Beads", earlier, sentence), covers, system),
    ]


NEAR = "Beads is an issue tracker for coding agents on laptops."


def test_a_near_repeat_goes_when_the_model_says_it_adds_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    write(vault, "Beads", f"{NEAR} It uses hash ids.[^1]")
    guidelines = (vault.meta / "Editorial_Guidelines.md").read_text(encoding="utf-8")
    model = scripted_model(asked(LEAD, NEAR, "no", guidelines))
    assert night(vault, ledger, model) == 1
    assert NEAR not in read(vault)


def test_a_model_answering_no_to_both_questions_drops_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    before = write(vault, "Beads", f"{NEAR} It uses hash ids.[^1]")
    guidelines = (vault.meta / "Editorial_Guidelines.md").read_text(encoding="utf-8")
    adds, covers = asked(LEAD, NEAR, "no", guidelines)
    model = scripted_model([adds, Answer(covers.stage, covers.user, "no", covers.system)])
    night(vault, ledger, model)
    assert read(vault) == before


def test_a_near_repeat_stays_when_the_model_says_it_adds_something(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    before = write(vault, "Beads", f"{NEAR} It uses hash ids.[^1]")
    guidelines = (vault.meta / "Editorial_Guidelines.md").read_text(encoding="utf-8")
    model = scripted_model(asked(LEAD, NEAR, "yes", guidelines))
    assert night(vault, ledger, model) == 1
    assert read(vault) == before
    assert night(vault, ledger, None, run_id="r2") == 0  # not asked again


def test_the_question_carries_the_persons_editorial_guidelines(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    page = vault.meta / "Editorial_Guidelines.md"
    mine = page.read_text(encoding="utf-8").replace(
        "- Plain words", "- Never drop where a tool runs.\n- Plain words"
    )
    page.write_text(mine, encoding="utf-8")
    write(vault, "Beads", f"{NEAR} It uses hash ids.[^1]")
    model = scripted_model(asked(LEAD, NEAR, "yes", mine))
    night(vault, ledger, model)
    assert "- Never drop where a tool runs." in prompt.system(mine)


def test_an_edit_to_the_guidelines_asks_again(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    write(vault, "Beads", f"{NEAR} It uses hash ids.[^1]")
    page = vault.meta / "Editorial_Guidelines.md"
    first = page.read_text(encoding="utf-8")
    night(vault, ledger, scripted_model(asked(LEAD, NEAR, "yes", first)))
    mine = first.replace("- Plain words", "- Cut every repeat.\n- Plain words")
    page.write_text(mine, encoding="utf-8")
    assert night(vault, ledger, scripted_model(asked(LEAD, NEAR, "no", mine)), "r2") == 1
    assert NEAR not in read(vault)


def sweep_order(vault: Vault, ledger: Ledger, ages: dict[str, int]) -> list[str]:
    """The tighten units of three articles with repeats, last edited `ages` (seconds
    after the run started; negative: before), in the order EDITORIAL lists them."""
    started = 1_700_000_000
    runs.put(ledger, runs.Run("r1", "night", "2023-11-14T22:13:20+00:00", None, "running"))
    for stem, age in ages.items():
        write(vault, stem, f"{LEAD.replace('Beads', stem)} It uses hash ids.[^1]")
        os.utime(vault.articles / f"{stem}.md", (started + age, started + age))
    ctx = stage_context(vault, ledger, None, run_id="r1", now=NOW, write=True)
    units = EditorialStage().units(ctx)
    return [u.key.removeprefix("tighten/") for u in units if u.key.startswith("tighten/")]


def test_the_sweep_takes_the_least_recently_edited_first(vault: Vault, ledger: Ledger) -> None:
    order = sweep_order(vault, ledger, {"Zed": -3000, "Alpha": -1000, "Mid": -2000})
    assert order == ["Zed", "Mid", "Alpha"]


def test_the_sweep_takes_the_articles_written_tonight_before_the_rest(
    vault: Vault, ledger: Ledger
) -> None:
    order = sweep_order(vault, ledger, {"Zed": -3000, "Alpha": 60, "Mid": -2000})
    assert order == ["Alpha", "Zed", "Mid"]
