"""The article grammar: pure functions over Markdown text, standard library only.

parse ⇄ render round-trips any text byte for byte; build writes a new
article; normalize puts one in normal form; problems lists what breaks the
grammar; check is the write gate. The submodules hold the rest (fences,
markup, titles, queries, sections) for the few callers that read an article
more closely; docs/article-grammar.md describes the grammar for people.
"""

from dreaming.article.document import LEAD, Article, Section, build, parse, render
from dreaming.article.gate import CODES, Code, GateResult, Part, Rejection, check
from dreaming.article.normalize import normalize
from dreaming.article.titles import stem_for_title, title_for_stem
from dreaming.article.validate import problems

__all__ = [
    "CODES",
    "LEAD",
    "Article",
    "Code",
    "GateResult",
    "Part",
    "Rejection",
    "Section",
    "build",
    "check",
    "normalize",
    "parse",
    "problems",
    "render",
    "stem_for_title",
    "title_for_stem",
]
