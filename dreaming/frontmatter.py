"""YAML frontmatter read within bounds: the one door from a page's `---` block to YAML.

A person's page may hold anything between its `---` lines. PyYAML recurses once
per level of nesting, so a block nested a few thousand levels deep (`[[[[…`, or
`- - - …` on one line) raises RecursionError, and its scanner's work grows with
the square of flow nesting. `load` first counts open brackets, then walks the
scanner's tokens, stopping at the first level past `MAX_DEPTH`, and refuses the
block there: linear time, and no deep parse ever starts. Callers turn `TooDeep`
into their own one-line problem.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 16
"""Frontmatter is a few `key: value` lines; real ones nest two or three levels."""

_BRACKETS = 4 * MAX_DEPTH
"""Open brackets in a row refused before the scanner sees them: at each one it looks up to
1,024 characters ahead, past every bracket still open, so a long run costs it a quarter
of a second. Quotes are not considered, hence the margin over MAX_DEPTH."""

_OPEN = (
    yaml.BlockSequenceStartToken,
    yaml.BlockMappingStartToken,
    yaml.FlowSequenceStartToken,
    yaml.FlowMappingStartToken,
)
_CLOSE = (yaml.BlockEndToken, yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)


class TooDeep(Exception):
    """The block nests more than MAX_DEPTH levels."""


def load(block: str) -> Any:
    """`block` as YAML, every scalar a string (BaseLoader: YAML 1.1 would turn `14:05:30`
    into 50730). Raises yaml.YAMLError for what is not YAML, TooDeep for what nests too
    deeply."""
    if _brackets(block) > _BRACKETS:
        raise TooDeep
    depth = 0
    for token in yaml.scan(block, Loader=yaml.BaseLoader):
        if isinstance(token, _OPEN):
            depth += 1
            if depth > MAX_DEPTH:
                raise TooDeep
        elif isinstance(token, _CLOSE):
            depth -= 1
    try:
        return yaml.load(block, Loader=yaml.BaseLoader)
    except RecursionError:
        # Only a caller already deep in its own stack gets here.
        raise TooDeep from None


def _brackets(block: str) -> int:
    """The deepest run of open `[` and `{` (an upper bound of flow nesting), 0 when there
    are too few brackets to matter."""
    if block.count("[") + block.count("{") <= _BRACKETS:
        return 0
    depth = deepest = 0
    for ch in block:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest
