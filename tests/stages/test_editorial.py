"""EDITORIAL's merge proposals on real vaults: a pair written to Talk/, never merged,
proposed once, a person's Talk text kept."""

from __future__ import annotations

import subprocess

from dreaming.article import build, parse
from dreaming.ledger import Ledger
from dreaming.model import TextModel
from dreaming.query import Reader
from dreaming.vault import Vault
from stages.editorial.stage import EditorialStage
from stages.prompts import editorial as prompt
from stages.runner.pipeline import run_stage
from tests.support import Answer, ScriptedModelFactory, stage_context

NOW = "2026-03-02T03:00:00+00:00"
BEADS = "Beads tracks issues for coding agents with hash ids and dependency links."


def cited(vault: Vault, title: str, lead: str, conv: str = "aaaa1111") -> None:
    refs = f"[^1]: `conv:{conv}` (2026-03-01, claude-code) — a talk"
    text = build(
        title, lead=f"{lead}[^1]", sections=[("References", refs)], infobox={"kind": "thing"}
    )
    (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")


def night(vault: Vault, ledger: Ledger, run_id: str = "r1") -> tuple[int, int]:
    ctx = stage_context(vault, ledger, None, run_id=run_id, now=NOW, write=True)
    report = run_stage(EditorialStage(), ctx)
    return report.done, report.skipped


def head(vault: Vault) -> str:
    return subprocess.run(
        ["git", "-C", str(vault.root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout


def test_two_stubs_about_one_thing_under_two_names_get_a_merge_proposal(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    articles = {p.name: p.read_bytes() for p in vault.articles.glob("*.md")}
    night(vault, ledger)
    talk = (vault.talk / "Beads.md").read_text(encoding="utf-8")
    # Paths: on Talk/Beads.md, `[[Beads]]` opens the Talk page itself in Obsidian.
    merge = "Merge [[articles/Beads|Beads]] and [[articles/Issue_Tracker|Issue Tracker]]?"
    assert talk.startswith(f"# Talk: Beads\n\n## {merge}")
    assert "fold [[articles/Issue_Tracker|Issue Tracker]] into [[articles/Beads|Beads]]" in talk
    assert "`*Redirects to [[Beads]].*`" in talk
    assert "`conv:aaaa1111`" in talk
    assert {p.name: p.read_bytes() for p in vault.articles.glob("*.md")} == articles


def test_articles_about_different_things_get_none(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Dolt", "Dolt is a database versioned like git, with branches and merges.")
    assert night(vault, ledger) == (0, 0)
    assert not (vault.talk / "Beads.md").exists()


def test_a_pair_is_proposed_once(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    night(vault, ledger, "r1")
    before = head(vault)
    assert night(vault, ledger, "r2") == (0, 1)
    assert head(vault) == before


def test_a_persons_talk_text_stays_and_the_proposal_goes_below_it(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    mine = "# Talk: Beads\n\nI want to rename this one day.\n"
    (vault.talk / "Beads.md").write_text(mine, encoding="utf-8")
    night(vault, ledger)
    talk = (vault.talk / "Beads.md").read_text(encoding="utf-8")
    assert talk.startswith(mine.rstrip() + "\n\n## Merge [[articles/Beads|Beads]] and")


def test_a_proposal_written_before_links_named_paths_is_not_written_again(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    old = "# Talk: Beads\n\n## Merge [[Beads]] and [[Issue Tracker]]?\n\nAs proposed then.\n"
    (vault.talk / "Beads.md").write_text(old, encoding="utf-8")
    night(vault, ledger)
    assert (vault.talk / "Beads.md").read_text(encoding="utf-8") == old


def test_a_proposal_on_the_page_already_is_not_written_twice(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    night(vault, ledger, "r1")
    cited(vault, "Issue Tracker", BEADS + " It has epics.")  # a changed article: a new unit
    night(vault, ledger, "r2")
    pages = [
        p.read_text(encoding="utf-8") for p in vault.talk.glob("*.md") if p.name != "README.md"
    ]
    assert sum(page.count("## Merge") for page in pages) == 1


CATEGORIES = "Tools: programs that track issues or build software\n"


def define(vault: Vault, block: str) -> None:
    page = vault.meta / "Category_Definitions.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("```categories\n", f"```categories\n{block}"), encoding="utf-8")


def asked(vault: Vault, title: str, name: str, what: str, said: str) -> Answer:
    lead = parse((vault.articles / f"{title}.md").read_text(encoding="utf-8")).lead
    return Answer("editorial", prompt.belongs(title, lead, name, what), said, prompt.SYSTEM)


def with_model(vault: Vault, ledger: Ledger, model: TextModel | None, run_id: str = "r1") -> int:
    ctx = stage_context(vault, ledger, model, run_id=run_id, now=NOW, write=True)
    return run_stage(EditorialStage(), ctx).done


def tools_said(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory, said: str
) -> int:
    """Beads, a Tools category, and the model's answer to whether Beads is one."""
    cited(vault, "Beads", BEADS)
    define(vault, CATEGORIES)
    model = scripted_model([asked(vault, "Beads", "Tools", CATEGORIES[7:-1], said)])
    return with_model(vault, ledger, model)


def test_an_article_the_model_files_under_a_defined_category_gets_its_line(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    assert tools_said(vault, ledger, scripted_model, "yes") == 1
    assert (
        (vault.articles / "Beads.md")
        .read_text(encoding="utf-8")
        .endswith("\n\n[[Category:Tools]]\n")
    )
    assert Reader(vault, ledger).category("Tools").data["stems"] == ["Beads"]


def test_an_answer_of_no_files_nothing(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    assert tools_said(vault, ledger, scripted_model, "no") == 1
    assert "[[Category:" not in (vault.articles / "Beads.md").read_text(encoding="utf-8")


def test_an_article_no_edit_can_pass_is_not_asked_about_and_waits_for_the_person(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    cited(vault, "Beads", f"{BEADS} It also syncs.[^9] ")
    define(vault, CATEGORIES)
    ctx = stage_context(vault, ledger, scripted_model([]), run_id="r1", now=NOW, write=True)
    report = run_stage(EditorialStage(), ctx)
    assert (report.done, report.failed, report.rejected) == (0, 0, 0)
    assert "[[Category:" not in (vault.articles / "Beads.md").read_text(encoding="utf-8")


def test_a_category_sharing_no_word_with_the_lead_is_not_asked_about(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Beads", BEADS)
    define(vault, "Web standards: HTML, CSS and browser features\n")
    assert with_model(vault, ledger, None) == 1  # a model call would fail the test
    assert "[[Category:" not in (vault.articles / "Beads.md").read_text(encoding="utf-8")


def test_no_category_defined_asks_nothing(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS)
    assert with_model(vault, ledger, None) == 0  # a model call would fail the test


def test_a_category_the_person_gave_is_not_asked_about(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS + " [[Category:Tools]]")
    define(vault, CATEGORIES)
    assert with_model(vault, ledger, None) == 1
    assert "[[Category:Tools]]" in (vault.articles / "Beads.md").read_text(encoding="utf-8")


def test_an_article_filed_once_is_not_asked_again(
    vault: Vault, ledger: Ledger, scripted_model: ScriptedModelFactory
) -> None:
    tools_said(vault, ledger, scripted_model, "yes")
    with_model(vault, ledger, None, "r2")  # the article it wrote: found filed, no question
    assert with_model(vault, ledger, None, "r3") == 0


def test_a_proposal_below_a_talk_page_ending_in_an_open_fence_is_not_code(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    (vault.talk / "Beads.md").write_text("# Talk: Beads\n\n```\nsome code\n", encoding="utf-8")
    night(vault, ledger)
    talk = parse((vault.talk / "Beads.md").read_text(encoding="utf-8"))
    assert [s.heading for s in talk.sections] == [
        "Merge [[articles/Beads|Beads]] and [[articles/Issue_Tracker|Issue Tracker]]?"
    ]


def test_a_crlf_talk_page_stays_crlf(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Beads", BEADS)
    cited(vault, "Issue Tracker", BEADS)
    (vault.talk / "Beads.md").write_bytes(b"# Talk: Beads\r\n\r\nmine\r\n")
    night(vault, ledger)
    talk = (vault.talk / "Beads.md").read_bytes()
    assert b"## Merge" in talk
    assert b"\n" not in talk.replace(b"\r\n", b"")
