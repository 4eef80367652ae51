"""YAML frontmatter read within bounds: the one door from a page's `---` block to YAML.

A person's page may hold anything between its `---` lines. PyYAML recurses once
per level of nesting, so a block nested a few thousand levels deep (`[[[[…`, or
`- - - …` on one line) raises RecursionError, and its scanner's work grows with
the square of flow nesting. `load` first walks the scanner's tokens, stopping at
the first level past `MAX_DEPTH`, and refuses the block there: linear time, and
no deep parse ever starts. Callers turn `TooDeep` into their own one-line problem.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 16
"""Frontmatter is a few `key: value` lines; real ones nest two or three levels."""

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
