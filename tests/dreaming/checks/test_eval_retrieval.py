"""`dreaming eval retrieval` and `dreaming eval propose`: the metrics by hand, bad rows,
pending rows, and drafts from a real vault through the real Reader."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dreaming.checks.propose import first_sentence, plain, propose
from dreaming.checks.retrieval import (
    EvalError,
    Question,
    Trial,
    evaluate,
    load_questions,
    question_names,
    score,
    summarize,
)
from dreaming.ledger import Ledger
from dreaming.query import Reader
from dreaming.vault import Vault
from tests.read_support import fill
from watcher.cli import cli
from watcher.mcp_client import McpError, McpTools


def jsonl(path: Path, *rows: dict[str, Any] | str) -> Path:
    lines = (r if isinstance(r, str) else json.dumps(r) for r in rows)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def q(*gold: str, sections: tuple[str, ...] = ()) -> Question:
    return Question(1, "a question", gold, sections)


# ---------------------------------------------------------------- metrics by hand


def test_a_gold_stem_ranked_first_scores_one_everywhere() -> None:
    o = score(q("Claude_Code"), Trial(ranked=["Claude_Code", "WebSearch"]))
    assert (o.rank, o.recall1, o.recall5, o.reciprocal_rank) == (1, 1.0, 1.0, 1.0)


def test_a_gold_stem_ranked_third_counts_for_recall_at_5_and_a_third_of_mrr() -> None:
    o = score(q("URLs"), Trial(ranked=["A", "B", "URLs"]))
    assert (o.rank, o.recall1, o.recall5) == (3, 0.0, 1.0)
    assert o.reciprocal_rank == pytest.approx(1 / 3)


def test_recall_is_the_share_of_gold_stems_found() -> None:
    o = score(q("A", "B"), Trial(ranked=["B", "x", "y", "z", "w", "A"]))
    assert (o.rank, o.recall1, o.recall5) == (1, 0.5, 0.5)


def test_a_miss_scores_zero_and_stems_compare_as_names() -> None:
    assert score(q("Claude_Code"), Trial(ranked=["claude code"])).rank == 1
    o = score(q("URLs"), Trial(ranked=["WebSearch"]))
    assert (o.rank, o.recall5, o.reciprocal_rank) == (None, 0.0, 0.0)


def test_the_summary_averages_questions_and_sums_the_bytes_of_each() -> None:
    from dreaming.checks.retrieval import Call

    hit = Trial(["A"], [Call("resolve", "a", 300), Call("section", "A / H", 900)], "H")
    third = Trial(["x", "y", "B"], [Call("search", "b", 1500)])
    miss = Trial([], [Call("resolve", "c", 200), Call("search", "c", 100)])
    s = summarize(
        [
            score(q("A", sections=("H",)), hit),
            score(q("B", sections=("Other",)), third),
            score(q("C"), miss),
        ]
    )
    assert s.recall1 == pytest.approx(1 / 3)
    assert s.recall5 == pytest.approx(2 / 3)
    assert s.mrr == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert s.bytes_mean == pytest.approx((1200 + 1500 + 300) / 3)
    assert s.largest_result == 1500
    assert s.calls_mean == pytest.approx(5 / 3)
    assert (s.section_hits, s.section_questions) == (1, 2)


def test_names_come_from_the_question_best_first() -> None:
    names = question_names("Why did I pick Claude Code's -p flag over the API?")
    assert names[0] == "Claude Code"
    assert "flag" in names
    assert len({n.casefold() for n in names}) == len(names)


# ---------------------------------------------------------------- question files


def test_bad_lines_are_said_with_file_and_line_and_the_rest_still_load(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "q.jsonl",
        {"question": "Why MD034 off?", "gold": ["URLs"]},
        "{not json",
        "[1, 2]",
        {"gold": ["URLs"]},
        {"question": "Where?", "gold": []},
        {"question": "Where?", "gold": ["URLs"], "gold_sections": "MDX URLs"},
        "",
        {"question": "Which flag?", "gold": ["Claude_Code"], "name": "flag"},
    )
    loaded = load_questions(path)
    assert [(x.line, x.gold) for x in loaded.questions] == [(1, ("URLs",)), (8, ("Claude_Code",))]
    assert [p.split(": ", 1)[0] for p in loaded.problems] == [
        f"{path}:{n}" for n in (2, 3, 4, 5, 6)
    ]
    assert "not JSON" in loaded.problems[0]
    assert '"gold" must be a non-empty list' in loaded.problems[3]


def test_pending_rows_are_refused_unless_included(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "q.jsonl",
        {"question": "Why MD034 off?", "gold": ["URLs"], "review": "pending"},
        {"question": "Which flag?", "gold": ["Claude_Code"]},
    )
    loaded = load_questions(path)
    assert [x.line for x in loaded.questions] == [2]
    assert loaded.problems == [
        f'{path}:1: still marked "review": "pending"; check the question and its gold, '
        "then remove the mark (or pass --include-pending)"
    ]
    assert len(load_questions(path, include_pending=True).questions) == 2


def test_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="no such file"):
        load_questions(tmp_path / "none.jsonl")


# ---------------------------------------------------------------- through the Reader


@pytest.fixture
def reader(vault: Vault, ledger: Ledger) -> Reader:
    fill(vault)
    return Reader(vault, ledger)


def test_resolve_first_finds_a_named_article_and_reads_its_section(
    reader: Reader, tmp_path: Path
) -> None:
    path = jsonl(
        tmp_path / "q.jsonl",
        {
            "question": "What does WebSearch filter, in its CLI options?",
            "gold": ["WebSearch"],
            "gold_sections": ["WebSearch CLI Options"],
        },
    )
    evaluation = evaluate(reader, path)
    (outcome,) = evaluation.outcomes["resolve-first"]
    assert outcome.rank == 1
    assert outcome.section_hit is True
    assert [c.tool for c in outcome.trial.calls] == ["resolve", "read", "section"]
    assert all(0 < c.bytes <= 2048 for c in outcome.trial.calls)


def test_search_only_makes_one_search_then_reads_the_top_hit(
    reader: Reader, tmp_path: Path
) -> None:
    path = jsonl(
        tmp_path / "q.jsonl", {"question": "markdownlint MD034 angle brackets", "gold": ["URLs"]}
    )
    (outcome,) = evaluate(reader, path).outcomes["search-only"]
    assert outcome.rank == 1
    assert [c.tool for c in outcome.trial.calls][:2] == ["search", "read"]
    assert outcome.trial.bytes == sum(c.bytes for c in outcome.trial.calls)


def test_a_gold_stem_that_is_no_article_is_said_and_scored_as_a_miss(
    reader: Reader, tmp_path: Path
) -> None:
    path = jsonl(tmp_path / "q.jsonl", {"question": "Who is Nobody?", "gold": ["Nobody"]})
    evaluation = evaluate(reader, path)
    assert evaluation.problems == [f"{path}:1: gold 'Nobody' is no article in the vault"]
    assert evaluation.outcomes["resolve-first"][0].rank is None


def test_resolve_first_on_a_tiny_vault_scores_what_hand_counting_gives(
    reader: Reader, tmp_path: Path
) -> None:
    path = jsonl(
        tmp_path / "q.jsonl",
        # Named: resolves to the gold stem, rank 1.
        {"question": "What does WebSearch filter?", "gold": ["WebSearch"]},
        # No such article: a miss, whatever is found.
        {"question": "Who is Nobody?", "gold": ["Nobody"]},
        # Two gold stems, the question names one: rank 1, half of the gold found.
        {"question": "Why is MD034 off for URLs?", "gold": ["URLs", "WebSearch"]},
    )
    outcomes = evaluate(reader, path).outcomes["resolve-first"]
    assert [o.rank for o in outcomes] == [1, None, 1]
    s = summarize(outcomes)
    assert s.recall1 == pytest.approx(1.5 / 3)
    assert s.recall5 == pytest.approx(1.5 / 3)
    assert s.mrr == pytest.approx(2 / 3)


def test_a_file_with_nothing_to_evaluate_is_an_error(reader: Reader, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "q.jsonl", "{oops")
    with pytest.raises(EvalError, match="no question to evaluate"):
        evaluate(reader, path)


def test_the_cli_prints_the_scorecard_and_json(vault: Vault, tmp_path: Path) -> None:
    fill(vault)
    path = jsonl(
        tmp_path / "q.jsonl",
        {"question": "Why is MD034 off for URLs?", "gold": ["URLs"], "name": "md034"},
        "{bad",
    )
    args = ["eval", "retrieval", "--vault", str(vault.root), "--queries", str(path)]
    card = CliRunner().invoke(cli, args)
    assert card.exit_code == 0, card.output
    assert "| strategy | recall@1 | recall@5 | MRR |" in card.stdout
    assert "| resolve-first |" in card.stdout
    assert "| search-only |" in card.stdout
    assert f"{path}:2: not JSON" in card.stderr
    doc = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert doc["questions"] == 1
    assert set(doc["strategies"]) == {"resolve-first", "search-only"}
    assert doc["per_question"][0]["name"] == "md034"


@pytest.mark.slow  # `dreaming mcp` in a child process
def test_over_mcp_the_eval_sees_what_it_sees_in_process(vault: Vault, tmp_path: Path) -> None:
    fill(vault)
    path = jsonl(
        tmp_path / "q.jsonl",
        {"question": "What does WebSearch filter, in its CLI options?", "gold": ["WebSearch"]},
        {"question": "markdownlint MD034 angle brackets", "gold": ["URLs"]},
        {"question": "Who is Nobody?", "gold": ["Nobody"]},
    )
    args = ["eval", "retrieval", "--vault", str(vault.root), "--queries", str(path), "--json"]
    here = json.loads(CliRunner().invoke(cli, args).stdout)
    run = CliRunner().invoke(cli, [*args, "--over-mcp"])
    assert run.exit_code == 0, run.output
    over = json.loads(run.stdout)
    assert over["per_question"] == here["per_question"]
    assert over["strategies"] == here["strategies"]


@pytest.mark.slow  # `dreaming mcp` in a child process
def test_an_mcp_server_that_cannot_start_says_why_in_one_line(tmp_path: Path) -> None:
    with (
        pytest.raises(McpError, match=r"^could not start .*no such folder; create a vault"),
        McpTools(Vault(tmp_path / "gone")),
    ):
        pass


@pytest.mark.slow  # `dreaming mcp` in a child process
def test_an_mcp_server_that_dies_mid_session_is_one_clear_error(vault: Vault) -> None:
    fill(vault)
    with McpTools(vault) as tools:
        assert tools.resolve_stems("WebSearch") == ["WebSearch"]
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                command = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"mcp" in command and os.fsencode(vault.root) in command:
                os.kill(int(proc.name), signal.SIGKILL)
        with pytest.raises(McpError, match=r"^`dreaming mcp` stopped answering \(resolve\)"):
            tools.resolve("URLs")


# ---------------------------------------------------------------- propose


def test_propose_drafts_pending_rows_from_names_leads_and_sections(vault: Vault) -> None:
    fill(vault)
    rows = propose(vault).rows
    assert all(r["review"] == "pending" for r in rows)
    web = [r for r in rows if r["gold"] == ["WebSearch"]]
    assert [r["question"] for r in web] == [
        "What do I know about WebSearch?",
        "What is the web lookup tool of Claude Code in print mode?",
        "What did I settle about WebSearch CLI Options in WebSearch?",
    ]
    assert web[2]["gold_sections"] == ["WebSearch CLI Options"]
    assert propose(vault).rows == rows


def test_a_lead_that_does_not_define_its_subject_drafts_no_description(vault: Vault) -> None:
    fill(vault)
    urls = [r["drafted_from"] for r in propose(vault).rows if r["gold"] == ["URLs"]]
    assert urls == ["title", "section"]


def test_drafts_skip_redirects_and_say_unreadable_files(vault: Vault) -> None:
    (vault.articles / "Claude_CLI.md").write_text(
        "# Claude CLI\n\n*Redirects to [[Claude Code]]*\n", encoding="utf-8"
    )
    (vault.articles / "Broken.md").write_bytes(b"# Broken\n\n\xff\xfe")
    proposal = propose(vault)
    assert proposal.rows == []
    assert len(proposal.skipped) == 1
    assert proposal.skipped[0].startswith("articles/Broken.md: cannot read as UTF-8")


@pytest.mark.timeout(10)
def test_drafts_say_a_named_pipe_or_a_link_in_articles_and_read_neither(
    vault: Vault, tmp_path: Path
) -> None:
    os.mkfifo(vault.articles / "Pipe.md")
    (tmp_path / "secret.md").write_text("# Secret\n\nThe secret lead.\n", encoding="utf-8")
    (vault.articles / "Secret.md").symlink_to(tmp_path / "secret.md")
    proposal = propose(vault)
    assert proposal.rows == []
    assert proposal.skipped[0] == "articles/Pipe.md: a named pipe, not a file; delete it"
    assert proposal.skipped[1].startswith("articles/Secret.md: a link;")


def test_proposed_rows_are_refused_by_the_eval_until_reviewed(vault: Vault, tmp_path: Path) -> None:
    fill(vault)
    out = tmp_path / "drafts.jsonl"
    done = CliRunner().invoke(
        cli, ["eval", "propose", "--vault", str(vault.root), "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    loaded = load_questions(out)
    assert loaded.questions == []
    assert len(loaded.problems) == len(out.read_text(encoding="utf-8").splitlines())
    assert len(load_questions(out, include_pending=True).questions) == len(loaded.problems)


def test_propose_never_overwrites_a_question_file(vault: Vault, tmp_path: Path) -> None:
    out = tmp_path / "reviewed.jsonl"
    out.write_text('{"question": "kept", "gold": ["A"]}\n', encoding="utf-8")
    done = CliRunner().invoke(
        cli, ["eval", "propose", "--vault", str(vault.root), "--out", str(out)]
    )
    assert done.exit_code == 1
    assert "already exists" in str(done.exception)
    assert out.read_text(encoding="utf-8") == '{"question": "kept", "gold": ["A"]}\n'


def test_plain_text_of_a_lead_drops_markup() -> None:
    lead = "**Claude Code** is [[Agent|an agent]] with `-p`.[^1] More.\n\n{{stub}}"
    assert plain(lead) == "Claude Code is an agent with -p. More."
    assert first_sentence(plain(lead)) == "Claude Code is an agent with -p."
