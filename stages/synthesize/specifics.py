"""What a section carries beyond prose: the code its excerpt ended on, verbatim.

A small model paraphrases a command or a fix into something vaguer, or gets it
wrong; code can copy it exactly. The last complete fenced block the assistant
wrote in an excerpt is where that part of the conversation arrived (a later
block replaces an earlier attempt), so a section shows it under its paragraph,
with its language, cited by that paragraph's footnote.
"""

from __future__ import annotations

from dreaming.article.fences import fence_blocks, line_content, split_lines

MAX_LINES = 30
MAX_CHARS = 2000
_ROLES = ("user", "assistant", "tool", "system")
_CUT = "[...]"
"""chunk_text's mark where it cut a message: a block with it is not the whole code."""
_RESERVED_LABELS = frozenset({"info"})
"""Fence labels the article grammar gives a meaning (the infobox)."""


def final_code(excerpt: str) -> str | None:
    """The excerpt's last complete fenced block in an assistant turn, as a fence an
    article can hold, or None when there is none small enough to show whole."""
    lines = split_lines(excerpt)
    roles = _roles(lines)
    for block in reversed(fence_blocks(lines)):
        if not block.closed or roles[block.start] != "assistant":
            continue
        body = [line_content(x) for x in lines[block.start + 1 : block.end - 1]]
        code = "\n".join(body).strip("\n")
        if not code.strip() or len(body) > MAX_LINES or len(code) > MAX_CHARS or _CUT in code:
            continue
        label = "" if block.label.casefold() in _RESERVED_LABELS else block.label
        fence = "~~~~" if "```" in code or "~~~" in code else "```"
        return f"{fence}{label}\n{code}\n{fence}"
    return None


def _roles(lines: list[str]) -> list[str]:
    """Whose turn each line is in: chunk_text opens every message with `role: `."""
    out: list[str] = []
    role = ""
    for line in lines:
        head, colon, _ = line.partition(": ")
        if colon and head in _ROLES:
            role = head
        out.append(role)
    return out
