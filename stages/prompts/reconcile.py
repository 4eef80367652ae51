"""RECONCILE's prompt: one yes/no question a proposed infobox value, over the one
sentence that proposed it.

The sentence comes first and the question last, so the questions about one sentence
share their token prefix and the backend's prefix cache serves them.
"""

from __future__ import annotations

VERSION = "reconcile-2"

SYSTEM = (
    "You check an encyclopedia infobox against the article's sentences. "
    "Say yes only when the sentence itself states the fact about the subject, "
    "not when it states it about something else, asks, plans it as one option "
    "among others, or only mentions the words. Answer with one word: yes or no."
)

_STATUS = {
    "planned": "is planned",
    "in progress": "has been started",
    "finished": "is finished",
    "abandoned": "was abandoned",
    "paused": "is paused",
}
"""Short claims: asked "is planned but not started yet", the default model said no to
"The Garden Shed is planned for April" (bench/bench_reconcile.py: 18 of 22 right as
written here, 15 with the longer phrasings)."""
_ASKS = {
    "type": 'is a kind of "{value}"',
    "used_for": 'is used for "{value}"',
    "made_by": "was made by {value}",
    "maintained_by": "is maintained by {value}",
    "owner": "is owned by {value}",
    "implemented_by": "is implemented by {value}",
    "part_of": "is part of {value}",
    "uses": "uses {value}",
    "includes": "includes {value}",
    "affiliation": "works at or for {value}",
}


def states(title: str, sentence: str, field: str, value: str) -> str:
    shown = value.removeprefix("[[").removesuffix("]]")
    claim = _STATUS[value] if field == "status" else _ASKS[field].format(value=shown)
    return (
        f"Subject: {title}\nSentence: {sentence}\n\n"
        f'Question: Does the sentence state that "{title}" {claim}? Answer yes or no.'
    )
