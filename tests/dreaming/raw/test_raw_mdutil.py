"""The Markdown readers' line helpers read a text in place and agree with reading it as a
list of lines: the offsets, the fences and the turn bodies are the same."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreaming.article.fences import closes_fence, fence_run
from dreaming.raw import mdutil
from dreaming.raw.mdutil import Fences, build, lines_of
from dreaming.transcript import Message

PIECES = ["\n", "\r\n", " ", "  ", "x", "text", "```", "~~~", "````", "```py", "   ```", "\t"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _fenced_lines(lines: list[str]) -> list[bool]:
    """The rule, read plainly: a fence line with a closer of its char, at least as long,
    somewhere below masks up to the first such closer; one with none is text."""
    ended = [line + "\n" for line in lines]
    mask = [False] * len(lines)
    i = 0
    while i < len(lines):
        run = fence_run(ended[i])
        closer = None
        if run is not None:
            closer = next(
                (k for k in range(i + 1, len(lines)) if closes_fence(ended[k], run)), None
            )
        if closer is None:
            i += 1
            continue
        mask[i : closer + 1] = [True] * (closer + 1 - i)
        i = closer + 1
    return mask


@given(texts, st.integers(0, 5))
def test_lines_are_the_split_text_with_their_offsets(text: str, start: int) -> None:
    start = min(start, len(text))
    found = list(lines_of(text, start))
    assert [line for _, line in found] == text[start:].split("\n")
    assert all(text.startswith(line, at) for at, line in found)


def test_lines_cross_the_megabyte_they_are_split_by(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mdutil, "_CHUNK", 7)
    text = "alpha\nbeta gamma delta\n\nepsilon\n"
    assert [line for _, line in lines_of(text)] == text.split("\n")


def test_a_body_padded_with_more_whitespace_than_one_step_is_stripped_whole() -> None:
    pad = " \n\t" * 5000
    text = f"# User\n{pad}said this{pad}\n# Assistant\nok"
    markers = [
        (0, 7, "user", "", None),
        (text.index("# Assistant"), len(text), "assistant", "", None),
    ]
    assert [m.text for m in build(text, markers)] == ["said this"]  # type: ignore[arg-type]


@given(texts)
def test_fences_mask_the_lines_the_rule_says(text: str) -> None:
    lines = text.split("\n")
    fences = Fences()
    for index, line in enumerate(lines):
        fences.see(index, line)
    fences.close()
    assert [fences.masked(i) for i in range(len(lines))] == _fenced_lines(lines)


@given(texts, st.lists(st.integers(0, 40), max_size=6), st.sampled_from(["", " hi ", "  "]))
def test_a_turn_body_is_its_lines_joined_and_stripped(
    text: str, picks: list[int], inline: str
) -> None:
    lines = text.split("\n")
    starts = [at for at, _ in lines_of(text)]
    chosen = sorted({p % len(lines) for p in picks})
    markers = [(starts[i], starts[i] + len(lines[i]) + 1, "user", inline, None) for i in chosen]
    expected = []
    for k, i in enumerate(chosen):
        nxt = chosen[k + 1] if k + 1 < len(chosen) else len(lines)
        body = "\n".join([inline, *lines[i + 1 : nxt]]).strip()
        if body:
            expected.append(Message(role="user", text=body))
    assert build(text, markers) == expected  # type: ignore[arg-type]
