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


FIELD_TYPES = ("text", "list", "link")


def schema_fields(text: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each declared kind → its (field, type) lines in order, `kind` left out; a line whose
    type is not text, list or link is read as text (the page says what a type means, and
    a person's typo should not hide the field)."""
    lines = split_lines(text)
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for block in fence_blocks(lines):
        if block.label != "schema" or not block.closed:
            continue
        kind = ""
        fields: list[tuple[str, str]] = []
        for line in lines[block.start + 1 : block.end - 1]:
            key, colon, value = line_content(line).partition(":")
            key, value = key.strip(), value.strip().casefold()
            if not colon or not key:
                continue
            if key == "kind":
                kind = kind or value
            else:
                fields.append((key, value if value in FIELD_TYPES else "text"))
        if kind and kind not in found:
            found[kind] = tuple(dict.fromkeys(fields))
    return found
