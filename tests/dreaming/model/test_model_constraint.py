"""Constraints: the language each one accepts, validation after the fact, and greedy
decoding held to the language whatever the model prefers (a toy vocabulary here; the
real tokenizers are in test_model_mlx.py and test_model_gguf.py)."""

from __future__ import annotations

import json
import string

import numpy as np
import pytest

from dreaming.model.constraint import Choice, Constraint, Json, Lines, TokenChooser
from tests.support import best_seconds

EOS = 0
ANCHOR = Json(
    {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "maxLength": 40},
            "aliases": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "kind": {"type": "string", "enum": ["person", "tool"]},
            "new": {"type": "boolean"},
            "count": {"type": "integer"},
        },
    }
)


def decode(constraint: Constraint, vocab: list[str], logits_at: object, steps: int = 2000) -> str:
    """Runs a chooser as an engine would: logits in, one token out, until EOS."""
    chooser = TokenChooser(constraint, lambda t: vocab[t].encode(), [EOS])
    for step in range(steps):
        token = chooser.choose(logits_at(step))  # type: ignore[operator]
        chooser.accept(token)
        if chooser.done:
            return chooser.text
    raise AssertionError(f"no EOS within {steps} tokens: {chooser.text!r}")


def preferring(vocab: list[str], *liked: str) -> object:
    """A model that ranks `liked` pieces first, in that order, at every step."""
    logits = np.zeros(len(vocab), dtype=np.float32)
    for rank, piece in enumerate(liked):
        logits[vocab.index(piece)] = 100.0 - rank
    return lambda _step: logits


CHARS = ["<eos>", *string.printable]


def test_choice_answers_an_option_when_the_model_prefers_prose() -> None:
    vocab = ["<eos>", "Well", ",", " I", " think", "y", "es", "yes", "n", "o", "Yes"]
    model = preferring(vocab, "Well", " I", "Yes", "n", "y", "es")
    assert decode(Choice(("yes", "no")), vocab, model) == "no"


def test_choice_stops_when_an_option_is_complete() -> None:
    vocab = ["<eos>", "yes", "yes!", "!", " and more"]
    model = preferring(vocab, "yes", " and more", "!")
    assert decode(Choice(("yes", "no")), vocab, model) == "yes"


def test_choice_takes_a_longer_option_the_model_prefers() -> None:
    vocab = ["<eos>", "no", "ne", "none"]
    model = preferring(vocab, "no", "ne")
    assert decode(Choice(("no", "none")), vocab, model) == "none"


@pytest.mark.parametrize("seed", range(12))
def test_json_from_any_logits_parses_and_fits_the_schema(seed: int) -> None:
    rng = np.random.default_rng(seed)
    text = decode(ANCHOR, CHARS, lambda _step: rng.normal(size=len(CHARS)).astype(np.float32))
    value = json.loads(text)
    assert list(value) == ["subject", "aliases", "kind", "new", "count"]
    assert ANCHOR.accept(text) == text


@pytest.mark.parametrize("seed", range(6))
def test_lines_from_any_logits_are_a_name_list(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lines = Lines(max_lines=5, max_chars=12)
    text = decode(lines, CHARS, lambda _step: rng.normal(size=len(CHARS)).astype(np.float32))
    names = text.rstrip("\n").split("\n")
    assert 1 <= len(names) <= 5
    assert all(0 < len(n) <= 12 and not n[0].isspace() for n in names)


def test_a_character_split_across_tokens_is_judged_whole() -> None:
    pieces = [b"", b"caf", b"\xc3", b"\xa9", b"e"]  # "é" as two byte-tokens
    chooser = TokenChooser(Choice(("café", "cafe!")), pieces.__getitem__, [EOS])
    logits = np.array([0, 0, 3, 2, 1], dtype=np.float32)  # bytes first, then "e"
    for token in (1, 2, 3):
        logits[token] = 9
        assert chooser.choose(logits) == token
        chooser.accept(token)
        logits[token] = 0
    assert chooser.choose(logits) == EOS
    assert chooser.text == "café"


def test_a_stray_byte_never_fits() -> None:
    pieces = [b"", b"yes", b"\xa9"]
    chooser = TokenChooser(Choice(("yes", "no")), pieces.__getitem__, [EOS])
    assert chooser.choose(np.array([0, 1, 5], dtype=np.float32)) == 1


def test_a_choice_says_how_sure_the_model_was_of_its_first_token() -> None:
    pieces = [b"", b"yes", b"no", b"maybe"]
    chooser = TokenChooser(Choice(("yes", "no")), pieces.__getitem__, [EOS])
    # "maybe" is likeliest but no option begins with it: only yes and no are weighed.
    logits = np.array([0, np.log(3), 0, 9], dtype=np.float32)
    assert chooser.choose(logits) == 1
    assert chooser.confidence == pytest.approx(0.75, abs=1e-6)


def test_a_choice_the_model_would_rather_not_make_weighs_the_two_likeliest_options() -> None:
    pieces = [b"", b"yes", b"no", *(b"Yes" for _ in range(70))]
    chooser = TokenChooser(Choice(("yes", "no")), pieces.__getitem__, [EOS])
    logits = np.array([0, np.log(3), 0, *(9 for _ in range(70))], dtype=np.float32)
    assert chooser.choose(logits) == 1
    assert chooser.confidence == pytest.approx(0.75, abs=1e-6)


def test_a_shape_that_is_no_choice_weighs_nothing() -> None:
    chooser = TokenChooser(Lines(), [b"", b"a"].__getitem__, [EOS])
    chooser.choose(np.array([0, 1], dtype=np.float32))
    assert chooser.confidence is None


def test_a_control_token_without_text_is_never_chosen() -> None:
    vocab = ["<eos>", "", "yes"]
    assert decode(Choice(("yes",)), vocab, preferring(vocab, "", "yes")) == "yes"


@pytest.mark.parametrize(
    ("constraint", "answer", "canonical"),
    [
        (Choice(("yes", "no")), " yes\n", "yes"),
        (Lines(), "Ada Lovelace\nRust\n", "Ada Lovelace\nRust"),
        (
            Json({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
            '{\n "ok": true\n}',
            '{\n "ok": true\n}',
        ),
    ],
)
def test_accept_returns_the_answer_without_edge_space(
    constraint: Constraint, answer: str, canonical: str
) -> None:
    assert constraint.accept(answer) == canonical


@pytest.mark.parametrize(
    ("constraint", "answer", "why"),
    [
        (Choice(("yes", "no")), "Yes", "not one of yes/no"),
        (Choice(("yes", "no")), "yes, because", "not one of yes/no"),
        (Lines(max_lines=2), "a\nb\nc", "not 1-2 lines"),
        (Lines(), "Ada\n\nRust", "not 1-50 lines"),
        (Lines(max_chars=3), "Lovelace", "at most 3 characters"),
        (ANCHOR, "Sure! {}", "not JSON"),
        (ANCHOR, '{"subject": "x"}', "keys"),
        (
            ANCHOR,
            '{"subject": "x", "aliases": [], "kind": "tool", "new": 1, "count": 2}',
            "new is not a boolean",
        ),
        (
            ANCHOR,
            '{"subject": "x", "aliases": [], "kind": "tool", "new": true, "count": true}',
            "count is not a integer",
        ),
        (
            ANCHOR,
            '{"subject": "x", "aliases": [], "kind": "city", "new": true, "count": 2}',
            "kind is not one of",
        ),
        (
            ANCHOR,
            '{"subject": "x", "aliases": ["a","b","c","d"], "kind": "tool", "new": true, '
            '"count": 2}',
            "aliases has too many items",
        ),
    ],
)
def test_accept_refuses_an_answer_outside_the_language(
    constraint: Constraint, answer: str, why: str
) -> None:
    with pytest.raises(ValueError, match=why):
        constraint.accept(answer)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": {"x": {"type": "number"}}},
        {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "integer"}}}},
    ],
)
def test_an_unsupported_schema_fails_where_it_is_written(schema: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="Json"):
        Json(schema)


@pytest.mark.parametrize("options", [(), ("yes", ""), (" yes", "no")])
def test_a_choice_needs_plain_options(options: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="Choice needs"):
        Choice(options)


@pytest.mark.parametrize(
    ("constraint", "unit"),
    [
        (Lines(), "a" * 64),
        (Lines(), "a\n"),
        (Choice(("yes", "no")), "y"),
        (ANCHOR, '{"subject": "' + "\\" * 8),
    ],
)
def test_validation_is_linear_in_the_answer(constraint: Constraint, unit: str) -> None:
    def refused(text: str) -> None:
        with pytest.raises(ValueError, match="not"):
            constraint.accept(text)

    def seconds(n: int) -> float:
        return best_seconds(refused, unit * n)

    seconds(1000)
    small, large = seconds(10_000), seconds(80_000)
    assert large < 0.5
    assert large < 8 * small * 4 + 0.01


def test_lines_judge_a_name_the_same_in_bytes_and_in_text() -> None:
    pieces = [b"", b"\xc3", b"\x89mile", b" Zola", b"\n", b"\xc2\xa0x"]
    chooser = TokenChooser(Lines(max_lines=2), pieces.__getitem__, [EOS])
    for token in (1, 2, 3, 4):
        logits = np.zeros(len(pieces), dtype=np.float32)
        logits[token] = 9
        assert chooser.choose(logits) == token
        chooser.accept(token)
    logits = np.array([0, 0, 0, 0, 0, 9], dtype=np.float32)  # a no-break space opens a line
    assert chooser.choose(logits) == 5
    chooser.accept(5)
    assert Lines(max_lines=2).accept(chooser.text) == chooser.text == "Émile Zola\n\xa0x"
