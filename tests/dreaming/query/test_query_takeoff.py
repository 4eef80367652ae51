"""`takeoff`: the lead, the History and the newest cited conversation, the open
questions, the section changed last (by the vault's git), the next reads; 2 KB."""

from __future__ import annotations

import itertools
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger, chunks, woven
from dreaming.ledger.chunks import Chunk
from dreaming.query import BUDGET, Reader
from dreaming.query.takeoff import FOUND, LOOKBACK, covered, questions_in
from dreaming.vault import Vault
from dreaming.vault.repo import VaultRepo
from tests.query_support import NOW, article, conversation, note, within_budget
from tests.support import draws

USAGE = ("Usage", "It searches fast.[^1]")
HISTORY = ("History", "- February 2026: planned.[^1]\n- March 2026: adopted.[^2]")


def ripgrep(vault: Vault, *sections: tuple[str, str], see_also: tuple[str, ...] = ()) -> str:
    return article(
        vault,
        "Ripgrep",
        lead="Ripgrep is the search tool the person uses.[^1]",
        sections=sections or (USAGE,),
        footnotes=(note(1, "11111111"), note(2, "22222222")),
        see_also=see_also,
    )


def night(vault: Vault, stem: str, run: str = "run-1") -> None:
    """The article as it is, committed as a night commits it."""
    assert VaultRepo(vault.root).commit_pipeline([vault.articles / f"{stem}.md"], run, run)


def test_takeoff_gives_the_lead_and_names_the_next_reads(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    result = within_budget(Reader(vault, ledger).takeoff("ripgrep"))
    assert result.tool == "takeoff"
    assert result.text.startswith("# Takeoff: Ripgrep (Ripgrep · tool)\n")
    assert "Lead: Ripgrep is the search tool the person uses." in result.text
    assert result.text.splitlines()[-1].startswith("Next: ")
    assert result.text.endswith("read Ripgrep")
    assert result.data["stem"] == "Ripgrep"
    assert result.next is None


def test_the_last_history_lines_come_with_the_conversations_they_cite(
    vault: Vault, ledger: Ledger
) -> None:
    trace = "\n".join(f"- March 202{i}: step {i}.[^{1 + i % 2}]" for i in range(5))
    ripgrep(vault, ("History", trace))
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert "History (last 3 of 5):\n- March 2022: step 2. (conv:11111111)\n" in result.text
    assert "- March 2024: step 4. (conv:11111111)" in result.text
    assert "step 1" not in result.text
    assert result.data["history"] == {"shown": 3, "lines": 5}


def test_an_article_without_history_says_so(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "History: none (no ## History section)" in result.text


def test_the_newest_cited_conversation_is_named_with_its_date(vault: Vault, ledger: Ledger) -> None:
    article(
        vault,
        "Fd",
        sections=(("Usage", "Finds files.[^2] Fast.[^1]"),),
        footnotes=(
            note(1, "11111111", "the old talk"),
            Footnote(2, "22222222", "2026-03-09", "codex", "the new talk"),
        ),
    )
    result = Reader(vault, ledger).takeoff("Fd")
    assert "Newest conversation: conv:22222222, 2026-03-09 (codex) — the new talk" in result.text
    assert result.data["newest"] == {"conv": "22222222", "date": "2026-03-09"}


def test_its_source_is_a_next_read_when_the_ledger_holds_it(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    conversation(ledger, "22222222", [("user", "hi"), ("assistant", "hello")])
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "source conv:22222222" in result.text.splitlines()[-1]


def test_a_conversation_the_ledger_lacks_is_said_and_not_offered(
    vault: Vault, ledger: Ledger
) -> None:
    ripgrep(vault)
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "(not in the ledger)" in result.text
    assert "source" not in result.text.splitlines()[-1]


def test_the_section_the_last_commit_changed_is_named(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault, USAGE, ("Setup", "Installed by brew.[^1]"))
    night(vault, "Ripgrep")
    ripgrep(vault, USAGE, ("Setup", "Installed by brew. Pinned to 14.1 since the bug.[^1]"))
    night(vault, "Ripgrep", "run-2")
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert 'Last changed: section 2 "Setup", ' in result.text
    assert "by dreaming" in result.text
    assert '"Pinned to 14.1 since the bug."' in result.text
    assert 'Next: section Ripgrep "Setup"' in result.text
    assert result.data["changed"]["heading"] == "Setup"
    assert result.data["changed"]["by"] == "dreaming"


def test_a_section_is_named_by_its_place_now(vault: Vault, ledger: Ledger) -> None:
    old = ("Old", "Once a grep alias.[^1]")
    ripgrep(vault, old, USAGE, ("Setup", "Brew.[^1]"))
    night(vault, "Ripgrep")
    ripgrep(vault, old, USAGE, ("Setup", "Cargo.[^1]"))
    night(vault, "Ripgrep", "run-2")
    ripgrep(vault, USAGE, ("Setup", "Cargo.[^1]"))
    night(vault, "Ripgrep", "run-3")
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert 'Last changed: section 2 "Setup", ' in result.text
    assert result.data["changed"]["n"] == 2


def test_an_edit_not_committed_yet_is_the_newest_change(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault, USAGE, ("Setup", "Installed by brew.[^1]"))
    night(vault, "Ripgrep")
    ripgrep(vault, ("Usage", "It searches fast, also in hidden files.[^1]"),
            ("Setup", "Installed by brew.[^1]"))  # fmt: skip
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert 'Last changed: section 1 "Usage", not committed yet' in result.text
    assert result.data["changed"]["date"] is None


def test_a_persons_commit_is_theirs(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    night(vault, "Ripgrep")
    ripgrep(vault, ("Usage", "It searches fast, I use it daily.[^1]"))
    VaultRepo(vault.root).commit_person([vault.articles / "Ripgrep.md"], "my edit")
    assert Reader(vault, ledger).takeoff("Ripgrep").data["changed"]["by"] == "you"


def test_see_also_and_references_are_passed_over(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault, USAGE, ("Setup", "Installed by brew.[^1]"))
    night(vault, "Ripgrep")
    ripgrep(vault, USAGE, ("Setup", "Installed by cargo.[^1]"))
    night(vault, "Ripgrep", "run-2")
    ripgrep(vault, USAGE, ("Setup", "Installed by cargo.[^1]"), see_also=("Fd",))
    night(vault, "Ripgrep", "run-3")
    assert Reader(vault, ledger).takeoff("Ripgrep").data["changed"]["heading"] == "Setup"


def test_the_longest_change_of_a_version_is_the_one_named(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault, USAGE, ("Setup", "Brew.[^1]"))
    night(vault, "Ripgrep")
    ripgrep(vault, ("Usage", "It searches very fast.[^1]"),
            ("Setup", "Brew, then cargo when brew lagged behind by two releases.[^1]"))  # fmt: skip
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert 'section 2 "Setup"' in result.text
    assert "(and 1 more section)" in result.text


def test_an_article_unchanged_since_written_says_when(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    night(vault, "Ripgrep")
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "Last changed: written on 20" in result.text
    assert "by dreaming; no section changed since" in result.text
    assert result.data["changed"] is None
    assert "section Ripgrep" not in result.text


def test_an_article_never_committed_says_so(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "Last changed: not committed yet, so no change to show" in result.text


def test_only_the_last_versions_are_compared(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    night(vault, "Ripgrep")
    for n in range(LOOKBACK + 1):
        ripgrep(vault, see_also=(f"Other {n}",))
        night(vault, "Ripgrep", f"run-{n + 2}")
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert f"no section changed in its last {LOOKBACK} commits" in result.text


def test_a_vault_without_git_still_takes_off(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    shutil.rmtree(vault.root / ".git")
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert "Last changed: no git history to read (" in result.text
    assert "Lead: Ripgrep" in result.text


def test_open_questions_are_the_persons_the_article_leaves_uncovered(
    vault: Vault, ledger: Ledger
) -> None:
    ripgrep(vault)
    conversation(ledger, "22222222", [
        ("user", "Does ripgrep search fast? Should I alias it to grep in my zsh config?"),
        ("assistant", "Do you want hidden files searched too?"),
    ])  # fmt: skip
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert "Open questions (1 asked in the cited conversations, not covered by the article):\n" in (
        result.text
    )
    assert "- Should I alias it to grep in my zsh config? (conv:22222222 #0)" in result.text
    assert "search fast?" not in result.text
    assert "hidden files" not in result.text
    assert result.data["open"] == {
        "from": "conversations", "shown": 1, "found": 1, "at": [["22222222", 0]],
    }  # fmt: skip


def test_the_newest_conversations_questions_come_first(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    conversation(ledger, "11111111", [("user", "Is the older zsh alias worth keeping?")])
    conversation(ledger, "22222222", [("user", "Would fzf pair well with the pipeline?")])
    lines = Reader(vault, ledger).takeoff("Ripgrep").text.splitlines()
    fzf = next(i for i, line in enumerate(lines) if "fzf" in line)
    zsh = next(i for i, line in enumerate(lines) if "zsh" in line)
    assert fzf < zsh


def test_only_the_messages_the_article_was_written_from_when_known(
    vault: Vault, ledger: Ledger
) -> None:
    ripgrep(vault)
    conv = conversation(ledger, "22222222", [
        ("user", "Should I alias it to grep in my zsh config?"),
        ("assistant", "Yes."),
        ("user", "Unrelated: what wine goes with a mushroom risotto tonight?"),
    ])  # fmt: skip
    with ledger.transaction():
        chunks.replace(ledger, conv, [Chunk(conv, 0, 1, "aliases", "h", "1")], NOW)
        woven.record(ledger, "Ripgrep", [f"{conv}:0-1"], "run-1", NOW)
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "zsh config?" in result.text
    assert "risotto" not in result.text


def test_an_open_questions_section_is_the_list(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault, USAGE, ("Open questions", "- Switch to fd for file names?[^1]\n- Keep PCRE2?"))
    conversation(ledger, "22222222", [("user", "Should I alias it to grep in my zsh config?")])
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert "Open questions (the article's own list, 2):\n" in result.text
    assert "- Switch to fd for file names?\n- Keep PCRE2?\n" in result.text
    assert "zsh" not in result.text
    assert result.data["open"]["from"] == "section"


def test_none_found_is_said(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    result = Reader(vault, ledger).takeoff("Ripgrep")
    assert "Open questions: none found in the cited conversations" in result.text


def test_questions_found_are_counted_up_to_a_cap(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    asks = [("user", f"Would option number{i} suit my laptop{i}?") for i in range(FOUND + 5)]
    conversation(ledger, "22222222", asks)
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert f"Open questions ({FOUND}+ asked" in result.text
    assert result.data["open"]["found"] == FOUND


def test_a_topic_that_names_nothing_gives_the_nearest_names(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    result = within_budget(Reader(vault, ledger).takeoff("ripgrp"))
    assert result.tool == "takeoff"
    assert result.text.startswith('No article named "ripgrp".')
    assert "Nearest names: Ripgrep (Ripgrep)" in result.text
    assert result.data["nearest"] == ["Ripgrep"]


def test_an_ambiguous_topic_lists_the_candidates(vault: Vault, ledger: Ledger) -> None:
    article(vault, "Rg One", infobox={"kind": "tool", "aliases": "rg"})
    article(vault, "Rg Two", infobox={"kind": "tool", "aliases": "rg"})
    result = within_budget(Reader(vault, ledger).takeoff("rg"))
    assert result.tool == "takeoff"
    assert result.data["candidates"] == ["Rg_One", "Rg_Two"]


def test_a_redirect_takes_off_from_its_target(vault: Vault, ledger: Ledger) -> None:
    ripgrep(vault)
    (vault.articles / "Rg.md").write_text("# Rg\n\n*Redirects to [[Ripgrep]]*\n", encoding="utf-8")
    assert Reader(vault, ledger).takeoff("Rg").data["stem"] == "Ripgrep"


def test_a_huge_article_fits_the_budget(vault: Vault, ledger: Ledger) -> None:
    trace = "\n".join(f"- March 2026: {'very ' * 60}step {i}.[^1][^2]" for i in range(500))
    body = tuple((f'Part {i} "ünï" {"long " * 40}', f"Body {i}.[^1]") for i in range(300))
    sections = (*body, ("History", trace))
    ripgrep(vault, *sections)
    night(vault, "Ripgrep")
    ripgrep(vault, *body[:-1], (body[-1][0], "Changed " * 500 + "[^1]"), ("History", trace))
    asks = [
        ("user", f'Would "option" number{i} {"really " * 30}suit laptop{i}?') for i in range(300)
    ]
    conversation(ledger, "22222222", asks)
    result = within_budget(Reader(vault, ledger).takeoff("Ripgrep"))
    assert result.size <= BUDGET
    assert result.text.splitlines()[-1].startswith("Next: section Ripgrep 300 ")
    assert "Last changed: section 300 " in result.text
    assert result.data["open"]["shown"] >= 1


def test_an_overlong_topic_is_refused_in_one_line(vault: Vault, ledger: Ledger) -> None:
    from dreaming.query import QueryError

    with pytest.raises(QueryError, match=r"the topic .* is 5,000 bytes, over 1,024"):
        Reader(vault, ledger).takeoff("t" * 5000)


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ("Should I use fd? Or find?", ["Should I use fd?"]),
        ("Is the lock taken twice here?", ["Is the lock taken twice here?"]),
        ("```\nis this code really a question?\n```", []),
        ("> Did you quote this question here?", []),
        ("    indented code line is it a question?", []),
        ("| a table cell, is it a question? |", []),
        ("Why?", []),
        ('"Is this quoted one kept too?"', ["Is this quoted one kept too?"]),
    ],
)
def test_what_counts_as_a_question(message: str, found: list[str]) -> None:
    assert questions_in(message) == found


def test_a_question_is_covered_by_half_its_content_words() -> None:
    article = "ripgrep searches hidden files with -uu.".casefold()
    assert covered("How does ripgrep search hidden files?", article)
    assert not covered("Should I alias ripgrep to grep in zsh?", article)
    assert covered("What is it?", article)


COUNT = itertools.count()
HEAVY = st.sampled_from(['"', "\\", "\x01", "é", "😀", "[", "?", " ", "\n"])
TEXT = st.text(
    st.one_of(HEAVY, st.characters(codec="utf-8", exclude_characters="\r")), max_size=400
)


@settings(
    max_examples=draws(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(title=TEXT, heading=TEXT, body=TEXT, trace=TEXT, asked=TEXT)
def test_a_takeoff_fits_the_budget_for_any_text(
    vault: Vault, ledger: Ledger, title: str, heading: str, body: str, trace: str, asked: str
) -> None:
    n = next(COUNT)
    stem = f"Topic_{n}"
    name = " ".join(title.split())[:100]
    text = (
        f"# Topic {n}\n\n```info\nkind: {name.replace('`', '')}\naliases: {name}\n```\n\n"
        f"{body}[^1]\n\n## {' '.join(heading.split()) or 'H'}\n\n{body}[^2]\n\n"
        f"## History\n\n{trace}[^1]\n\n## References\n\n"
        f"[^1]: `conv:{n:08x}` (2026-02-01, {name}) — {name}\n"
        f"[^2]: `conv:{n + 1:08x}` (2026-02-02, x) — {name}\n"
    )
    (vault.articles / f"{stem}.md").write_text(text, encoding="utf-8")
    night(vault, stem, f"run-{n}")
    (vault.articles / f"{stem}.md").write_text(text.replace("## History", f"{asked}\n\n## History"))
    conversation(ledger, f"{n + 1:08x}", [("user", asked + "?"), ("user", body)], f"c-{n}")
    reader = Reader(vault, ledger)
    reader.index.recheck_seconds = 0
    for topic in (stem, name or "x", asked[:300] or "y"):
        within_budget(reader.takeoff(topic))
