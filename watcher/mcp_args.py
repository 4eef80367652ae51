"""A tool call's arguments checked before the SDK sees them, each fault said in one line.

The SDK validates arguments against each tool's signature too, but a fault there
comes back as a validation dump with a URL in it. So every argument is checked here
first, by its name: a text, a whole number in the range `RANGES` gives it, or a
flag; a missing one is named. One the tool does not take is left unread, as the
schema a client is shown allows (a `page` sent to every tool). What passes reaches
the SDK in the type its signature names (an integral float as an int).
The Reader still checks what no type says (a name too long to be one).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

from dreaming.query import QueryError
from dreaming.query.budget import RANGES, number, span

TEXTS = frozenset({"name", "stem", "heading", "kind", "category", "type", "text", "conv", "topic"})
FLAGS = frozenset({"full"})
_IGNORED = {"self", "ctx", "context"}


def checked(tool: str, fn: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments `fn` (the function of `tool`) takes, from `arguments`, the numbers
    made ints; QueryError with one line naming the first argument at fault."""
    params = {
        name: p for name, p in inspect.signature(fn).parameters.items() if name not in _IGNORED
    }
    out: dict[str, Any] = {}
    for name, param in params.items():
        if name not in arguments:
            if param.default is inspect.Parameter.empty:
                raise QueryError(f"{name} is missing: {tool} needs it")
            continue
        value = arguments[name]
        if value is None and param.default is None:
            out[name] = None
            continue
        out[name] = _one(name, value)
    return out


def _one(name: str, value: Any) -> Any:
    if name in RANGES:
        whole = _whole(value)
        if whole is None:
            raise QueryError(f"{span(name)}, not {_what(value)}")
        number(name, whole)
        return whole
    if name in FLAGS:
        if not isinstance(value, bool):
            raise QueryError(f"{name} must be true or false, not {_what(value)}")
        return value
    if name in TEXTS:
        if not isinstance(value, str):
            raise QueryError(f"{name} must be text, not {_what(value)}")
        return value
    raise QueryError(f"{name}: an argument no check knows; please report it")


def _whole(value: Any) -> int | None:
    """`value` as a whole number when JSON gave one (an int, or a float with no fraction
    as some encoders write one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _what(value: Any) -> str:
    """What kind of thing an argument was, in a message: never the value itself, which
    may be megabytes (or an integer too long to print)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, float):
        return repr(value)  # at most ~24 characters: inf, nan, 1.5, 1e+300
    if isinstance(value, int):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
