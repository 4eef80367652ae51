"""A big Markdown log (plain, aider or Cortexes) is read from the file twice (turns, then
bodies), never whole: it reads the same as the whole text would, holds little more than
its messages, and a file changed between the two passes is left to be read again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dreaming.raw as raw
from dreaming.errors import IncompleteTranscript
from dreaming.raw import read_transcript
from dreaming.raw.mdutil import Rereadable
from tests.support import read_peak

MARKDOWN = [
    "# User\n", "# Assistant\n", "## user\n", "## assistant\n", "**User:** hi\n",
    "**Assistant:** yes\n", "User: plain\n", "AI: answer\n", "> a prompt\n", "## Log\n",
    "```\n", "~~~\n", "text\n", "\n", "  \n", "---\n", "title: t\n", "\r\n", "caf\u00e9 ",
]  # fmt: skip
AIDER = [
    "# aider chat started at 2025-03-14 09:12:45\n", "#### Add a setting  \n", "#### \n",
    "####\n", "####   \n", "#### /ask why?  \n", "#### /add notes.md  \n", "#### Notes\n",
    "#### <blank>  \n", "> Tokens: 2k\n", "loop.py\n", "<<<<<<< SEARCH\n", "```python\n",
    "```\n", "~~~\n", "text\n", "\n", "\n\n\n", "\r\n", "caf\u00e9 ",
]  # fmt: skip
CORTEXES = [
    "<!-- audit: capture v0.3 -->\n", "<!-- distilled: 2025-03-15 \u2192 a.md -->\n",
    "<!-- distilled: -->\n", "---\n", "type: session\n", "repo: notes\n", "### User\n",
    "### Claude\n", "### assistant:\n", "> [tool] **Bash**: ls\n", "> quoted\n",
    "```output\n", "  ~~~ output\n", "```\n", "~~~\n", "text\n", "\n", " \n", "\r\n",
    "caf\u00e9 ",
]  # fmt: skip
# Each format's pieces under a name that the format's reader would be given.
NAMED = {"chat.md": MARKDOWN, "x.aider.chat.history.md": AIDER, "251201_session_notes.md": CORTEXES}
logs = st.sampled_from(list(NAMED)).flatmap(
    lambda name: st.tuples(
        st.just(name), st.lists(st.sampled_from(NAMED[name]), min_size=1, max_size=30).map("".join)
    )
)


def _outcome(path: Path) -> object:
    try:
        result = read_transcript(path)
    except Exception as e:
        return type(e).__name__
    return result.source, result.conversations, result.sha256, result.size


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(named=logs)
def test_a_log_read_twice_from_the_file_reads_as_its_whole_text(
    named: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, log = named
    path = tmp_path / "2025" / "03" / "14" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log, encoding="utf-8")
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 1 << 40)
    whole = _outcome(path)
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 0)
    twice = _outcome(path)
    if isinstance(whole, str):
        assert isinstance(twice, str)  # refused both ways (the wording may differ)
    else:
        assert twice == whole


PROMPT = "Index the vault nightly. " * 40
REPLY = "Yes. " * 200
# A big log of each reader: its file name, what it starts with, one turn.
BIG = {
    "markdown": ("chat.md", "", "# User\n\n" + PROMPT + "\n\n# Assistant\n\n" + REPLY + "\n\n"),
    "aider": (
        "x.aider.chat.history.md",
        "# aider chat started at 2025-03-14 09:12:45\n\n",
        f"#### {PROMPT}  \n\n{REPLY}\n\nloop.py\n```python\n<<<<<<< SEARCH\n```\n\n",
    ),
    "cortexes": (
        "251201_session_notes.md",
        "<!-- audit: capture v0.3 -->\n---\ntype: session\nrepo: notes\n---\n",
        f"### User\n{PROMPT}\n### Claude\n{REPLY}\n> [tool] **Bash**: ls\n"
        "```output\nREADME.md\n```\n",
    ),
}


def _big_log(path: Path, megabytes: int, head: str, turn: str) -> int:
    with path.open("w", encoding="utf-8") as f:
        f.write(head)
        for _ in range(megabytes * 1024 * 1024 // len(turn) + 1):
            f.write(turn)
    return path.stat().st_size


@pytest.mark.slow
@pytest.mark.parametrize("source", list(BIG))
def test_a_big_log_is_read_holding_little_more_than_its_messages(
    source: str, tmp_path: Path
) -> None:
    name, head, turn = BIG[source]
    path = tmp_path / name
    size = _big_log(path, 20, head, turn)
    result, peak = read_peak(path)
    assert result.source == source
    messages = result.conversations[0].messages
    assert len(messages) > 10_000
    assert size > raw._READ_TWICE_ABOVE
    # Read whole, the text was held beside its messages. The messages, not the file, are
    # the measure: a tool call's dash makes a message two bytes a character. The constant
    # is a redaction batch's case folding: CPython's lower() of a megabyte of non-ASCII
    # text takes 14 MB for a moment, whatever the file's size.
    held = sum(sys.getsizeof(m.text) for m in messages)
    assert peak < 1.2 * held + 16 * 2**20


SMALL = {
    "markdown": ("chat.md", "# User\n\nhello\n\n# Assistant\n\nhi\n"),
    "aider": ("x.aider.chat.history.md", "#### hello  \n\nhi\n"),
    "cortexes": ("251201_session_notes.md", "### User\nhello\n### Claude\nhi\n"),
}


@pytest.mark.parametrize("source", list(SMALL))
def test_a_log_changed_between_the_passes_is_read_again_later(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, text = SMALL[source]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    reader = raw._TWICE_READERS[source]

    def growing(p: Path, lines: Rereadable) -> object:
        for _ in lines():
            pass
        with path.open("a", encoding="utf-8") as f:
            f.write("\nmore\n")
        return reader(p, lines)

    monkeypatch.setitem(raw._TWICE_READERS, source, growing)
    monkeypatch.setattr(raw, "_READ_TWICE_ABOVE", 0)
    with pytest.raises(IncompleteTranscript, match="changed while it was read"):
        read_transcript(path)
