"""A scripted session of six questions, as an agent reads: find → read → answer in small
reads. The budget: no read over 2 KB, under 5 KB a question on average."""

from __future__ import annotations

from dreaming.ledger import Ledger
from dreaming.query import BUDGET, Reader, Result
from dreaming.vault import Vault
from tests.query_support import article, conversation, examples, note

_HISTORY = "\n\n".join(
    f"In week {i} the person moved the backups to a new disk and wrote why.[^1]" for i in range(80)
)


def test_six_questions_stay_within_the_budget(vault: Vault, ledger: Ledger) -> None:
    examples(vault)
    article(
        vault,
        "Home Backup",
        lead="Home Backup is the restic setup on the NAS.[^1]",
        sections=(("Schedule", "Nightly at 02:00, pruned weekly.[^1]"), ("History", _HISTORY)),
        infobox={"kind": "project", "aliases": "backups, restic setup"},
        footnotes=(note(1, "256ba646"),),
    )
    conversation(ledger, "256ba646", [("user", "which flag for web search?"), ("assistant", "-p")])
    reader = Reader(vault, ledger)
    session: list[list[Result]] = [
        # Which flag did I pick for Claude Code's web search?
        [reader.resolve("claude code"), reader.section("Claude_Code", "CLI flags")],
        # Where does WebSearch filter domains?
        [reader.resolve("websearch"), reader.read("WebSearch"), reader.section("WebSearch", "1")],
        # When do the backups run?
        [reader.resolve("backups"), reader.section("Home_Backup", "schedule")],
        # What did the person say exactly? (the cited conversation)
        [reader.source("conv:256ba646")],
        # What links to Claude Code?
        [reader.links("Claude_Code")],
        # Something never written about: the negative control.
        [reader.resolve("kubernetes"), reader.search("kubernetes cluster")],
    ]
    sizes = [sum(r.size for r in question) for question in session]
    assert all(r.size <= BUDGET for question in session for r in question)
    assert sum(sizes) / len(sizes) < 5 * 1024
    assert "`-p` flag" in session[0][1].text
    assert "Nightly at 02:00" in session[2][1].text
    assert "[1] assistant: -p" in session[3][0].text
    assert session[5][0].data["stem"] is None
    assert session[5][1].data["hits"] == []
