"""`dreaming mcp` (the read path over MCP) and `dreaming eval` (the wiki and retrieval evals)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from watcher.console import command_app, err, shown, vault_option


@click.command()
@vault_option
def mcp(vault_path: Path | None) -> None:
    """Serve the wiki's read tools over MCP on stdin/stdout (read-only).

    Point an MCP client at it (see docs/read-path.md); it never writes the vault."""
    from watcher.mcp import serve_mcp

    serve_mcp(vault_path)


@click.group("eval")
def eval_group() -> None:
    """Offline evals: the wiki the nights wrote, and the read path."""


@eval_group.command("retrieval")
@vault_option
@click.option(
    "--queries",
    "queries",
    type=click.Path(path_type=Path),
    required=True,
    help="JSONL: one {question, gold: [stems], gold_sections?, name?} a line.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
@click.option("--include-pending", is_flag=True, help='Also rows still marked "review": "pending".')
@click.option(
    "--over-mcp",
    is_flag=True,
    help="Ask through a `dreaming mcp` server on stdio, as an agent's host does.",
)
def eval_retrieval(
    vault_path: Path | None, queries: Path, as_json: bool, include_pending: bool, over_mcp: bool
) -> None:
    """Recall@1/@5, MRR and bytes read per question, resolve-first against search-only."""
    from dreaming.checks.retrieval import evaluate, evaluation_doc, scorecard

    app = command_app(vault_path)
    if over_mcp:
        from watcher.mcp_client import McpTools

        with McpTools(app.vault) as tools:
            evaluation = evaluate(tools, queries, include_pending=include_pending)
    else:
        from dreaming.query import Reader

        reader = Reader(app.vault, app.ledger)
        evaluation = evaluate(reader, queries, include_pending=include_pending)
    for problem in evaluation.problems:
        err.print(f"dreaming: {shown(problem)}", markup=False)
    if as_json:
        click.echo(json.dumps(evaluation_doc(evaluation), indent=2, sort_keys=True))
    else:
        click.echo(scorecard(evaluation), nl=False)


@eval_group.command("propose")
@vault_option
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the JSONL here (a new file) instead of stdout.",
)
def eval_propose(vault_path: Path | None, out: Path | None) -> None:
    """Draft questions from each article's lead and first section, marked for review.

    Code only, no model. Review each row (question and gold), remove its
    "review": "pending" mark, then run dreaming eval retrieval on the file."""
    from dreaming.checks.propose import propose
    from dreaming.checks.retrieval import EvalError

    app = command_app(vault_path)
    proposal = propose(app.vault)
    for line in proposal.skipped:
        err.print(f"dreaming: {shown(line)}", markup=False)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in proposal.rows)
    if out is None:
        click.echo(text, nl=False)
        return
    if out.exists():
        raise EvalError(
            f"{out}: already exists (it may hold reviewed questions); "
            "pass a new --out file or delete it first"
        )
    out.write_text(text, encoding="utf-8")
    err.print(
        f"dreaming: {len(proposal.rows)} questions drafted into {shown(out)}; "
        'review each, remove its "review": "pending", then run dreaming eval retrieval',
        markup=False,
    )


@eval_group.command("wiki")
@vault_option
@click.option(
    "--gold",
    type=click.Path(path_type=Path),
    default=None,
    help="JSONL: one labelled conversation a line (docs/eval.md); scores each split.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (stable keys).")
def eval_wiki(vault_path: Path | None, gold: Path | None, as_json: bool) -> None:
    """Score the articles: support of every sentence by its excerpt, stubs, audit, model
    cost per conversation; with --gold, subject coverage and precision, key-fact recall,
    not-facts kept out and kind accuracy. Code only, no model; reads, never writes."""
    from dreaming.checks.gold import load_gold
    from dreaming.checks.wiki import scorecard

    app = command_app(vault_path)
    card = scorecard(app.vault, app.ledger, load_gold(gold) if gold is not None else ())
    if as_json:
        click.echo(json.dumps(card.as_json(), sort_keys=True))
    else:
        click.echo(card.text())
