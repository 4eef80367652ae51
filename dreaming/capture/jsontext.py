"""JSON edited as text: where an object's members and an array's items lie, and splices
that add one at the end or take one out, every other byte of the text as it was.

A person's settings file is theirs: reading it into Python and writing it back would
round `0.1000000000000000055511151231257827`, turn `1e400` into `Infinity` (not JSON),
collapse duplicate keys and reformat the lot. Here nothing is re-written but what is
added, and a removal takes out exactly what an addition put in, so an add then a remove
gives back the same bytes. The text is read whole with `loads` first (valid JSON, numbers
kept as their text), so the scanning below only ever meets well-formed JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_INDENT = re.compile(r"[ \t]*")


@dataclass(frozen=True, slots=True)
class Number:
    """A JSON number as its source text: compared as written, never rounded."""

    text: str


def _constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_float=Number, parse_int=Number, parse_constant=_constant)


def loads(text: str) -> Any:
    """`text` as Python values, numbers as `Number`. ValueError when it is not JSON
    (`NaN` and `Infinity` are not), RecursionError when nested too deeply to read."""
    return _DECODER.decode(text)


@dataclass(frozen=True, slots=True)
class Span:
    """A value's text: `text[start:end]`."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    at: int
    """Where the key's opening quote is."""
    colon: str
    """What stands between the key and its value (`: `, `:`)."""
    value: Span

    @property
    def span(self) -> Span:
        return Span(self.at, self.value.end)


def root(text: str) -> Span:
    start = _skip(text, 0)
    return Span(start, _end(text, start))


def members(text: str, obj: Span) -> list[Member]:
    found = []
    at = _skip(text, obj.start + 1)
    while text[at] == '"':
        key, after = _DECODER.raw_decode(text, at)
        start = _skip(text, _skip(text, after) + 1)
        end = _end(text, start)
        found.append(Member(key, at, text[after:start], Span(start, end)))
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def items(text: str, array: Span) -> list[Span]:
    found: list[Span] = []
    at = _skip(text, array.start + 1)
    while text[at] != "]":
        end = _end(text, at)
        found.append(Span(at, end))
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def value_of(text: str, span: Span) -> Any:
    return _DECODER.raw_decode(text, span.start)[0]


def remove(text: str, box: Span, children: list[Span], n: int) -> str:
    """`text` without child `n` of the object or array `box` (a member from its key), and
    the comma and white space that came with it: what `add_member` or `add_item` put in."""
    if n > 0:
        cut = Span(children[n - 1].end, children[n].end)
    elif len(children) > 1:
        cut = Span(children[0].start, children[1].start)
    else:
        cut = Span(box.start + 1, children[0].end)
    return text[: cut.start] + text[cut.end :]


def add_member(text: str, obj: Span, key: str, value: object) -> str:
    """`text` with `"key": value` last in the object `obj`, written as its siblings are."""
    found = members(text, obj)
    colon = found[-1].colon if found else ": "
    key_text = json.dumps(key, ensure_ascii=False)
    return _append(text, obj, [m.span for m in found], lambda dump: key_text + colon + dump(value))


def add_item(text: str, array: Span, value: object) -> str:
    """`text` with `value` last in the array `array`, written as its siblings are."""
    return _append(text, array, items(text, array), lambda dump: dump(value))


Dump = Callable[[object], str]


def _append(text: str, box: Span, children: list[Span], piece: Callable[[Dump], str]) -> str:
    if children:
        # The white space before a child: after the comma before the last one, or
        # after the opening bracket when there is one child.
        last = children[-1]
        before = _skip(text, children[-2].end) + 1 if len(children) > 1 else box.start + 1
        lead = text[before : last.start]
        at = last.end
        new = "," + lead + piece(_dumper(text, box, lead))
    else:
        inner = text[box.start + 1 : box.end - 1]
        newline = "\r\n" if "\r\n" in inner else "\n" if "\n" in inner else ""
        outer = _line_indent(text, box.start)
        lead = newline + outer + _unit(text) if newline else ""
        at = box.start + 1
        new = lead + piece(_dumper(text, box, lead))
    return text[:at] + new + text[at:]


def _dumper(text: str, box: Span, lead: str) -> Dump:
    """How a new child of `box` is written: on one line when its siblings share one,
    else indented below its opening line as they are, with their line ending."""
    if "\n" not in lead:
        return lambda value: json.dumps(value, ensure_ascii=False)
    newline = "\r\n" if "\r\n" in lead else "\n"
    indent = lead.rpartition("\n")[2]
    outer = _line_indent(text, box.start)
    unit = indent[len(outer) :] if indent.startswith(outer) and indent != outer else _unit(text)

    def dump(value: object) -> str:
        return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + indent)

    return dump


def _unit(text: str) -> str:
    """One level of the file's indent: its first indented line's, else two spaces."""
    found = re.search(r"\n([ \t]+)\S", text)
    return found.group(1) if found else "  "


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    found = _INDENT.match(text, start)
    return found.group() if found else ""


def _skip(text: str, at: int) -> int:
    """Past the white space at `at`."""
    found = _WS.match(text, at)
    return found.end() if found else at


def _end(text: str, at: int) -> int:
    return _DECODER.raw_decode(text, at)[1]
