"""The infobox kinds Meta/Infobox_Schemas.md declares: what CREATE offers the model
and what `audit` checks an infobox against."""

from __future__ import annotations

from dreaming.article.fences import fence_blocks, line_content, split_lines

SCHEMAS_PAGE = "Infobox_Schemas"


def schema_kinds(text: str) -> tuple[str, ...]:
    """The kinds a schema page declares, in order: each ```schema block's `kind:` line."""
    lines = split_lines(text)
    found: list[str] = []
    for block in fence_blocks(lines):
        if block.label != "schema" or not block.closed:
            continue
        for line in lines[block.start + 1 : block.end - 1]:
            key, colon, value = line_content(line).partition(":")
            if colon and key.strip() == "kind" and value.strip():
                found.append(value.strip())
                break
    return tuple(dict.fromkeys(found))
