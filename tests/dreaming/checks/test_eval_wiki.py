"""`dreaming eval wiki`: the articles on disk scored against the conversations they cite
and, with a gold file, against what a careful reader would have filed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dreaming.article import build
from dreaming.article.markup import Footnote
from dreaming.checks.gold import GoldError, load_gold
from dreaming.checks.wiki import scorecard
from dreaming.ledger import Ledger, work
from dreaming.vault import Vault
from tests.synth_support import Talk, article_subject, captured_subject, seed
from watcher.cli import cli

MDX = Talk(
    "aaaaaaaa",
    "mdx build errors from angle bracket urls",
    (
        ("user", "MDX builds fail when markdownlint wraps URLs in angle brackets (MD034)."),
        ("assistant", "MDX reads <https://x> as JSX. Disable MD034 in .markdownlintrc.json."),
    ),
)
QUIZ = Talk(
    "bbbbbbbb",
    "quiz questions about statistics",
    (
        ("user", "Make a quiz question about the median."),
        ("assistant", "Which is the median of 1, 2, 9?\nA) 4\nB) 2\nC) 9\nAnswer: B"),
    ),
)


def article(
    vault: Vault, title: str, lead: str, body: str, talk: Talk, kind: str = "thing"
) -> None:
    text = build(
        title,
        lead=lead,
        sections=[("Use", body)],
        infobox=[("kind", kind)],
        footnotes=[Footnote(1, talk.hash8, "2026-02-01", "claude", talk.label)],
    )
    (vault.articles / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")


def gold_line(conv: str, split: str = "heldout", **kw: Any) -> dict[str, Any]:
    return {"conv": conv, "split": split, "subjects": [], "facts": [], "not_facts": [], **kw}


def gold_file(tmp_path: Path, *rows: dict[str, Any]) -> Path:
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def mdx(vault: Vault, ledger: Ledger) -> str:
    chunk = seed(ledger, MDX)
    article_subject(ledger, "mdx", "MDX", [chunk])
    article(
        vault,
        "MDX",
        "MDX reads angle bracket URLs as JSX.[^1]",
        "Disable MD034 in .markdownlintrc.json so URLs stay bare.[^1]",
        MDX,
    )
    return chunk


def test_a_sentence_its_excerpt_holds_is_supported(vault: Vault, ledger: Ledger, mdx: str) -> None:
    free = scorecard(vault, ledger).free
    assert (free["sentences"], free["unsupported"]) == (2, 0)


def test_a_sentence_with_a_number_the_excerpt_lacks_is_unsupported(
    vault: Vault, ledger: Ledger, mdx: str
) -> None:
    article(vault, "MDX", "MDX reads URLs as JSX.[^1]", "It was fixed in 42 minutes.[^1]", MDX)
    free = scorecard(vault, ledger).free
    assert (free["sentences"], free["unsupported"]) == (2, 1)


def test_a_sentence_dated_by_reconcile_and_its_history_trace_count_as_supported(
    vault: Vault, ledger: Ledger, mdx: str
) -> None:
    dated = "As of February 2026, disable MD034 in .markdownlintrc.json.[^1]"
    text = build(
        "MDX",
        lead="MDX reads angle bracket URLs as JSX.[^1]",
        sections=[("Use", dated), ("History", "- February 2026: planned.[^1]")],
        infobox=[("kind", "thing")],
        footnotes=[Footnote(1, MDX.hash8, "2026-02-01", "claude", MDX.label)],
    )
    (vault.articles / "MDX.md").write_text(text, encoding="utf-8")
    free = scorecard(vault, ledger).free
    assert (free["sentences"], free["unsupported"]) == (2, 0)


def test_articles_captured_subjects_and_stubs_are_counted(
    vault: Vault, ledger: Ledger, mdx: str
) -> None:
    captured_subject(ledger, "markdownlint", [mdx])
    free = scorecard(vault, ledger).free
    assert (free["articles"], free["captured"], free["conversations"], free["stubs"]) == (
        1,
        1,
        1,
        0,
    )
    assert free["violations"] == 0


def test_a_gold_subject_only_captured_still_has_a_home(
    vault: Vault, ledger: Ledger, mdx: str, tmp_path: Path
) -> None:
    captured_subject(ledger, "markdownlint", [mdx])
    subjects = [
        {"names": ["MDX"], "kind": "standard", "main": True},
        {"names": ["markdownlint", "markdown-lint"], "kind": "thing", "main": False},
        {"names": ["JSX"], "kind": "standard", "main": False},
    ]
    gold = load_gold(gold_file(tmp_path, gold_line(MDX.hash8, subjects=subjects)))
    card = scorecard(vault, ledger, gold).per_split["heldout"]
    assert (card["coverage"].hit, card["coverage"].of) == (2, 3)
    assert (card["main coverage"].hit, card["main coverage"].of) == (1, 1)
    assert (card["precision"].hit, card["precision"].of) == (2, 2)
    assert (card["kind accuracy"].hit, card["kind accuracy"].of) == (0, 1)


def test_a_key_fact_is_recalled_only_when_every_term_group_is_written(
    vault: Vault, ledger: Ledger, mdx: str, tmp_path: Path
) -> None:
    facts = [
        {"fact": "Disable MD034.", "terms": [["md034"], ["disable", "turn off"]]},
        {"fact": "Use remark-gfm.", "terms": [["remark-gfm"]]},
    ]
    gold = load_gold(gold_file(tmp_path, gold_line(MDX.hash8, facts=facts)))
    recall = scorecard(vault, ledger, gold).per_split["heldout"]["key-fact recall"]
    assert (recall.hit, recall.of) == (1, 2)


def test_a_quiz_option_written_as_fact_is_a_not_fact_hit(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    chunk = seed(ledger, QUIZ)
    article_subject(ledger, "median", "Median", [chunk])
    article(vault, "Median", "The median of 1, 2, 9 is 4.[^1]", "A quiz asked for it.[^1]", QUIZ)
    not_facts = [
        {"statement": "the median is 4", "why": "distractor", "terms": [["median"], ["4"]]}
    ]
    gold = load_gold(gold_file(tmp_path, gold_line(QUIZ.hash8, not_facts=not_facts)))
    kept_out = scorecard(vault, ledger, gold).per_split["heldout"]["not-facts kept out"]
    assert (kept_out.hit, kept_out.of) == (0, 1)


def test_each_split_is_scored_apart_and_gold_for_other_vaults_is_said(
    vault: Vault, ledger: Ledger, mdx: str, tmp_path: Path
) -> None:
    subjects = [{"names": ["MDX"], "kind": "thing", "main": True}]
    rows = [
        gold_line(MDX.hash8, "tune", subjects=subjects),
        gold_line("not-here", "heldout", subjects=subjects),
    ]
    card = scorecard(vault, ledger, load_gold(gold_file(tmp_path, *rows)))
    assert set(card.per_split) == {"tune", "all"}
    assert card.absent == 1


def test_a_bad_gold_line_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    path = gold_file(tmp_path, gold_line("x"), {"conv": "y", "split": "later"})
    with pytest.raises(GoldError, match=r"gold\.jsonl:2: not a gold line \(split must be"):
        load_gold(path)


def test_the_command_prints_the_scorecard_and_its_json(
    vault: Vault, ledger: Ledger, mdx: str, tmp_path: Path
) -> None:
    gold = gold_file(
        tmp_path, gold_line(MDX.hash8, subjects=[{"names": ["MDX"], "kind": "thing", "main": True}])
    )
    runner = CliRunner()
    text = runner.invoke(cli, ["eval", "wiki", "--vault", str(vault.root), "--gold", str(gold)])
    assert text.exit_code == 0, text.output
    assert "unsupported sentences 0/2" in text.output
    assert "heldout: coverage 1/1 = 100 %" in text.output
    out = runner.invoke(cli, ["eval", "wiki", "--vault", str(vault.root), "--json"])
    assert json.loads(out.output)["free"]["articles"] == 1


def test_a_missing_gold_file_is_one_line_and_exit_1(vault: Vault, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["eval", "wiki", "--vault", str(vault.root), "--gold", str(tmp_path / "nope.jsonl")]
    )
    assert result.exit_code == 1
    assert "cannot read the gold file" in str(result.exception)


def test_a_gold_file_that_is_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    pipe = tmp_path / "gold.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(GoldError, match="not a regular file"):
        load_gold(pipe)


def test_a_folder_given_as_the_gold_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(GoldError, match="not a regular file"):
        load_gold(tmp_path)


def test_the_share_of_units_through_the_write_gate_is_given_per_stage(
    vault: Vault, ledger: Ledger
) -> None:
    with ledger.transaction():
        statuses: tuple[tuple[str, work.WorkStatus], ...] = (
            ("a", "done"),
            ("b", "done"),
            ("c", "rejected"),
        )
        for unit, status in statuses:
            work.record(ledger, "link", unit, "h", status, run_id=None, now="2026-01-01")
    card = scorecard(vault, ledger)
    assert card.free["gate"]["link"] == (2, 1)
    assert "through the write gate: link 2/3" in card.free_text()
