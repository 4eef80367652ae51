"""Control characters leave a transcript at ingest: every reader of the ledger gets clean text.

A terminal's colour codes, a stray NUL, C1 controls from a mis-decoded file and
bidi overrides that reorder what a reader sees are no part of what was said.
Tab and line breaks are text and stay.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.raw.controls import strip_controls
from tests.support import best_seconds, draws

UNWANTED = {
    *map(chr, range(0x00, 0x20)),
    "\x7f",
    *map(chr, range(0x80, 0xA0)),
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
} - {"\t", "\n", "\r"}


BREAKS = str.maketrans("", "", "\r\n")


def clean(text: str) -> str:
    return strip_controls(text)[0]


@pytest.mark.parametrize(
    ("dirty", "clean_text", "removed"),
    [
        ("\x1b[1;31mError\x1b[0m: disk full", "Error: disk full", 2),
        ("\x1b]8;;https://example.org\x1b\\a link\x1b]8;;\x1b\\", "a link", 2),
        ("\x1b]0;window title\x07prompt $", "prompt $", 1),
        ("caf\x00e\x08", "cafe", 2),
        ("total\x9b2Jcleared \x85next", "totalcleared next", 2),
        ("admin\u202e\u2066txt.exe\u2069", "admintxt.exe", 3),
        ("tab\tstays\nand lines\r\nstay", "tab\tstays\nand lines\r\nstay", 0),
        ("10%\r20%\r100%", "10%\n20%\n100%", 2),
        ("a lone \x1b at the end \x1b", "a lone  at the end ", 2),
        ("plain text, unchanged", "plain text, unchanged", 0),
    ],
)
def test_controls_are_removed_and_counted(dirty: str, clean_text: str, removed: int) -> None:
    assert strip_controls(dirty) == (clean_text, removed)


def subsequence(small: str, large: str) -> bool:
    rest = iter(large)
    return all(c in rest for c in small)


@settings(max_examples=draws(500), deadline=None)
@given(
    st.text(alphabet=st.one_of(st.sampled_from(sorted(UNWANTED | {"\r", "["})), st.characters()))
)
def test_no_control_survives_and_nothing_else_is_added_or_reordered(text: str) -> None:
    out, removed = strip_controls(text)
    assert not UNWANTED & set(out)
    assert "\r" not in out.replace("\r\n", "")
    assert (out == text) == (removed == 0)
    assert strip_controls(out) == (out, 0)
    # Line breaks aside (a lone CR becomes LF), what is left was there, in that order.
    assert subsequence(out.translate(BREAKS), text.translate(BREAKS))


@settings(max_examples=draws(200), deadline=None)
@given(st.text())
def test_text_without_controls_is_returned_as_it_is(text: str) -> None:
    text = "".join(c for c in text if c not in UNWANTED and c != "\r")
    assert strip_controls(text) == (text, 0)


def test_unicode_format_characters_other_than_bidi_overrides_stay() -> None:
    joined = "👩\u200d💻 co\u00adoperate \u200bzero-width"
    assert strip_controls(joined) == (joined, 0)
    assert all(unicodedata.category(c) != "Cc" for c in joined)


@pytest.mark.slow  # timing
@pytest.mark.parametrize(
    "unit",
    ["\x1b[", "\x1b]", "\x1b]0;" + "x" * 50, "\x1b[" + "1;" * 50, "\x9b", "\u202e", "\r", "a"],
)
def test_cleaning_takes_time_in_proportion_to_the_text(unit: str) -> None:
    small = (unit * (100_000 // len(unit)))[:100_000]
    large = (unit * (400_000 // len(unit)))[:400_000]
    ratio = best_seconds(clean, large) / max(best_seconds(clean, small), 1e-4)
    assert ratio < 6
