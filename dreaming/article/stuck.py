"""Articles no edit can pass the write gate on, and what the person must fix in them.

Most of the gate compares an edit with the text it was made from, so a person's odd
markup that NORMALIZE cannot rewrite is left as it stands and the rest of the article
is still edited. A few rules judge the text an edit leaves, whatever it touched: a
footnote cited and never defined or defined twice, footnotes with no References, no
H1 NORMALIZE can add. An article that breaks one of them refuses every edit, so the
night asks no model about it and tells the person, once, what to fix.
"""

from __future__ import annotations

from dreaming.article.gate import Code, Rejection, check
from dreaming.article.normalize import normalize
from dreaming.article.titles import title_for_stem


def blockers(text: str, stem: str) -> tuple[Rejection, ...]:
    """Why the gate refuses every edit of `text`: its verdict on the edit that changes
    nothing but what NORMALIZE rewrites; () when an edit can pass."""
    return check(text, normalize(text, stem=stem), stem=stem).rejections


def _fix(code: Code, stem: str) -> str:
    title = title_for_stem(stem)
    fixes: dict[Code, str] = {
        "footnote_unbalanced": "give each [^n] marker exactly one definition line "
        "([^n]: ...) under '## References', or remove the marker",
        "references_missing": "put the footnote definitions under a '## References' section",
        "h1_lost": f"make '# {title}' the article's first line after any frontmatter",
        "title_changed": f"make its first heading '# {title}', the file's name",
        "fence_unclosed": "close the code fence left open",
        "see_also_duplicate": "keep one '## See also' section",
    }
    return fixes.get(code, "undo what the reason names")


def what_to_fix(text: str, stem: str) -> str | None:
    """One line for the person: the file, why no edit of it can pass the gate, and what
    to change; None when an edit can pass."""
    found = blockers(text, stem)
    if not found:
        return None
    why = "; ".join(r.detail for r in found)
    fixes = "; ".join(dict.fromkeys(_fix(r.code, stem) for r in found))
    return (
        f"articles/{stem}.md: dreaming cannot edit it ({why}); to fix: {fixes}. "
        "The next night edits it again."
    )
