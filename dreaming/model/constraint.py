"""Shapes an answer must have, and the greedy decoding that keeps to them.

A stage whose answer has a shape (yes/no, one name a line, a small JSON object) passes
a constraint to `TextModel.complete`. In-process backends decode with `TokenChooser`:
greedy among the tokens that keep the answer a prefix of the constraint's language, so
a format failure cannot happen. Backends that cannot constrain decoding (a server that
ignores the hint, a replay) validate afterwards with `accept`, and the seam raises
ModelCallError, which the pipeline records as a NO-OP.

Each constraint is one bounded regular language: the regex is built from escaped
literals and bounded character classes only, so matching runs in time linear in the
answer, and every constrained answer ends within a known number of characters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

STRING_CHARS = 200
"""Default bound on a JSON string value's characters."""
LIST_ITEMS = 50
"""Default bound on a JSON list's items and on `Lines`' lines."""
_JSON_CHAR = r'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt])'
_GAP = "[ \\n]{0,12}"
"""Where JSON allows whitespace: models write `{"a": 1}` or indent it one key a line,
and held to compact JSON they drift off their habits (repeating list items)."""


@dataclass(frozen=True)
class Choice:
    """Exactly one of `options`, e.g. Choice(("yes", "no"))."""

    options: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.options or any(not o or o != o.strip() for o in self.options):
            raise ValueError(f"Choice needs non-empty options without edge spaces: {self}")

    @property
    def pattern(self) -> str:
        return "|".join(_re().escape(o) for o in self.options)

    def accept(self, text: str) -> str:
        answer = text.strip()
        if answer not in self.options:
            raise ValueError(f"not one of {'/'.join(self.options)}: {_sample(answer)!r}")
        return answer


@dataclass(frozen=True)
class Lines:
    """One item a line (a name list): 1..max_lines lines of 1..max_chars characters,
    each starting with a non-space; one final newline allowed."""

    max_lines: int = LIST_ITEMS
    max_chars: int = 120

    def __post_init__(self) -> None:
        if self.max_lines < 1 or self.max_chars < 1:
            raise ValueError(f"Lines needs positive bounds: {self}")

    @property
    def pattern(self) -> str:
        line = rf"[^ \t\r\n\f\v][^\n]{{0,{self.max_chars - 1}}}"
        return rf"{line}(?:\n{line}){{0,{self.max_lines - 1}}}\n?"

    def accept(self, text: str) -> str:
        answer = text.strip()
        if _re().fullmatch(self.pattern, answer) is None:
            raise ValueError(
                f"not 1-{self.max_lines} lines of at most {self.max_chars} characters: "
                f"{_sample(answer)!r}"
            )
        return answer


@dataclass(frozen=True, eq=False)
class Json:
    """A small JSON object described by a JSON-schema subset: `type: object` whose
    `properties` are strings (`maxLength`, `enum`), integers, booleans or arrays of
    strings (`maxItems`); every property is required and written in the given order."""

    schema: Mapping[str, Any]

    def __post_init__(self) -> None:
        self.pattern  # noqa: B018  (an unsupported schema fails where it is written)

    @property
    def pattern(self) -> str:
        if self.schema.get("type") != "object" or not self.schema.get("properties"):
            raise ValueError("Json needs a schema of type object with properties")
        fields = [
            rf'"{_re().escape(name)}"{_GAP}:{_GAP}{_value_pattern(name, spec)}'
            for name, spec in self.schema["properties"].items()
        ]
        return r"\{" + _GAP + f"{_GAP},{_GAP}".join(fields) + _GAP + r"\}"

    def accept(self, text: str) -> str:
        answer = text.strip()
        try:
            value = json.loads(answer)
        except ValueError:
            raise ValueError(f"not JSON: {_sample(answer)!r}") from None
        problem = _schema_problem(self.schema, value)
        if problem:
            raise ValueError(f"JSON does not fit the schema ({problem}): {_sample(answer)!r}")
        return answer


Constraint = Choice | Lines | Json


def _value_pattern(name: str, spec: Mapping[str, Any]) -> str:
    kind = spec.get("type")
    if kind == "string" and "enum" in spec:
        return "(?:" + "|".join(_re().escape(json.dumps(v)) for v in spec["enum"]) + ")"
    if kind == "string":
        return f'"{_JSON_CHAR}{{0,{int(spec.get("maxLength", STRING_CHARS))}}}"'
    if kind == "integer":
        return "-?(?:0|[1-9][0-9]{0,17})"
    if kind == "boolean":
        return "(?:true|false)"
    if kind == "array" and spec.get("items", {}).get("type") == "string":
        item = _value_pattern(name, spec["items"])
        more = int(spec.get("maxItems", LIST_ITEMS)) - 1
        return rf"\[{_GAP}(?:{item}(?:{_GAP},{_GAP}{item}){{0,{more}}})?{_GAP}\]"
    raise ValueError(f"Json property {name!r}: unsupported schema {dict(spec)}")


def _schema_problem(schema: Mapping[str, Any], value: Any) -> str | None:
    """Why a parsed answer breaks the schema subset `Json` supports, or None."""
    if not isinstance(value, dict):
        return "not an object"
    properties: Mapping[str, Any] = schema["properties"]
    if set(value) != set(properties):
        return f"keys {sorted(value)} instead of {list(properties)}"
    for name, spec in properties.items():
        item = value[name]
        kind = spec["type"]
        if kind == "array":
            if not isinstance(item, list) or not all(isinstance(v, str) for v in item):
                return f"{name} is not a list of strings"
            if len(item) > int(spec.get("maxItems", LIST_ITEMS)):
                return f"{name} has too many items"
            continue
        expected = {"string": str, "integer": int, "boolean": bool}[kind]
        if not isinstance(item, expected) or (kind == "integer" and isinstance(item, bool)):
            return f"{name} is not a {kind}"
        if isinstance(item, str) and "enum" in spec and item not in spec["enum"]:
            return f"{name} is not one of {spec['enum']}"
        if isinstance(item, str) and len(item) > int(spec.get("maxLength", STRING_CHARS)):
            return f"{name} is too long"
    return None


def _re() -> Any:
    """The `regex` module (partial matching, which `re` lacks), imported on first use:
    importing dreaming.model stays cheap for the CLI and the read path."""
    import regex  # type: ignore[import-untyped]

    return regex


def _sample(text: str) -> str:
    return " ".join(text.split())[:60]


WEIGHED = 64
"""Likeliest first tokens weighed for a choice's confidence: the options' first tokens
are among them whenever the model considers them at all."""


class TokenChooser:
    """Greedy decoding held to a constraint, one token at a time.

    The same token as masking every token that would leave the language and taking
    the argmax, but found lazily, in logit order: the model's own first choice usually
    fits, so a constrained call costs about what a free one does. EOS fits only where
    the answer is complete; the bounded language guarantees that it ends.

    `piece` gives a token's bytes (byte-level tokenizers split characters across
    tokens) and b"" for control tokens, which never fit: they could repeat forever.
    """

    def __init__(
        self, constraint: Constraint, piece: Callable[[int], bytes], eos: Collection[int]
    ) -> None:
        # Matched on bytes, so a token that ends inside a character is judged by the
        # bytes it adds; a bounded class then counts bytes, which only tightens it.
        self._pattern = _re().compile(constraint.pattern.encode("utf-8"))
        self._piece = piece
        self._eos = frozenset(eos)
        self._stop = min(self._eos)
        self._data = b""
        self.done = False
        self._weigh = isinstance(constraint, Choice)
        self.confidence: float | None = None
        """For a Choice: how sure the model was of the chosen first token (`_weighed`)."""

    @property
    def text(self) -> str:
        return self._data.decode("utf-8", "replace")

    def _fits(self, token: int) -> bool:
        if token in self._eos:
            state = _utf8_state(self._data)
            return state == "complete" and self._pattern.fullmatch(self._data) is not None
        piece = self._piece(token)
        if not piece:
            return False
        data = self._data + piece
        if _utf8_state(data) == "invalid":
            return False
        return self._pattern.fullmatch(data, partial=True) is not None

    def choose(self, logits: Any) -> int:
        """The token to emit next, given the model's logits (a numpy vector)."""
        if self._weigh and not self._data and self.confidence is None:
            first = self._weighed(logits)
            if first is not None:
                return first
        best = int(logits.argmax())
        if self._fits(best):
            return best
        for token in (-logits).argsort(kind="stable"):
            if self._fits(int(token)):
                return int(token)
        return self._stop  # nothing fits: the answer is validated, and fails, afterwards

    def _weighed(self, logits: Any) -> int | None:
        """The first token of a choice, and how sure the model was of it: its share among
        the option-starting tokens of the `WEIGHED` likeliest, or, where none is among
        them (the model would rather say something else), against the next one that
        fits. None where no token fits at all."""
        import numpy as np

        # The likeliest few by a linear partition, sorted as a full stable sort would
        # sort them (ties by token id): the whole vocabulary is sorted only when none fits.
        top = np.argpartition(-logits, WEIGHED)[:WEIGHED] if len(logits) > WEIGHED else None
        if top is not None:
            top = top[np.lexsort((top, -logits[top]))]
        else:
            top = np.argsort(-logits, kind="stable")
        fitting = [int(t) for t in top if self._fits(int(t))]
        if not fitting:
            order = np.argsort(-logits, kind="stable")[WEIGHED:]
            rest = (int(t) for t in order if self._fits(int(t)))
            fitting = [t for _, t in zip(range(2), rest, strict=False)]
        if not fitting:
            return None
        weights = np.exp(np.asarray(logits[fitting], dtype=np.float64) - float(logits[fitting[0]]))
        self.confidence = float(weights[0] / weights.sum())
        return fitting[0]

    def accept(self, token: int) -> None:
        """Record the emitted token (after `choose`, or what the engine sampled)."""
        if token in self._eos:
            self.done = True
        else:
            self._data += self._piece(token)


def _utf8_state(data: bytes) -> str:
    """complete, pending (a character still incomplete at the end) or invalid."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "pending" if e.reason == "unexpected end of data" else "invalid"
    return "complete"
