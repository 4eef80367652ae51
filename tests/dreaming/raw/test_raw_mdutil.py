"""The Markdown readers' line helpers go over a text's lines without holding them all and
agree with reading it as a list of lines: the lines, the fences and the turn bodies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreaming.article.fences import closes_fence, fence_run
from dreaming.raw import mdutil
from dreaming.raw.mdutil import Fences, build, lines_of, read_frontmatter
from dreaming.transcript import Message

PIECES = [
    "\n",
    "\r\n",
    " ",
    "  ",
    "x",
    "text",
    "```",
    "~~~",
    "````",
    "```py",
    "   ```",
    "\t",
    "\x1f",
]
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


@given(texts)
def test_lines_are_the_split_text(text: str) -> None:
    assert list(lines_of(text)) == text.split("\n")


def test_lines_cross_the_megabyte_they_are_split_by(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mdutil, "_CHUNK", 7)
    text = "alpha\nbeta gamma delta\n\nepsilon\n"
    assert list(lines_of(text)) == text.split("\n")


def test_a_body_padded_with_blank_lines_and_unicode_space_is_stripped() -> None:
    pad = " \n\t\u2028\n" * 50
    text = f"# User\n{pad}said\n\n  this{pad}\n# Assistant\nok"
    markers = [(0, "user", "", None), (len(text.split("\n")) - 2, "assistant", "", None)]
    found = [m.text for m in build(lines_of(text), markers)]  # type: ignore[arg-type]
    assert found == ["said\n\n  this", "ok"]


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
    chosen = sorted({p % len(lines) for p in picks})
    markers = [(i, "user", inline, None) for i in chosen]
    expected = []
    for k, i in enumerate(chosen):
        nxt = chosen[k + 1] if k + 1 < len(chosen) else len(lines)
        body = "\n".join([inline, *lines[i + 1 : nxt]]).strip()
        if body:
            expected.append(Message(role="user", text=body))
    assert build(lines_of(text), markers) == expected  # type: ignore[arg-type]


def test_a_frontmatter_never_closed_is_text_and_is_not_read_to_the_end() -> None:
    read = 0

    def lines() -> Iterator[str]:
        nonlocal read
        yield "---"
        for _ in range(1_000_000):
            read += 1
            yield "title: on and on"

    assert read_frontmatter(Path("chat.md"), lines()) == ({}, 0)
    assert read < 10_000


def test_a_frontmatter_closed_in_time_is_read() -> None:
    text = "---\ntitle: Debounce\n---\n# User\nhi"
    assert read_frontmatter(Path("chat.md"), lines_of(text)) == ({"title": "Debounce"}, 3)
