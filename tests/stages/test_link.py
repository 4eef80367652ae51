"""LINK on real vaults through the write door: first mentions linked, words kept, a
second night changes nothing, a person's links and lists stay theirs."""

from __future__ import annotations

import subprocess

from dreaming.article import build
from dreaming.ledger import Ledger
from dreaming.vault import Vault
from stages.link import LinkStage
from stages.runner.pipeline import run_stage
from tests.support import stage_context
from tests.synth_support import Talk, article_subject, seed

NOW = "2026-03-02T03:00:00+00:00"


def write(vault: Vault, title: str, lead: str, sections: list[tuple[str, str]] = []) -> None:  # noqa: B006
    text = build(title, lead=lead, sections=sections, infobox={"kind": "thing"})
    (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")


def git(vault: Vault, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(vault.root), *args], capture_output=True, text=True, check=True
    ).stdout


def night(
    vault: Vault, ledger: Ledger, run_id: str = "r1", stage: LinkStage | None = None
) -> tuple[int, int]:
    ctx = stage_context(vault, ledger, None, run_id=run_id, now=NOW, write=True)
    report = run_stage(stage or LinkStage(), ctx)
    return report.done, report.skipped


def test_a_mention_of_another_article_becomes_a_link_and_the_words_stay(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Beads", "Beads tracks issues for coding agents.")
    write(vault, "Claude Code", "Claude Code runs agents that use beads to track work.")
    night(vault, ledger)
    text = (vault.articles / "Claude_Code.md").read_text(encoding="utf-8")
    assert "Claude Code runs agents that use [[Beads|beads]] to track work." in text
    beads = (vault.articles / "Beads.md").read_text(encoding="utf-8")
    assert "[[" not in beads


def test_a_second_night_with_nothing_new_links_nothing_and_commits_nothing(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Beads", "Beads tracks issues.")
    write(vault, "Claude Code", "Claude Code uses Beads.")
    night(vault, ledger, "r1")  # Claude Code links Beads
    night(vault, ledger, "r2")  # Beads lists Claude Code, which links to it, under See also
    night(vault, ledger, "r3")  # the article LINK wrote is looked at once more
    head = subprocess.run(
        ["git", "-C", str(vault.root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    done, skipped = night(vault, ledger, "r4")
    assert (done, skipped) == (0, 2)
    after = subprocess.run(
        ["git", "-C", str(vault.root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    assert after == head


def test_a_person_s_own_link_and_see_also_stay_as_they_wrote_them(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Beads", "Beads tracks issues.")
    write(
        vault,
        "Claude Code",
        "Claude Code uses [[Beads|the tracker]] and Beads.",
        [("See also", "- Beads")],
    )
    before = (vault.articles / "Claude_Code.md").read_text(encoding="utf-8")
    night(vault, ledger)
    assert (vault.articles / "Claude_Code.md").read_text(encoding="utf-8") == before


def test_a_new_article_links_its_name_in_the_articles_already_there(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Claude Code", "Claude Code uses Beads.")
    night(vault, ledger, "r1")
    write(vault, "Beads", "Beads tracks issues.")
    night(vault, ledger, "r2")
    text = (vault.articles / "Claude_Code.md").read_text(encoding="utf-8")
    assert "Claude Code uses [[Beads]]." in text


def test_a_service_running_for_nights_sees_a_name_the_person_gave_an_article_between_them(
    vault: Vault, ledger: Ledger
) -> None:
    stage = LinkStage()  # one stage for every night, as in the long-running service
    write(vault, "Beads", "Beads tracks issues.")
    write(vault, "Claude Code", "Claude Code files work in the tracker.")
    night(vault, ledger, "r1", stage)
    beads = vault.articles / "Beads.md"
    infobox = {"kind": "thing", "aliases": "tracker"}
    text = build("Beads", lead="Beads tracks issues.", sections=[], infobox=infobox)
    beads.write_text(text, encoding="utf-8")
    night(vault, ledger, "r2", stage)
    code = (vault.articles / "Claude_Code.md").read_text(encoding="utf-8")
    assert "files work in the [[Beads|tracker]]." in code


def test_a_link_written_before_links_named_the_file_is_respelled_once(
    vault: Vault, ledger: Ledger
) -> None:
    # Earlier nights wrote `[[Claude Code]]` for `Claude_Code.md`: a link to no note in
    # Obsidian, which reads no `_` as a space. LINK respells it once; the words stay.
    write(vault, "Claude Code", "Claude Code runs agents.")
    write(vault, "Beads", "Beads is used by [[Claude Code]] and [[claude code|the agent]].")
    git(vault, "add", "-A")
    git(vault, "-c", "user.name=p", "-c", "user.email=p@localhost", "commit", "-qm", "old")
    night(vault, ledger, "r1")
    beads = (vault.articles / "Beads.md").read_text(encoding="utf-8")
    assert "used by [[Claude_Code|Claude Code]] and [[Claude_Code|the agent]]." in beads
    head = git(vault, "rev-parse", "HEAD")
    night(vault, ledger, "r2")
    night(vault, ledger, "r3")
    assert git(vault, "rev-parse", "HEAD") == head


def test_a_link_by_an_alias_names_the_file_so_obsidian_opens_it(
    vault: Vault, ledger: Ledger
) -> None:
    # Obsidian opens a note by its file name only: an alias (ours live in the infobox)
    # is a name for suggestions, never a link target (its help, "Aliases").
    drill = build(
        "Cordless Drill", lead="An 18 V drill.", sections=[],
        infobox={"kind": "thing", "aliases": "the drill"},
    )  # fmt: skip
    (vault.articles / "Cordless_Drill.md").write_text(drill, encoding="utf-8")
    see_also = ("See also", "- [[the drill]]")
    write(
        vault,
        "Shed",
        "The shed was built with [[the drill]].",
        [("Roof", "[[The Drill]]."), see_also],
    )
    night(vault, ledger, "r1")
    shed = (vault.articles / "Shed.md").read_text(encoding="utf-8")
    assert "built with [[Cordless_Drill|the drill]]." in shed
    assert "\n[[Cordless_Drill|The Drill]].\n" in shed
    assert "## See also\n\n- [[Cordless_Drill|the drill]]\n" in shed  # the person's words
    head = git(vault, "rev-parse", "HEAD")
    night(vault, ledger, "r2")
    assert git(vault, "rev-parse", "HEAD") == head


def test_a_person_s_edit_made_while_link_runs_wins(vault: Vault, ledger: Ledger) -> None:
    write(vault, "Beads", "Beads tracks issues.")
    write(vault, "Claude Code", "Claude Code uses Beads.")
    ctx = stage_context(vault, ledger, None, run_id="r1", now=NOW, write=True)
    stage = LinkStage()
    unit = next(u for u in stage.units(ctx) if u.key == "Claude_Code")
    path = vault.articles / "Claude_Code.md"
    mine = path.read_text(encoding="utf-8").replace("uses Beads.", "uses Beads daily.")
    path.write_text(mine, encoding="utf-8")
    # LINK reads the article when it runs its unit: the person's words are what it links.
    assert stage.run(ctx, unit).status == "done"
    assert "Claude Code uses [[Beads]] daily." in path.read_text(encoding="utf-8")


def cited(vault: Vault, title: str, conv: str, lead: str) -> None:
    refs = f"[^1]: `conv:{conv}` (2026-03-01, claude-code) — a talk"
    text = build(
        title,
        lead=f"{lead}[^1]",
        sections=[("References", refs)],
        infobox={"kind": "thing"},
    )
    (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")


def test_articles_drawn_from_one_conversation_list_each_other_under_see_also(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Dolt", "aaaa1111", "Dolt versions tables.")
    cited(vault, "Steve Yegge", "aaaa1111", "Steve Yegge wrote a proposal.")
    cited(vault, "Rye", "bbbb2222", "Rye ferments fast.")
    night(vault, ledger)
    dolt = (vault.articles / "Dolt.md").read_text(encoding="utf-8")
    assert "## See also\n\n- [[Steve_Yegge|Steve Yegge]]\n\n## References" in dolt
    assert "- [[Dolt]]" in (vault.articles / "Steve_Yegge.md").read_text(encoding="utf-8")
    assert "See also" not in (vault.articles / "Rye.md").read_text(encoding="utf-8")


def test_an_article_lists_the_articles_that_link_to_it_after_those_sharing_its_talks(
    vault: Vault, ledger: Ledger
) -> None:
    cited(vault, "Dolt", "aaaa1111", "Dolt versions tables.")
    cited(vault, "Steve Yegge", "aaaa1111", "Steve Yegge wrote a proposal.")
    cited(vault, "Beads", "bbbb2222", "Beads keeps its issues in Dolt.")
    night(vault, ledger, "r1")  # Beads links Dolt
    night(vault, ledger, "r2")
    dolt = (vault.articles / "Dolt.md").read_text(encoding="utf-8")
    assert "## See also\n\n- [[Steve_Yegge|Steve Yegge]]\n- [[Beads]]\n" in dolt


def test_a_linked_and_listed_vault_is_a_no_op_the_next_night(vault: Vault, ledger: Ledger) -> None:
    cited(vault, "Dolt", "aaaa1111", "Dolt stores what Steve Yegge proposed.")
    cited(vault, "Steve Yegge", "aaaa1111", "Steve Yegge proposed Dolt.")
    night(vault, ledger, "r1")
    night(vault, ledger, "r2")
    texts = {p.name: p.read_bytes() for p in vault.articles.glob("*.md")}
    assert night(vault, ledger, "r3") == (0, 2)
    assert {p.name: p.read_bytes() for p in vault.articles.glob("*.md")} == texts


def test_an_article_lists_the_one_whose_subject_its_conversation_named(
    vault: Vault, ledger: Ledger
) -> None:
    beads_talk = seed(ledger, Talk("aaaa1111", "Beads", (("user", "Beads and Dolt?"),)))
    dolt_talk = seed(ledger, Talk("bbbb2222", "Dolt", (("user", "What is Dolt?"),)))
    article_subject(ledger, "beads", "Beads", [beads_talk])
    article_subject(ledger, "dolt", "Dolt", [dolt_talk, beads_talk])
    cited(vault, "Beads", "aaaa1111", "Beads tracks issues.")
    cited(vault, "Dolt", "bbbb2222", "Dolt versions tables.")
    cited(vault, "Rye", "cccc3333", "Rye ferments fast.")
    night(vault, ledger)
    assert "## See also\n\n- [[Dolt]]\n" in (vault.articles / "Beads.md").read_text(
        encoding="utf-8"
    )
    assert "## See also\n\n- [[Beads]]\n" in (vault.articles / "Dolt.md").read_text(
        encoding="utf-8"
    )
    assert "See also" not in (vault.articles / "Rye.md").read_text(encoding="utf-8")


def test_one_night_s_links_are_one_commit_and_every_unit_is_recorded_done(
    vault: Vault, ledger: Ledger
) -> None:
    write(vault, "Beads", "Beads uses Dolt.")
    write(vault, "Dolt", "Dolt stores Beads issues.")
    write(vault, "Rye", "Rye is not Beads.")
    before = ours(vault)
    ctx = stage_context(vault, ledger, None, run_id="r1", now=NOW, write=True)
    report = run_stage(LinkStage(), ctx)
    assert (report.done, report.commits) == (3, 1)
    assert ours(vault) == before + 1


def ours(vault: Vault) -> int:
    """How many commits of dreaming's the vault holds."""
    log = subprocess.run(
        ["git", "-C", str(vault.root), "log", "--author=dreaming", "--format=%H"],
        capture_output=True,
        text=True,
    ).stdout
    return len(log.split())
