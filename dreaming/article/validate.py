"""Grammar checks: everything that breaks docs/article-grammar.md, one readable line each.

`problems` reads any parsed article (it never raises) and names each
violation with the fix. The write gate and normalisation decide what to do
about them; this module only reports.
"""

from __future__ import annotations

import datetime
import re

from dreaming.article.document import REFERENCES, Article, infobox_malformed, render, tail_rank
from dreaming.article.fences import (
    dangling_fence,
    fence_blocks,
    line_content,
    mask_code,
    split_lines,
)
from dreaming.article.layout import split_frontmatter
from dreaming.article.markup import (
    SEE_ALSO_ITEM,
    STUB,
    STUB_RE,
    definitions,
    is_category_line,
    parse_footnote,
)
from dreaming.article.queries import (
    THIN_WORDS,
    footnote_balance,
    is_redirect,
    is_stub,
    prose_words,
)
from dreaming.article.titles import heading_key, nfc, title_for_stem

KINDS = ("thing", "person", "domain", "project", "standard")
"""The closed set of infobox `kind:` values."""

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


def _section_line_problems(article: Article) -> list[str]:
    out = []
    for s in article.sections:
        rank = tail_rank(s)
        if rank not in (1, 3):
            continue
        lines = zip(split_lines(s.body), split_lines(mask_code(s.body)), strict=True)
        for raw_line, masked in lines:
            line = line_content(raw_line).strip()
            # Code and comments (blank in the mask) are not list items.
            if not masked.strip() or is_category_line(line):
                continue
            if rank == 1 and not SEE_ALSO_ITEM.match(line):
                out.append(f"See also line {line!r} is not '- [[Title]]'")
            if rank == 3:
                d = definitions(line)
                if not d or parse_footnote(d[0]) is None:
                    out.append(
                        f"References line {line[:60]!r} is not "
                        "'[^N]: `conv:HASH` (YYYY-MM-DD, source) — desc'"
                    )
                elif (f := parse_footnote(d[0])) and not _valid_date(f.date):
                    out.append(f"footnote [^{f.number}] has an impossible date {f.date}")
    return out


def _valid_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _footnote_problems(article: Article) -> list[str]:
    balance = footnote_balance(article)
    refs = article.section(REFERENCES)
    outside = [article.lead, *(s.body for s in article.sections if s is not refs)]
    out = [
        f"footnote [^{d.label}] is defined outside ## References"
        for block in outside
        for d in definitions(block)
    ]
    out += [f"footnote [^{lb}] is defined {n} times" for lb, n in balance.repeated.items()]
    out += [f"footnote [^{lb}] is cited but never defined" for lb in balance.undefined]
    uncited = dict.fromkeys(d.label for d in balance.orphans)
    out += [f"footnote [^{lb}] is defined but never cited" for lb in uncited]
    if list(balance.cited) != [str(i) for i in range(1, len(balance.cited) + 1)]:
        out.append("footnotes are not numbered 1..n in order of first citation")
    if (balance.cited or balance.defined) and refs is None:
        out.append("the article cites sources but has no '## References' section")
    return out


def problems(article: Article, *, stem: str | None = None) -> list[str]:
    """Everything that breaks the grammar, one readable line each; [] when well-formed."""
    a = article
    out = []
    if a.title is None:
        out.append("no '# Title' line: the article needs an H1")
    elif stem is not None and nfc(a.title) != title_for_stem(stem):
        want = title_for_stem(stem)
        out.append(f"H1 {a.title!r} does not match the file name: expected '# {want}'")
    if a.preamble.strip():
        out.append("text before the H1: move it below the title")
    out += [f"infobox line {line!r} is not 'key: value'" for line in infobox_malformed(a)]
    if any(b.label.casefold() == "info" for b in fence_blocks(split_lines(a.lead))):
        out.append(
            "an ```info block stands below other lead text (e.g. a 'categories:' line), "
            "so its fields are not read: move it directly under the title"
        )
    keys = [k for k, _ in a.infobox or ()]
    out += [f"infobox key {k!r} is not snake_case" for k in keys if not _SNAKE.match(k)]
    dup = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
    out += [f"infobox key {k!r} appears more than once" for k in dup]
    out += [
        f"infobox kind {v!r} is not one of {', '.join(KINDS)}"
        for k, v in a.infobox or ()
        if k == "kind" and v not in KINDS
    ]
    redirect = is_redirect(a)
    if not redirect and not STUB_RE.sub("", a.lead).strip():
        out.append("no lead paragraph under the title")
    seen: dict[str, int] = {}
    for s in a.sections:
        seen[heading_key(s.heading)] = seen.get(heading_key(s.heading), 0) + 1
        if s.level == 1:
            out.append(f"second H1 {s.heading!r}: make it '## {s.heading}'")
        if not s.heading.strip():
            out.append("a section heading is empty")
    out += [f"heading {h!r} appears {n} times" for h, n in seen.items() if n > 1 and h]
    ranks = [tail_rank(s) for s in a.sections]
    tail = ranks[next((i for i, r in enumerate(ranks) if r), len(ranks)) :]
    if tail != sorted(tail) or 0 in tail:
        out.append("'## See also', '## Notes', '## References' must end the article, in that order")
    out += _section_line_problems(a)
    out += _footnote_problems(a)
    if dangling_fence(split_frontmatter(render(a))[1]) is not None:
        out.append("a code fence is never closed")
    if not redirect:
        n = prose_words(a)
        if n < THIN_WORDS and not is_stub(a):
            out.append(f"thin article ({n} words) without {STUB}")
        if n >= THIN_WORDS and is_stub(a):
            out.append(f"{STUB} on an article of {n} words (not thin)")
    return out
