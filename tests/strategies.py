"""Hypothesis strategies: well-formed articles, their byte-level variants, near-markdown noise.

A generated article is well-formed by construction (every definition cited,
unique headings, tails in order), except that its footnotes may be numbered
out of citation order, which normalize repairs. Its text may vary in ways the
grammar allows (CRLF, trailing whitespace, blank-line runs, a missing final
newline), and its code fences carry lines that look like structure
(`# heading`, `[^1]: ...`, a resolvable link) but are code.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from dreaming.article.document import parse, render, tail_rank
from dreaming.article.markup import Footnote, footnote_def_line
from dreaming.article.titles import stem_for_title, title_for_stem
from dreaming.article.validate import KINDS
from dreaming.errors import UnsafePathError

BOM = "\ufeff"
WORDS = ("alpha", "beta", "gamma", "delta", "river", "stone", "über", "café", "東京", "naïve")
CODE_LINES = (
    "# not a heading",
    "## Fake section",
    "[^1]: `conv:0123abcd` (2020-01-01, fake) — inside code",
    "[^9]",
    "[[Not a link]]",
    "{{stub}}",
    "*Redirects to [[Nowhere]]*",
    "x = 1  # comment",
    "",
)


@dataclass(frozen=True)
class GenArticle:
    text: str
    title: str
    stem: str
    known_stems: tuple[str, ...]
    hashes: tuple[str, ...]
    """conv hashes the article cites."""
    headings: tuple[str, ...]
    """Body section headings, in order (unique)."""


def _safe_title(t: str) -> bool:
    if t != unicodedata.normalize("NFC", t):
        return False
    try:
        return title_for_stem(stem_for_title(t)) == t
    except UnsafePathError:
        return False


word = st.one_of(
    st.sampled_from(WORDS),
    st.text(
        alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Lo", "Nd")),
        min_size=1,
        max_size=7,
    ),
)
titles = st.lists(word, min_size=1, max_size=4).map(" ".join).filter(_safe_title)
hashes = st.text(alphabet="0123456789abcdef", min_size=8, max_size=8)
dates = st.dates().map(lambda d: d.isoformat()).filter(lambda s: len(s) == 10)
sources = st.sampled_from(("claude", "chatgpt", "pi", "codex"))


@st.composite
def fences(draw: st.DrawFn, pool: list[str]) -> str:
    """A fenced block whose lines look like structure; sometimes a shorter inner fence."""
    char = draw(st.sampled_from("`~"))
    run = char * draw(st.integers(3, 5))
    # Lines normalize would rewrite if they were prose: a resolvable link, live labels.
    live = [f"see [[{p.lower()}]]" for p in pool] + ["x[^2] y[^1]", "[^2]: `conv:0123abcd`"]
    lines = draw(st.lists(st.sampled_from([*CODE_LINES, *live]), max_size=4))
    if len(run) > 3 and draw(st.booleans()):
        lines.append(char * 3)  # too short to close the outer fence
    label = draw(st.sampled_from(("", "python", "text")))
    return "\n".join([run + label, *lines, run])


@st.composite
def sentence(draw: st.DrawFn, pool: list[str], cites: int) -> str:
    """A sentence; `\\x00k\\x00` stands for a marker of citation k, numbered later."""
    parts = draw(st.lists(word, min_size=1, max_size=5))
    if len(pool) > 0 and draw(st.booleans()):
        link = draw(st.sampled_from(pool))
        shown = draw(st.sampled_from((link, link.lower(), link.replace(" ", "_"))))
        parts.insert(draw(st.integers(0, len(parts))), f"[[{shown}]]")
    text = " ".join(parts) + "."
    if cites and draw(st.booleans()):
        text += f"\x00{draw(st.integers(0, cites - 1))}\x00"
    return text


@st.composite
def paragraph(draw: st.DrawFn, pool: list[str], cites: int) -> str:
    return " ".join(draw(st.lists(sentence(pool, cites), min_size=1, max_size=3)))


@st.composite
def body(draw: st.DrawFn, pool: list[str], cites: int, tag: str) -> str:
    blocks = draw(st.lists(paragraph(pool, cites), min_size=1, max_size=2))
    if draw(st.integers(0, 2)) == 0:
        # One cheap long paragraph, so articles cross the stub threshold both ways.
        n = draw(st.integers(50, 160))
        blocks.append(" ".join(WORDS[k % len(WORDS)] for k in range(n)))
    if len(pool) > 0 and draw(st.booleans()):
        blocks.insert(0, f"*Main article: [[{draw(st.sampled_from(pool))}]]*")
    if draw(st.booleans()):
        blocks.insert(draw(st.integers(0, len(blocks))), draw(fences(pool)))
    if draw(st.booleans()):
        blocks += [f"### {tag} detail", draw(paragraph(pool, cites))]
    if draw(st.integers(0, 3)) == 0:
        blocks.insert(draw(st.integers(0, len(blocks))), draw(table(pool)))
    if draw(st.integers(0, 3)) == 0:
        blocks.insert(draw(st.integers(0, len(blocks))), draw(comment()))
    return "\n\n".join(blocks)


@st.composite
def table(draw: st.DrawFn, pool: list[str]) -> str:
    """A table whose cells hold links normalize may rewrite (their bar must be `\\|`)."""
    cells = [draw(word) for _ in range(2)]
    if pool:
        link = draw(st.sampled_from(pool))
        cells[0] = f"[[{draw(st.sampled_from((link.lower(), link.replace(' ', '_'))))}]]"
    return f"| who | what |\n| --- | :-: |\n| {cells[0]} | {cells[1]} |"


@st.composite
def comment(draw: st.DrawFn) -> str:
    """A commented-out block that looks like structure; none of it is read."""
    opener, closer = draw(st.sampled_from((("<!--", "-->"), ("%%", "%%"))))
    inner = draw(st.sampled_from(("## See also\n\n- [[Hidden]]", "## Hidden\n\nx[^9]", "[^9]: x")))
    return f"{opener}\n{inner}\n{closer}"


def _number(text: str, labels: list[int]) -> tuple[str, list[int]]:
    """Replace placeholders by [^n]: the i-th cited source gets labels[i]."""
    order: list[int] = []
    out, rest = [], text
    while "\x00" in rest:
        head, k, rest = rest.split("\x00", 2)
        if int(k) not in order:
            order.append(int(k))
        out += [head, f"[^{labels[order.index(int(k))]}]"]
    out.append(rest)
    return "".join(out), order


@st.composite
def articles(draw: st.DrawFn) -> GenArticle:
    title = draw(titles)
    stem = stem_for_title(title)
    pool = draw(st.lists(titles, max_size=4, unique_by=str.casefold))
    pool = [p for p in pool if p.casefold() != title.casefold()]
    cites = draw(st.integers(0, 4))
    cite_data = [(draw(hashes), draw(dates), draw(sources)) for _ in range(cites)]

    parts = [f"# {title}"]
    if len(pool) > 0 and draw(st.booleans()):
        parts.append(f"*Part of a series on [[{draw(st.sampled_from(pool))}]].*")
    if draw(st.booleans()):
        rows = [f"kind: {draw(st.sampled_from(KINDS))}"]
        if draw(st.booleans()):
            rows.append("aliases: " + ", ".join(draw(st.lists(word, min_size=1, max_size=3))))
        keys = draw(
            st.lists(st.sampled_from(("made_by", "status", "used_for", "year")), unique=True)
        )
        for key in keys:
            value = (
                f"[[{draw(st.sampled_from(pool))}]]" if pool and key == "made_by" else draw(word)
            )
            rows.append(f"{key}: {value}")
        draw(st.randoms()).shuffle(rows)
        parts.append("\n".join(["```info", *rows, "```"]))
    lead_at = len(parts)
    parts.append(draw(paragraph(pool, cites)))
    n_sections = draw(st.integers(0, 3))
    headings = [f"S{i} {draw(word)}" for i in range(n_sections)]
    for i, heading in enumerate(headings):
        parts.append(f"## {heading}\n\n{draw(body(pool, cites, f'S{i}'))}")
    if len(pool) > 0 and draw(st.booleans()):
        items = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
        parts.append("## See also\n\n" + "\n".join(f"- [[{t}]]" for t in items))
    if draw(st.booleans()):
        parts.append(f"## Notes\n\n{draw(paragraph(pool, cites))}")
    placed = "\n\n".join(parts)
    # Every source is cited: an uncited one gets a marker at the end of the lead.
    parts[lead_at] += "".join(f"\x00{k}\x00" for k in range(cites) if f"\x00{k}\x00" not in placed)
    if draw(st.booleans()):
        parts[lead_at] += "\n\n{{stub}}"
    labels = list(range(1, cites + 1))
    if draw(st.booleans()):
        # Numbering out of citation order: well-formed once normalize renumbers it.
        labels = draw(st.permutations(labels))
    text, order = _number("\n\n".join(parts), labels)
    cats = draw(st.lists(word, max_size=2, unique=True))
    if order:
        defs = [
            footnote_def_line(n, *cite_data[k], draw(st.sampled_from(("", "a talk", "notes"))))
            for n, k in sorted(zip(labels, order, strict=False))
        ]
        text += "\n\n## References\n\n" + "\n".join(defs)
    if cats:
        text += "\n\n" + "\n".join(f"[[Category:{c}]]" for c in cats)
    text = draw(_vary(text + "\n"))
    known = tuple(stem_for_title(p) for p in pool)
    cited = tuple(sorted({h for h, _, _ in cite_data}))
    return GenArticle(text, title, stem, known, cited, tuple(headings))


@st.composite
def _vary(draw: st.DrawFn, text: str) -> str:
    """Byte-level variation the grammar allows."""
    lines = text.split("\n")
    if draw(st.booleans()):
        picks = draw(st.lists(st.integers(0, len(lines) - 1), max_size=5))
        for i in picks:
            lines[i] += draw(st.sampled_from((" ", "  ", "\t")))
    if draw(st.booleans()):
        for i in draw(st.lists(st.integers(0, len(lines) - 1), max_size=3)):
            if lines[i] == "":
                lines[i] = "\n"  # a longer run of blank lines
    text = "\n".join(lines)
    if draw(st.booleans()):
        text = text.rstrip("\n")
    text = text.replace("\n", draw(st.sampled_from(("\n", "\n", "\r\n", "\r"))))
    if draw(st.integers(0, 4)) == 0:
        text = BOM + text
    return text


TOKENS = (
    "\n", "\r\n", "\r", " ", "\t", "# ", "## ", "### ", "#", "```", "~~~", "````", "```info\n",
    "`", "[^1]", "[^2]", "[^1]: ", "[^x]: ", "[[", "]]", "|", "[[Foo]]", "[[foo bar|x]]",
    "{{stub}}", "---\n", "*Part of a series on [[X]].*", "*Redirects to [[Y]]*",
    "kind: thing\n", "conv:deadbeef", "`conv:deadbeef` (2024-01-02, claude) — d",
    "## See also\n", "## References\n", "## Notes\n", "- [[A]]\n", "[[Category:C]]",
    "[x](../y)", "word ", "ü", "    ", "\\",
)  # fmt: skip

NASTY = (
    "\r", "\r\n", "\ufeff", "\ufeff# T\n", "Cafe\u0301", "# Cafe\u0301\n", "[[cafe\u0301]]",
    "<!--", "-->", "<!--\n## See also\n-->", "%%", "%% [^1] %%", "| a | b |\n", "| - | - |\n",
    "| [[foo_bar]] | x |\n", "[[X\\|y]]", "```\r", "~~~~\n", "```\n## See also\n",
    "# Second\n", "categories: x\n", "```info\nkind: thing\n```\n", "    more\n",
)  # fmt: skip
"""Fragments that broke the grammar once: line endings, BOM, NFD, comments, tables, open fences."""

nasty_markdown = st.lists(
    st.one_of(st.sampled_from(NASTY), st.sampled_from(TOKENS), st.text(max_size=3)), max_size=40
).map("".join)

near_markdown = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=3)), max_size=40).map(
    "".join
)


def well_formed_footnote(n: int) -> Footnote:
    return Footnote(n, f"{n:08x}", "2024-01-02", "claude", f"talk {n}")


COMMENTS = ("<!-- kept by the person -->", "%% an Obsidian note %%", "<!--\nmulti-line\n-->")


@st.composite
def rich_articles(draw: st.DrawFn) -> GenArticle:
    """A generated article that may also carry frontmatter and HTML / Obsidian comments."""
    g = draw(articles())
    article = parse(g.text)
    sections = list(article.sections)
    for i, s in enumerate(sections):
        if not tail_rank(s) and draw(st.booleans()):
            sections[i] = replace(s, body=s.body + "\n\n" + draw(st.sampled_from(COMMENTS)))
    lead = article.lead
    if draw(st.booleans()):
        lead += "\n\n" + draw(st.sampled_from(COMMENTS))
    frontmatter = article.frontmatter
    if draw(st.booleans()):
        frontmatter = article.eol.join(["---", "tags: [one, two]", "---", ""])
    text = render(replace(article, sections=tuple(sections), lead=lead, frontmatter=frontmatter))
    return replace(g, text=text)
