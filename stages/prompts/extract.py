"""EXTRACT's prompt: one yes/no question a candidate subject, over the chunk text.

The chunk text comes first and the candidate last, so every question about one
chunk shares the same token prefix and the backend's prefix cache serves it.
"""

from __future__ import annotations

VERSION = "extract-1"

SYSTEM = (
    "You judge what a conversation excerpt is about. "
    "A subject is a thing that could have its own encyclopedia article: a tool, "
    "program, product, person, organisation, project, field or standard. "
    "An excerpt is substantially about a subject when it discusses, uses or decides "
    "something about it, not when it only names it in passing. "
    "Answer with one word: yes or no."
)


def excerpt(text: str) -> str:
    """The shared head of every question about one chunk."""
    return f"Conversation excerpt:\n<<<\n{text}\n>>>\n\n"


def about(text: str, candidate: str) -> str:
    return (
        f"{excerpt(text)}Question: Is this conversation excerpt substantially about "
        f'"{candidate}"? Answer yes or no.'
    )


def main(text: str, candidate: str) -> str:
    return (
        f'{excerpt(text)}Question: Is "{candidate}" the main subject of this '
        "conversation excerpt, the one most of it is about? Answer yes or no."
    )
