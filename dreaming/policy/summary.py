"""The `split` rule of Meta/Summary_Style.md: when a section has outgrown its article
(EDITORIAL then moves it into a child article).

    ```split
    min_words: 400
    share_percent: 50
    ```

A page from before the block was shipped, or a block a person broke, leaves the
defaults in force (the page check names what to fix).
"""

from __future__ import annotations

from dreaming.article.fences import fence_blocks, line_content, split_lines
from dreaming.article.split import SplitRule

SUMMARY_PAGE = "Summary_Style"
BLOCK = "split"
SETTINGS = ("min_words", "share_percent")


def split_rule(text: str) -> SplitRule:
    """The rule the page's ```split block sets; the defaults where it sets none."""
    lines = split_lines(text)
    found = dict(min_words=SplitRule.min_words, share_percent=int(SplitRule.share * 100))
    for block in fence_blocks(lines):
        if block.label != BLOCK or not block.closed:
            continue
        for line in lines[block.start + 1 : block.end - 1]:
            key, colon, value = (part.strip() for part in line_content(line).partition(":"))
            if colon and key in found and value.isdecimal() and 0 < int(value) <= 100_000:
                found[key] = int(value)
        break
    share = min(found["share_percent"], 100) / 100
    return SplitRule(found["min_words"], share)


def split_problems(content: list[str]) -> list[str]:
    """What is wrong with a ```split block's lines (for the page check)."""
    problems = []
    for line in (x for x in content if x and not x.startswith("#")):
        key, colon, value = (part.strip() for part in line.partition(":"))
        if not colon or key not in SETTINGS or not value.isdecimal():
            problems.append(
                f"the split line {line!r} is not `<name>: <whole number>` with a name among "
                f"{', '.join(SETTINGS)}; correct it"
            )
        elif key == "share_percent" and not 1 <= int(value) <= 100:
            problems.append(f"share_percent ({value}) must be 1 to 100; correct the split block")
    return problems
