"""EDITORIAL's prompt for categories: one yes/no question a category, over the
article's title and lead.

The article comes first and the category last, so every question about one article
shares its token prefix and the backend's prefix cache serves it.
"""

from __future__ import annotations

VERSION = "editorial-categories-2"
LEAD_CHARS = 1200
"""The lead says what the subject is; the body adds detail, not kind."""

SYSTEM = (
    "You file encyclopedia articles under categories. "
    "An article belongs in a category when its subject is the kind of thing the "
    "category's definition describes, not when it only mentions such a thing. "
    "Answer with one word: yes or no."
)


def belongs(title: str, lead: str, name: str, what: str) -> str:
    return (
        f"Article: {title}\n<<<\n{lead[:LEAD_CHARS]}\n>>>\n\n"
        f"Category: {name}: {what}\n\n"
        f'Question: Does the article "{title}" belong in the category "{name}"? '
        "Answer yes or no."
    )
