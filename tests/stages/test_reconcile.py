"""RECONCILE on real vaults: the infobox brought to the latest cited position, a
superseded present-tense sentence dated, the trace under History, a consistent article
left alone without a model call, a person's value kept."""

from __future__ import annotations

import subprocess

from dreaming.article import build, parse
from dreaming.article.markup import markers
from dreaming.ledger import Ledger
from dreaming.model import TextModel
from dreaming.vault import Vault
from stages.prompts import reconcile as prompt
from stages.reconcile import ReconcileStage
from stages.runner.pipeline import run_stage
from stages.runner.report import StageReport
from tests.rule_model import RuleModel
from tests.support import Answer, ScriptedModelFactory, stage_context

NOW = "2026-07-01T03:00:00+00:00"
PLAN = "The garden shed is planned for the spring."
STARTED = "Work on the Garden Shed started in May."
DONE = "The Garden Shed was finished in June."
REFS = (
    "[^1]: `conv:aaaa1111` (2026-03-01, chatgpt) — planning a shed\n"
    "[^2]: `conv:bbbb2222` (2026-05-02, chatgpt) — the foundation\n"
    "[^3]: `conv:cccc3333` (2026-06-20, chatgpt) — the roof is on"
)


def shed(vault: Vault, infobox: dict[str, str] | None = None) -> str:
    text = build(
        "Garden Shed",
        lead="Garden Shed is a backyard building project.[^1]",
        sections=[
            ("Plan", f"{PLAN}[^1]"),
            ("Building", f"{STARTED}[^2] {DONE}[^3]"),
            ("References", REFS),
        ],
        infobox=infobox or {"kind": "project"},
    )
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    return text


def ask(sentence: str, field: str, value: str, said: str = "yes") -> Answer:
    return Answer(
        "reconcile", prompt.states("Garden Shed", sentence, field, value), said, prompt.SYSTEM
    )


STORY = [
    ask("Garden Shed is a backyard building project.", "type", "backyard building project"),
    ask(PLAN, "status", "planned"),
    ask(STARTED, "status", "in progress"),
    ask(DONE, "status", "finished"),
]


def night(vault: Vault, ledger: Ledger, model: TextModel | None, run_id: str = "r1") -> StageReport:
    ctx = stage_context(vault, ledger, model, run_id=run_id, now=NOW, write=True)
    return run_stage(ReconcileStage(), ctx)


def read(vault: Vault) -> str:
    return (vault.articles / "Garden_Shed.md").read_text(encoding="utf-8")


def head(vault: Vault) -> str:
    return subprocess.run(
        ["git", "-C", str(vault.root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout


def test_the_infobox_takes_the_latest_position_and_the_type_its_lead_states(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    assert night(vault, ledger, scripted_model(STORY)).done == 1
    box = dict(parse(read(vault)).infobox or ())
    assert box["status"] == "finished"
    assert box["type"] == "backyard building project"


def test_a_superseded_present_tense_sentence_says_when_it_held(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    night(vault, ledger, scripted_model(STORY))
    text = read(vault)
    assert "As of March 2026, the garden shed is planned for the spring.[^1]" in text
    assert f"{STARTED}[^3] {DONE}[^2]" in text  # past tense says when already


def test_the_history_section_keeps_the_trace_of_positions_in_order(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    night(vault, ledger, scripted_model(STORY))
    history = parse(read(vault)).section("History")
    assert history is not None
    assert history.body == (
        "- March 2026: planned.[^1]\n- May 2026: in progress.[^3]\n- June 2026: finished.[^2]"
    )


def test_the_lead_states_the_latest_position_with_its_citation(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    night(vault, ledger, scripted_model(STORY))
    assert parse(read(vault)).lead.startswith(
        "Garden Shed is a backyard building project.[^1] The Garden Shed was finished in June.[^2]"
    )


def test_every_citation_survives(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    before = set(markers(shed(vault)))
    night(vault, ledger, scripted_model(STORY))
    assert set(markers(read(vault))) == before


def test_a_reconciled_article_is_not_asked_about_again(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    night(vault, ledger, scripted_model(STORY), "r1")
    before = head(vault)
    report = night(vault, ledger, None, "r2")  # a model call would fail the test
    assert (report.done, report.skipped) == (0, 1)
    assert head(vault) == before


def test_a_consistent_article_costs_no_model_call_and_no_write(
    vault: Vault, ledger: Ledger
) -> None:
    agreed = {"kind": "project", "type": "backyard building project", "status": "finished"}
    trace = "- March 2026: planned.[^1]\n- May 2026: in progress.[^2]\n- June 2026: finished.[^3]"
    text = (
        shed(vault, agreed)
        .replace(PLAN, "The garden shed was planned for the spring.")
        .replace("## References", f"## History\n\n{trace}\n\n## References")
        .replace("project.[^1]", f"project.[^1] {DONE}[^3]")
    )
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    assert night(vault, ledger, None).done == 1  # a model call would fail the test
    assert read(vault) == text


def test_an_article_whose_sentences_propose_nothing_is_no_unit(
    vault: Vault, ledger: Ledger
) -> None:
    text = build(
        "Dolt",
        lead="Dolt versions a database like git.[^1]",
        sections=[("References", REFS.splitlines()[0])],
        infobox={"kind": "thing"},
    )
    (vault.articles / "Dolt.md").write_text(text, encoding="utf-8")
    report = night(vault, ledger, None)
    assert (report.done, report.skipped) == (0, 0)


def test_a_value_the_model_says_no_to_is_not_written(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault)
    answers = [
        Answer(a.stage, a.user, "no" if "backyard" in a.user else a.text, a.system) for a in STORY
    ]
    night(vault, ledger, scripted_model(answers))
    assert "type" not in dict(parse(read(vault)).infobox or ())


def test_a_persons_value_stays_and_the_disagreement_is_reported(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    shed(vault, {"kind": "project", "status": "on sale"})
    report = night(vault, ledger, scripted_model(STORY))
    assert dict(parse(read(vault)).infobox or ())["status"] == "on sale"
    assert report.unresolved == [
        (
            "Garden_Shed",
            "status: the infobox says 'on sale' (not from this article's sentences); "
            "[^3] says 'finished'",
        )
    ]


def test_two_sources_of_one_date_disagreeing_are_unresolved_not_forced(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    text = shed(vault).replace("(2026-06-20", "(2026-05-02")
    (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
    report = night(vault, ledger, scripted_model(STORY))
    assert "status" not in dict(parse(read(vault)).infobox or ())
    assert [u for _, u in report.unresolved] == [
        "status: [^3] says 'finished' and [^2] says 'in progress', both of 2026-05-02"
    ]


def test_a_relationship_field_links_the_article_its_sentence_names(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    sentence = "Beads is an issue tracker built by Steve Yegge."
    for title, lead in (("Beads", sentence), ("Steve Yegge", "Steve Yegge writes code.")):
        text = build(
            title,
            lead=f"{lead}[^1]",
            sections=[("References", REFS.splitlines()[0])],
            infobox={"kind": "thing"},
        )
        (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")
    answers = [
        Answer("reconcile", prompt.states("Beads", sentence, f, v), "yes", prompt.SYSTEM)
        for f, v in (("type", "issue tracker"), ("made_by", "[[Steve Yegge]]"))
    ]
    night(vault, ledger, scripted_model(answers))
    box = dict(parse((vault.articles / "Beads.md").read_text(encoding="utf-8")).infobox or ())
    assert box["made_by"] == "[[Steve Yegge]]"


def test_a_persons_article_without_an_infobox_or_with_a_broken_one_is_left_alone(
    vault: Vault, ledger: Ledger
) -> None:
    plain = f"# Garden Shed\n\n{DONE}[^1]\n\n## References\n\n{REFS.splitlines()[2]}\n"
    broken = plain.replace(
        "# Garden Shed\n\n", "# Garden Shed\n\n```info\nkind: project\nnot a field\n```\n\n"
    )
    for text in (plain, broken):
        (vault.articles / "Garden_Shed.md").write_text(text, encoding="utf-8")
        night(vault, ledger, None, run_id=f"r-{len(text)}")  # a model call would fail
        assert read(vault) == text


def test_a_persons_edit_made_while_reconcile_asks_wins(vault: Vault, ledger: Ledger) -> None:
    mine = shed(vault).replace("backyard building project", "backyard building project of mine")
    # Says yes, and the person saves the article while the model is thinking.
    path = vault.articles / "Garden_Shed.md"

    def save() -> None:
        path.write_text(mine, encoding="utf-8")

    editing = RuleModel(on_call=save)
    report = night(vault, ledger, editing)
    assert read(vault) == mine
    assert (report.done, report.rejected) == (0, 1)  # retried next night, on their text
