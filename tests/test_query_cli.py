"""`dreaming query <tool>`: the tools from a shell, plain and `--json`."""

from __future__ import annotations

import json
from pathlib import Path

from dreaming.ledger import Ledger
from dreaming.vault import Vault
from tests.query_support import article, conversation, examples
from tests.test_cli import dreaming


def test_json_carries_tool_text_data_next_and_bytes(vault: Vault) -> None:
    examples(vault)
    done = dreaming("query", "resolve", "claude code", "--vault", str(vault.root), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) == {"tool", "text", "data", "next", "bytes"}
    assert doc["tool"] == "resolve" and doc["data"]["stem"] == "Claude_Code"
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
    assert "Paragraph" in second.stdout and "Paragraph 0 " not in second.stdout


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
