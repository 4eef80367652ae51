"""`dreaming query <tool>`: the tools from a shell, plain and `--json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreaming.ledger import Ledger
from dreaming.query.budget import ENVELOPE
from dreaming.vault import Vault
from tests.query_support import HUGE, article, big_wiki, conversation, examples
from tests.watcher.test_cli import dreaming

# Slow: the console script in child processes.
pytestmark = pytest.mark.slow


def test_json_carries_tool_text_data_next_and_bytes(vault: Vault) -> None:
    examples(vault)
    done = dreaming("query", "resolve", "claude code", "--vault", str(vault.root), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) == {"tool", "text", "data", "next", "bytes"}
    assert doc["tool"] == "resolve"
    assert doc["data"]["stem"] == "Claude_Code"
    assert doc["bytes"] == len(doc["text"].encode()) == doc["data"]["bytes"]


def test_plain_output_is_the_text_and_a_footer_naming_the_next_read(vault: Vault) -> None:
    body = "\n\n".join(f"Paragraph {i} about the thing.[^1]" for i in range(150))
    article(vault, "Long", sections=(("Story", body),))
    done = dreaming("query", "section", "Long", "story", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Story — Long (Long)\n")
    assert done.stdout.rstrip().splitlines()[-1].endswith('next: section Long "Story" page=2')
    second = dreaming(
        "query", "section", "Long", "Story", "--page", "2", "--vault", str(vault.root)
    )
    assert "Paragraph" in second.stdout
    assert "Paragraph 0 " not in second.stdout


def test_every_tool_answers_from_the_shell(vault: Vault, ledger: Ledger) -> None:
    examples(vault)
    conversation(ledger, "256ba646", [("user", "which flag?"), ("assistant", "-p")])
    root = str(vault.root)
    asks = [
        ["read", "Claude_Code"],
        ["read", "Claude_Code", "--full"],
        ["links", "WebSearch"],
        ["infobox", "Claude_Code"],
        ["list", "--kind", "person"],
        ["category", "Tools"],
        ["status"],
        ["search", "allowed domains", "--limit", "3"],
        ["source", "conv:256ba646", "--from", "0", "--to", "1"],
    ]
    for ask in asks:
        done = dreaming("query", *ask, "--vault", root, "--json")
        assert done.returncode == 0, (ask, done.stderr)
        assert json.loads(done.stdout)["bytes"] <= 2048


def test_a_missing_vault_is_one_line_of_error(tmp_path: Path) -> None:
    done = dreaming("query", "status", "--vault", str(tmp_path / "nope"))
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1
    assert "dreaming init" in done.stderr


def test_list_with_kind_and_type_lists_what_has_both(vault: Vault) -> None:
    article(vault, "Ripgrep", infobox={"kind": "tool", "type": "cli"})
    article(vault, "Fd", infobox={"kind": "tool"})
    article(vault, "Ls", infobox={"kind": "thing", "type": "cli"})
    done = dreaming(
        "query", "list", "--kind", "tool", "--type", "cli", "--vault", str(vault.root), "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"]["stems"] == ["Ripgrep"]


def test_json_holds_the_budget_with_an_echoed_argument(vault: Vault, ledger: Ledger) -> None:
    big_wiki(vault, ledger)
    heading = '"quoted\\ ' * 100  # each quote and backslash escaped twice in JSON
    for ask in (["section", HUGE, heading], ["read", HUGE], ["list", "--kind", heading]):
        done = dreaming("query", *ask, "--vault", str(vault.root), "--json")
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.rstrip("\n").encode()) <= 2048 - ENVELOPE, ask[:2]


def test_an_argument_too_long_for_a_name_is_one_line_of_error(vault: Vault) -> None:
    done = dreaming("query", "resolve", "n" * 100_000, "--vault", str(vault.root), "--json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "100,000 bytes" in done.stderr
    assert "n" * 200 not in done.stderr


@pytest.mark.parametrize(
    ("ask", "option", "allowed"),
    [
        (["read", "X", "--page", "0"], "--page", "from 1 to 1,000,000,000"),
        (["section", "X", "H", "--page", "two"], "--page", "from 1 to 1,000,000,000"),
        (["source", "X", "--from", "-1"], "--from", "from 0 to 1,000,000,000"),
        (["source", "X", "--to", "9" * 30], "--to", "from 0 to 1,000,000,000"),
        (["search", "x", "--limit", "18446744073709551616"], "--limit", "from 1 to 50"),
        (["list", "--page", "1.5"], "--page", "from 1 to 1,000,000,000"),
    ],
)
def test_a_number_out_of_range_is_one_line_naming_the_option_and_range(
    vault: Vault, ask: list[str], option: str, allowed: str
) -> None:
    done = dreaming("query", *ask, "--vault", str(vault.root))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"'{option}'" in done.stderr
    assert f"must be a whole number {allowed}" in done.stderr
    assert "Traceback" not in done.stderr


def test_takeoff_prints_its_text_and_size(vault: Vault) -> None:
    article(vault, "Ripgrep", sections=(("Usage", "It searches fast.[^1]"),))
    done = dreaming("query", "takeoff", "ripgrep", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip().splitlines()
    assert lines[0] == "# Takeoff: Ripgrep (Ripgrep · tool)"
    assert lines[-2] == "Next: read Ripgrep"
    assert lines[-1].endswith(" bytes")


def test_takeoff_json_holds_the_tool_text_and_data(vault: Vault) -> None:
    article(vault, "Ripgrep")
    done = dreaming("query", "takeoff", "Ripgrep", "--vault", str(vault.root), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["tool"] == "takeoff"
    assert doc["data"]["stem"] == "Ripgrep"
    assert len(done.stdout.rstrip("\n").encode()) <= 2048 - ENVELOPE


def test_takeoff_of_an_unknown_topic_offers_the_nearest_names(vault: Vault) -> None:
    article(vault, "Ripgrep")
    done = dreaming("query", "takeoff", "ripgrp", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('No article named "ripgrp".\nNearest names: Ripgrep (Ripgrep)')


def test_takeoff_of_an_overlong_topic_is_one_line_of_error(vault: Vault) -> None:
    done = dreaming("query", "takeoff", "t" * 5000, "--vault", str(vault.root))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "the topic" in done.stderr
    assert "5,000 bytes" in done.stderr
