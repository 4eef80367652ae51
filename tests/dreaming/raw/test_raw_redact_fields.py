"""Every field a reader lifts out of a transcript is redacted, not only the messages."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import pytest

from dreaming.raw import read_transcript
from dreaming.transcript import Conversation
from tests.planted_secrets import FRONTMATTER_ID, GHP
from tests.planted_transcripts import FORMATS


def _fields(conv: Conversation) -> str:
    return repr(astuple(conv))


def test_a_key_as_a_markdown_frontmatter_id_is_not_the_stored_id(tmp_path: Path) -> None:
    _, head, value = FRONTMATTER_ID
    note = head + "## user\n\nHello there.\n\n## assistant\n\nHi.\n"
    [conv] = read_transcript(tmp_path / "n.md", note.encode()).conversations
    assert value not in conv.source_id
    assert conv.source_id == "[REDACTED:github]"
    assert not conv.own_id  # so ingest names it by its file, as a source without ids


@pytest.mark.parametrize("source", list(FORMATS))
def test_no_field_of_any_format_keeps_a_planted_key(source: str, tmp_path: Path) -> None:
    name, data = FORMATS[source](GHP, "my key is " + GHP)
    result = read_transcript(tmp_path / name, data)
    assert result.source == source
    assert result.conversations
    for conv in result.conversations:
        assert GHP[4:] not in _fields(conv), _fields(conv)
