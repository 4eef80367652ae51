"""STATION.md heat as text: the stock rows rewritten, every other byte kept."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.resources import data_dir
from dreaming.station import card
from dreaming.station.card import CardProblem, Facts, clip, heat, working
from tests.support import best_seconds, draws

SEED = (data_dir("vault_seed") / "STATION.md").read_bytes()
FACTS = Facts(
    git="main@abc1234", articles=["Git", "Python_packaging"], notes=2, heated="2026-05-01 09:30"
)
LATER = Facts(
    git="main@abc1234", articles=["Git", "Python_packaging"], notes=2, heated="2026-05-02 10:00"
)


def card_text(
    *rows: str, before: str = "# Station\n\n", after: str = "\n## Durable\n\nkeep\n"
) -> bytes:
    table = "| Field | Value |\n| --- | --- |\n" + "".join(r + "\n" for r in rows)
    return (before + table + after).encode()


def rows_of(data: bytes) -> dict[str, str]:
    found = {}
    for line in data.decode().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if line.startswith("| ") and len(cells) == 2 and cells[0] not in ("Field", "---"):
            found[cells[0]] = cells[1]
    return found


def test_heat_sets_every_stock_field_of_the_seed_card() -> None:
    seed = SEED.replace(b"(none yet)", b"fix the git hooks")
    rows = rows_of(heat(seed, FACTS))
    assert rows == {
        "Intent": "fix the git hooks",
        "Git": "main@abc1234",
        # A path: from the top of the vault `[[Git]]` would open the shortest path of that
        # name, `Talk/Git.md` once the article has a Talk page.
        "Working": "[[articles/Git\\|Git]]",
        "Cascade": "record-map · notes 2 current",
        "Heated": "2026-05-01 09:30",
        "Notes": "[[NOTES]]",
    }


def test_the_old_seed_rows_branch_and_updated_are_renamed_in_place() -> None:
    old = card_text("| Intent | x |", "| Branch | — |", "| Updated | — |", "| Notes | [[NOTES]] |")
    hot = heat(old, FACTS).decode().splitlines()
    keys = [line.split("|")[1].strip() for line in hot if line.startswith("| ")][2:]
    assert keys == ["Intent", "Git", "Working", "Cascade", "Heated", "Notes"]


def test_missing_stock_rows_go_after_the_last_stock_row_before_them() -> None:
    hot = heat(card_text("| Mine | a |", "| Intent | x |", "| Other | b |"), FACTS).decode()
    keys = [line.split("|")[1].strip() for line in hot.splitlines() if line.startswith("| ")][2:]
    assert keys == ["Mine", "Intent", "Git", "Working", "Cascade", "Heated", "Other"]


def test_a_hot_card_is_returned_as_the_same_bytes_later() -> None:
    hot = heat(SEED, FACTS)
    assert heat(hot, LATER) is hot


def test_heated_changes_only_with_another_stock_field() -> None:
    hot = heat(SEED, FACTS)
    more = Facts(git=FACTS.git, articles=FACTS.articles, notes=3, heated=LATER.heated)
    assert rows_of(heat(hot, more))["Heated"] == LATER.heated
    assert rows_of(heat(hot, LATER))["Heated"] == FACTS.heated


def test_a_rewritten_row_keeps_its_crlf_line_ending() -> None:
    data = SEED.replace(b"\n", b"\r\n")
    hot = heat(data, FACTS)
    assert b"\n" not in hot.replace(b"\r\n", b"")
    assert b"| Git | main@abc1234 |\r\n" in hot


def test_a_card_ending_in_its_table_without_a_newline_gets_its_rows() -> None:
    data = b"| Field | Value |\n| --- | --- |\n| Intent | x |"
    assert heat(data, FACTS).decode().endswith("| Heated | 2026-05-01 09:30 |\n")


def test_frontmatter_is_kept_and_a_table_in_it_ignored() -> None:
    data = b"---\ntitle: station\n---\n" + SEED
    hot = heat(data, FACTS)
    assert hot.startswith(b"---\ntitle: station\n---\n# Station\n")


row_key = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="|\\"),
    min_size=1,
    max_size=12,
).filter(
    lambda k: (
        k.strip()
        and k.strip().casefold()
        not in {
            "intent",
            "git",
            "working",
            "cascade",
            "heated",
            "branch",
            "updated",
            "field",
            "---",
        }
        and not set(k.strip()) <= set("-:")
    )
)
row_value = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="|\\"),
    max_size=30,
)
free_text = st.text(st.characters(codec="utf-8", blacklist_characters="\0"), max_size=200)


@settings(max_examples=draws(60), deadline=None)
@given(
    extra=st.lists(st.tuples(row_key, row_value), max_size=5),
    where=st.lists(st.integers(min_value=0, max_value=6), max_size=5),
    durable=free_text,
    seed=free_text,
    intent=row_value,
)
def test_unknown_rows_durable_and_seed_stay_byte_identical(
    extra: list[tuple[str, str]], where: list[int], durable: str, seed: str, intent: str
) -> None:
    rows = ["| Intent | " + intent + " |", "| Branch | — |", "| Heated | — |"]
    unknown = [f"| {k} | {v} |" for k, v in extra]
    for n, line in enumerate(unknown):
        rows.insert(min(where[n] if n < len(where) else len(rows), len(rows)), line)
    tail = f"\n## Durable\n{durable}\n## Seed\n{seed}"
    data = card_text(*rows, after=tail)
    hot = heat(data, FACTS).decode()
    assert hot.endswith(tail)
    assert hot.startswith("# Station\n\n| Field | Value |\n| --- | --- |\n")
    kept = [line for line in hot[: len(hot) - len(tail)].splitlines() if line in unknown]
    assert kept == [line for line in rows if line in unknown]
    assert heat(hot.encode(), LATER) == hot.encode()


@settings(max_examples=draws(60), deadline=None)
@given(intent=row_value, names=st.lists(row_key, max_size=6), notes=st.integers(0, 10**6))
def test_heat_is_idempotent(intent: str, names: list[str], notes: int) -> None:
    facts = Facts(git="main@abc1234", articles=names, notes=notes, heated="2026-05-01 09:30")
    once = heat(card_text(f"| Intent | {intent} |"), facts)
    later = Facts(git=facts.git, articles=names, notes=notes, heated="2027-01-01 00:00")
    assert heat(once, later) == once


def test_a_long_intent_is_clipped_to_240_characters_with_an_ellipsis() -> None:
    long = "word " * 100
    value = rows_of(heat(card_text(f"| Intent | {long} |"), FACTS))["Intent"]
    assert len(value) <= 240
    assert value.endswith("…")
    assert long.startswith(value[:-1])


CLUSTERS = ["a", "é", "e\u0301", "👍🏽", "👩\u200d💻", "🇫🇷", "1\ufe0f\u20e3", "ก\u0e31", " "]


@settings(max_examples=draws(200), deadline=None)
@given(st.lists(st.sampled_from(CLUSTERS), min_size=1, max_size=200))
def test_clipping_never_splits_a_grapheme_cluster(parts: list[str]) -> None:
    text = "".join(parts)
    clipped = clip(text)
    assert len(clipped) <= 240
    if clipped == text:
        return
    head = clipped[:-1]
    prefixes = {"".join(parts[:n]).rstrip() for n in range(len(parts) + 1)}
    assert head in prefixes


def test_clipping_never_leaves_half_an_escaped_pipe() -> None:
    text = "x" * 238 + "\\|" + "y" * 10
    assert clip(text) == "x" * 238 + "…"


def test_working_names_at_most_four_real_articles_longest_first_in_order() -> None:
    articles = ["Git", "Git_hooks", "Python", "Rust", "Go", "C", "Zig"]
    intent = "Git hooks in python, then rust and go, c and git; gitlab later"
    assert working(intent, articles) == ["Git_hooks", "Python", "Rust", "Go"]


def test_working_matches_whole_words_only() -> None:
    assert working("gitlab and pythonic code", ["Git", "Python"]) == []
    assert working("C++ builds", ["C++"]) == ["C++"]


def test_working_is_a_dash_when_the_intent_names_no_article() -> None:
    assert rows_of(heat(card_text("| Intent | cook dinner |"), FACTS))["Working"] == "—"


def test_a_name_a_wikilink_cannot_carry_is_never_linked() -> None:
    assert working("a|b and x]]y", ["a|b", "x]]y"]) == []


def test_a_pipe_in_the_git_value_is_escaped() -> None:
    facts = Facts(git="we|ird@abc1234", articles=[], notes=0, heated="2026-05-01 09:30")
    assert rows_of(heat(SEED, facts).replace(b"\\|", b"/"))["Git"] == "we/ird@abc1234"


BROKEN = {
    "unclosed frontmatter": b"---\ntitle: x\n" + SEED,
    "frontmatter not YAML": b"---\ntitle: [x\n---\n" + SEED,
    "frontmatter a list": b"---\n- a\n---\n" + SEED,
    "no table": b"# Station\n\nnothing here\n",
    "table only under Durable": b"# Station\n\n## Durable\n\n| Field | Value |\n| --- | --- |\n",
    "not UTF-8": SEED.replace(b"(none yet)", b"caf\xe9"),
    "binary": SEED + b"\0\1\2",
    "over 64 KiB": SEED + b"x" * (64 * 1024),
    "a pipe breaking a row": SEED.replace(b"(none yet)", b"a | b"),
    "two Intent rows": SEED.replace(b"| Notes |", b"| Intent |"),
    "frontmatter nested in brackets": b"---\nx: " + b"[" * 3000 + b"\n---\n" + SEED,
    "frontmatter nested in dashes": b"---\nx:\n" + b"- " * 3000 + b"y\n---\n" + SEED,
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_card_that_cannot_be_heated_raises_one_line_naming_station(name: str) -> None:
    with pytest.raises(CardProblem) as caught:
        heat(BROKEN[name], FACTS)
    message = str(caught.value)
    assert message.startswith("STATION.md: ")
    assert "\n" not in message


@pytest.mark.parametrize("name", ["frontmatter nested in brackets", "frontmatter nested in dashes"])
def test_deeply_nested_frontmatter_is_a_problem_saying_flatten_it(name: str) -> None:
    with pytest.raises(CardProblem, match=r"^STATION.md: the frontmatter is nested more than "):
        heat(BROKEN[name], FACTS)


def test_frontmatter_nested_a_few_levels_is_kept() -> None:
    front = b"---\na:\n  b:\n    - [c, {d: [e]}]\n---\n"
    assert heat(front + SEED, FACTS).startswith(front)


def test_a_table_inside_a_code_fence_is_not_the_card() -> None:
    data = b"```\n| Field | Value |\n| --- | --- |\n```\n" + SEED
    hot = heat(data, FACTS)
    assert hot.startswith(b"```\n| Field | Value |\n| --- | --- |\n```\n# Station")
    assert b"| Git | main@abc1234 |" in hot


def test_a_one_megabyte_card_is_refused_fast() -> None:
    hostile = "| " * 500_000
    assert best_seconds(_heat_or_refuse, hostile) < 0.05
    with pytest.raises(CardProblem, match="over the 64 KiB"):
        heat(hostile.encode(), FACTS)


N = 256
FLOOR_S = 0.05
MAX_RATIO = 64.0

HOSTILE: dict[str, Callable[[int], str]] = {
    "many pipes in a row": lambda n: SEED.decode().replace(
        "| Notes | [[NOTES]] |", "| Notes | " + "\\|" * (5 * n) + " |"
    ),
    "many rows": lambda n: SEED.decode().replace("| Notes | [[NOTES]] |", "| k | v |\n" * n),
    "headers without a delimiter": lambda n: "|Field|Value|\n" * n,
    "unclosed frontmatter": lambda n: "---\n" + "a: b\n" * n,
    "unclosed fence": lambda n: "```\n" + "|Field|Value|\n" * n,
    "frontmatter nested in brackets": lambda n: "---\nx: " + "[" * (4 * n) + "\n---\n",
    "frontmatter nested in dashes": lambda n: "---\nx:\n" + "- " * (4 * n) + "y\n---\n",
    "long intent of marks": lambda n: SEED.decode().replace("(none yet)", "e" + "\u0301" * (5 * n)),
    "intent of flags": lambda n: SEED.decode().replace("(none yet)", "🇫" * (3 * n)),
}


def _heat_or_refuse(text: str) -> None:
    with contextlib.suppress(CardProblem):
        heat(text.encode(), FACTS)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_heat_runs_in_linear_time(name: str) -> None:
    make = HOSTILE[name]
    assert len(make(16 * N).encode()) <= card.MAX_CARD_BYTES, "keep the largest size a card"
    small = best_seconds(_heat_or_refuse, make(N))
    large = best_seconds(_heat_or_refuse, make(16 * N))
    assert large < FLOOR_S or large < MAX_RATIO * max(small, 1e-4)


def test_a_heated_card_never_grows_past_its_table_rows() -> None:
    data = SEED.replace(b"(none yet)", "ü".encode() * 5000)
    hot = heat(data, FACTS)
    assert len(hot) < len(SEED) + 1000
    assert unicodedata.is_normalized("NFC", hot.decode())
