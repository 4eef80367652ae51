"""`dreaming eval propose`: draft retrieval questions from the articles, for a person
to review before any eval uses them.

Code only, no model, so the same vault always drafts the same rows: per article,
a question by its name, one by what its lead says it is (with the name left out,
so only the words can find it), and one by its first section. Every row is marked
`"review": "pending"`; `dreaming eval retrieval` refuses such rows until a person
has checked the question and its gold and removed the mark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dreaming.article import parse
from dreaming.article.document import Article, tail_rank
from dreaming.article.markup import MARKER, STUB_RE, WIKILINK, is_category_line, split_alias
from dreaming.article.queries import is_redirect
from dreaming.article.titles import heading_key, title_for_stem
from dreaming.checks.retrieval import PENDING
from dreaming.errors import RefusedFileError
from dreaming.vault import Vault
from dreaming.vault.files import MAX_PAGE_BYTES, read_bytes

_TEMPLATE = re.compile(r"\{\{[^{}\r\n]{0,200}\}\}")
_EMPHASIS = re.compile(r"[*`]{1,3}")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_DEFINES = re.compile(r"(?:(?:the|a|an) )?(.{1,200}?) (is|are|was|were) (.{3,300})", re.IGNORECASE)


@dataclass
class Proposal:
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line an article no question was drafted from, and why."""


def propose(vault: Vault) -> Proposal:
    """Draft rows for every article, in stem order."""
    proposal = Proposal()
    for path in sorted(vault.articles.glob("*.md"), key=lambda p: p.stem):
        try:
            data = read_bytes(vault, path, cap=MAX_PAGE_BYTES, what="an article")
            article = parse(data.decode("utf-8"))
        except RefusedFileError as e:
            proposal.skipped.append(str(e))
            continue
        except (OSError, UnicodeDecodeError) as e:
            proposal.skipped.append(f"{vault.rel(path)}: cannot read as UTF-8 text ({e})")
            continue
        if is_redirect(article):
            continue
        proposal.rows.extend(_drafts(path.stem, article))
    return proposal


def _drafts(stem: str, article: Article) -> list[dict[str, Any]]:
    title = (article.title or title_for_stem(stem)).strip()
    rows = [_row(f"What do I know about {title}?", stem, f"{stem}: by name", "title")]
    described = _description(title, first_sentence(plain(article.lead)))
    if described:
        rows.append(_row(described, stem, f"{stem}: by description", "lead"))
    body = [s for s in article.sections if s.level == 2 and not tail_rank(s)]
    if body:
        heading = plain(body[0].heading)
        row = _row(
            f"What did I settle about {heading} in {title}?", stem, f"{stem}: by section", "section"
        )
        row["gold_sections"] = [body[0].heading]
        rows.append(row)
    return rows


def _row(question: str, stem: str, name: str, drafted_from: str) -> dict[str, Any]:
    return {
        "question": question,
        "gold": [stem],
        "name": name,
        "drafted_from": drafted_from,
        "review": PENDING,
    }


def _description(title: str, sentence: str) -> str | None:
    """`X is a Y.` → `What is a Y?`, when the sentence defines the article's subject."""
    m = _DEFINES.fullmatch(sentence.rstrip(".!? "))
    if m is None or heading_key(m.group(1)) != heading_key(title):
        return None
    rest = m.group(3).strip()
    if heading_key(title) in heading_key(rest):
        return None
    return f"What {m.group(2).lower()} {rest}?"


def plain(text: str) -> str:
    """Markup off: category lines, templates, footnote markers, links as their words."""
    lines = [line for line in text.splitlines() if not is_category_line(line)]
    joined = STUB_RE.sub(" ", "\n".join(lines))
    joined = _TEMPLATE.sub(" ", MARKER.sub("", joined))
    joined = WIKILINK.sub(_link_words, joined)
    return " ".join(_EMPHASIS.sub("", joined).split())


def _link_words(m: re.Match[str]) -> str:
    target, _, alias = split_alias(m.group(2))
    return (alias or target.partition("#")[0]).replace("_", " ").strip()


def first_sentence(text: str) -> str:
    m = _SENTENCE_END.search(text)
    return text[: m.end()] if m else text
