"""The reserved buckets of Meta/Buckets.md: names a story never takes.

    ```buckets
    _captured
    ```

`_captured` is always reserved, whatever the page says (the page check refuses a
page without it). BUCKET keeps every story's key off these names, so a chunk whose
label is nothing but punctuation ("__") cannot become a bucket a person reserved.
"""

from __future__ import annotations

from dreaming.article.fences import fence_blocks, line_content, split_lines

BUCKETS_PAGE = "Buckets"
BLOCK = "buckets"
CAPTURED = "_captured"


def reserved_buckets(text: str) -> frozenset[str]:
    """The names in the page's ```buckets block, `_captured` always among them."""
    lines = split_lines(text)
    found = {CAPTURED}
    for block in fence_blocks(lines):
        if block.label != BLOCK or not block.closed:
            continue
        for line in lines[block.start + 1 : block.end - 1]:
            name = line_content(line).strip()
            if name and not name.startswith("#"):
                found.add(name)
    return frozenset(found)


def story_key(key: str, reserved: frozenset[str]) -> str:
    """`key` for a story bucket: itself, unless it is a reserved name or looks like one
    (reserved names start with `_`, story keys never do)."""
    if key in reserved or key.startswith("_"):
        return f"story {key}"
    return key
