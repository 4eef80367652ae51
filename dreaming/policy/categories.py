"""The categories Meta/Category_Definitions.md defines: what EDITORIAL may file an
article under, each with what belongs in it."""

from __future__ import annotations

from dreaming.article.fences import fence_blocks, line_content, split_lines

CATEGORIES_PAGE = "Category_Definitions"
MAX_CATEGORIES = 30
"""Each is one question an article: past this many the page is a taxonomy, not a
short list, and a night would spend itself on it."""


def defined_categories(text: str) -> list[tuple[str, str]]:
    """(name, what belongs in it) for each `Name: what` line of the page's closed
    ```categories block, in order, the first of a repeated name kept; comment lines and
    the page's schematic example (`<…>` slots) are not categories."""
    lines = split_lines(text)
    found: dict[str, tuple[str, str]] = {}
    for block in fence_blocks(lines):
        if block.label != "categories" or not block.closed:
            continue
        for raw in lines[block.start + 1 : block.end - 1]:
            line = line_content(raw).strip()
            name, colon, what = (part.strip() for part in line.partition(":"))
            if not colon or not name or not what or line.startswith("#") or "<" in name:
                continue
            found.setdefault(name.casefold(), (name, what))
    return list(found.values())[:MAX_CATEGORIES]
