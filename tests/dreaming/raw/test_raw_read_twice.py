"""A big Markdown log is read from the file twice (turns, then bodies), never whole: it
reads the same as the whole text would, holds little more than its messages, and a file
changed between the two passes is left to be read again."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dreaming.raw as raw
from dreaming.errors import IncompleteTranscript
from dreaming.raw import read_transcript
from dreaming.raw.mdutil import Rereadable

PIECES = [
    "# User\n", "# Assistant\n", "## user\n", "## assistant\n", "**User:** hi\n",
    "**Assistant:** yes\n", "User: plain\n", "AI: answer\n", "> a prompt\n", "## Log\n",
    "```\n", "~~~\n", "text\n", "\n", "  \n", "---\n", "title: t\n", "\r\n", "caf\u00e9 ",
]  # fmt: skip
logs = st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join)


def _outcome(path: Path) -> object:
    try:
        result = read_transcript(path)
    except Exception as e:
        return type(e).__name__
    return result.source, result.conversations, result.sha256, result.size


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=logs)
def test_a_log_read_twice_from_the_file_reads_as_its_whole_text(
    log: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chat.md"
    path.write_text(log, encoding="utf-8")
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 1 << 40)
    whole = _outcome(path)
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 0)
    twice = _outcome(path)
    if isinstance(whole, str):
        assert isinstance(twice, str)  # refused both ways (the wording may differ)
    else:
        assert twice == whole


def _big_log(path: Path, megabytes: int) -> int:
    turn = "# User\n\n" + "Index the vault nightly. " * 40 + "\n\n# Assistant\n\n" + "Yes. " * 200
    with path.open("w", encoding="utf-8") as f:
        for _ in range(megabytes * 1024 * 1024 // len(turn) + 1):
            f.write(turn + "\n\n")
    return path.stat().st_size


@pytest.mark.slow
def test_a_big_log_is_read_holding_little_more_than_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    size = _big_log(path, 20)
    tracemalloc.start()
    try:
        result = read_transcript(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(result.conversations[0].messages) > 10_000
    # Read whole, the text and its messages were twice the size at least. The constant is
    # a redaction batch's case folding: CPython's lower() of a megabyte of non-ASCII text
    # takes 14 MB for a moment, whatever the file's size.
    assert peak < 1.2 * size + 16 * 2**20


def test_a_log_changed_between_the_passes_is_read_again_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chat.md"
    path.write_text("# User\n\nhello\n\n# Assistant\n\nhi\n", encoding="utf-8")
    reader = raw._TWICE_READERS["markdown"]

    def growing(p: Path, lines: Rereadable) -> object:
        for _ in lines():
            pass
        with path.open("a", encoding="utf-8") as f:
            f.write("\n# User\n\nmore\n")
        return reader(p, lines)

    monkeypatch.setitem(raw._TWICE_READERS, "markdown", growing)  # type: ignore[arg-type]
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 0)
    with pytest.raises(IncompleteTranscript, match="changed while it was read"):
        read_transcript(path)
