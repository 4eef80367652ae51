"""Sources: the chunks a drafting call cites, with footnotes written by code."""

from __future__ import annotations

from dreaming.ledger import Ledger, chunks
from dreaming.ledger.chunks import Chunk
from dreaming.vault import Vault
from stages.jobs.ingest import ingest
from stages.synthesize.sources import load, numbered
from tests.support import drop, raw_note


def _one_chunk(vault: Vault, ledger: Ledger) -> str:
    drop(
        vault,
        "talk.md",
        raw_note(("user", "How do I fix a shelf?"), ("assistant", "Use a bracket.")),
    )
    ingest(vault, ledger)
    conv_id = ledger.db.execute("SELECT id FROM conversations").fetchone()[0]
    with ledger.transaction():
        chunks.replace(ledger, conv_id, [Chunk(conv_id, 0, 1, "fixing a shelf", "h", "v")], "now")
    return f"{conv_id}:0-1"


def test_a_source_cites_its_conversation_with_a_standard_footnote(
    vault: Vault, ledger: Ledger
) -> None:
    [source] = load(ledger, [_one_chunk(vault, ledger)])
    line = source.footnote(3).line()
    assert line.startswith(f"[^3]: `conv:{source.hash8}` (")
    assert line.endswith("— fixing a shelf")
    assert "Use a bracket." in source.text


def test_a_chunk_that_is_gone_is_left_out(vault: Vault, ledger: Ledger) -> None:
    kept = _one_chunk(vault, ledger)
    assert [s.chunk_id for s in load(ledger, ["nope:0-1", kept])] == [kept]


def test_sources_are_shown_numbered_from_the_first_free_number(
    vault: Vault, ledger: Ledger
) -> None:
    sources = load(ledger, [_one_chunk(vault, ledger)])
    assert numbered(sources, first=4).startswith("[4] (")
