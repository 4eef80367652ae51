"""An article's category lines: `[[Category:Name]]`, added at its end. Pure functions.

Categories stand after one blank line at the end of the last section (References in
a pipeline article), one a line (docs/article-grammar.md). Only added: a category a
person wrote, anywhere in the article, stays, and is not written twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from dreaming.article.document import LEAD, parse
from dreaming.article.fences import detect_eol, line_content, split_lines
from dreaming.article.queries import categories
from dreaming.article.titles import heading_key


def with_categories(text: str, names: Sequence[str]) -> tuple[str, str]:
    """`text` with a `[[Category:Name]]` line for each of `names` it is not in yet, and
    the heading of the section they land in (LEAD when the article has none)."""
    article = parse(text)
    have = {heading_key(c) for c in categories(article)}
    # One line a category, however its names are spelt (`Tools`, `tools`, `Café` in NFD).
    unique: dict[str, str] = {}
    for n in names:
        unique.setdefault(heading_key(n), n)
    missing = [n for k, n in unique.items() if k not in have]
    where = article.sections[-1].heading if article.sections else LEAD
    if not missing:
        return text, where
    eol = detect_eol(text)
    lines = eol.join(f"[[Category:{n}]]" for n in missing)
    body = text.rstrip("\r\n")
    last = line_content(split_lines(body)[-1]).strip() if body else ""
    gap = eol if last.startswith("[[Category:") else eol * 2
    out = f"{body}{gap}{lines}{eol}"
    # A fence left open would swallow the lines: no category until NORMALIZE closes it.
    filed = {heading_key(c) for c in categories(parse(out))}
    if not filed >= {heading_key(n) for n in missing}:
        return text, where
    return out, where
