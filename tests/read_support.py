"""A small wiki for the read-path tests: articles like the ones a night writes from the
corpus (written by the grammar's renderer), and one too big for any single read."""

from __future__ import annotations

from dreaming.article import build
from dreaming.article.markup import Footnote
from dreaming.vault import Vault

CITE_CLI = Footnote(
    1, "256ba646", "2026-01-23", "claude-code", "Claude Code CLI -p flag for WebSearch"
)
CITE_MDX = Footnote(1, "5ed31c36", "2025-10-29", "claude-code", "MDX URLs in angle brackets")

ARTICLES = {
    "Claude_Code": build(
        "Claude Code",
        lead="Claude Code is the coding agent the person runs from the terminal.[^1]",
        sections=[
            (
                "WebSearch and Task Tool CLI Options",
                "The person chose Claude Code's `-p` flag for [[WebSearch]] because it gives "
                "real-time web access beyond the knowledge cutoff. The Task tool takes the "
                "Haiku model for quick, straightforward tasks, to keep cost and latency low.[^1]",
            )
        ],
        infobox={"kind": "project", "aliases": "claude cli"},
        see_also=["WebSearch"],
        footnotes=[CITE_CLI],
        categories=["Tools"],
    ),
    "WebSearch": build(
        "WebSearch",
        lead="WebSearch is the web lookup tool of [[Claude Code]] in print mode.[^1]",
        sections=[
            (
                "WebSearch CLI Options",
                "WebSearch filters domains with `allowed_domains` and `blocked_domains`; the "
                "person keeps a blocked list for content farms.[^1]",
            )
        ],
        infobox={"kind": "thing"},
        footnotes=[CITE_CLI],
        categories=["Tools"],
    ),
    "URLs": build(
        "URLs",
        lead="URLs in the person's MDX documentation sites.[^1]",
        sections=[
            (
                "MDX URLs",
                "The person turned markdownlint's MD034 rule off in every MDX repository, "
                "because wrapping bare URLs in angle brackets broke the MDX build.[^1]",
            )
        ],
        infobox={"kind": "thing"},
        footnotes=[CITE_MDX],
    ),
    "Big_Project": build(
        "Big Project",
        lead="Big Project is the person's largest side project, a photo archive.",
        sections=[
            (f"Part {n}", " ".join(f"Sentence {n}.{i} about the archive." for i in range(60)))
            for n in range(1, 25)
        ]
        + [
            (
                "Deployment",
                "The archive deploys to a small VPS with rsync. "
                + " ".join(f"Deployment note {i} keeps the disk tidy." for i in range(200)),
            )
        ],
        infobox={"kind": "project"},
    ),
}


def fill(vault: Vault) -> None:
    """The articles on disk, as a night (or a person) leaves them."""
    for stem, text in ARTICLES.items():
        (vault.articles / f"{stem}.md").write_text(text, encoding="utf-8")
