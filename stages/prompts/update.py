"""SYNTHESIZE UPDATE's questions: does this delta update this section (yes/no), is it
substantive (yes/no), does it contradict the section (yes/no), was the earlier
statement a changed position or a mistake (one word), and the one piece of prose of
its own (a section corrected; what a delta adds is drafted with CREATE's prompt).

A model never sees a whole article: a routing question shows one section's opening
and the delta's labels; a correcting call shows one section and the numbered excerpts.
Sources are always listed oldest first, so "the later one wins" needs no dates read.
Schematic only: no real names, products, figures or dates, because a small model
copies concrete example values into its answers.
"""

from __future__ import annotations

from collections.abc import Sequence

VERSION = "update-3"

NO_COPY = "Never copy wording from these instructions into your answer."
YES_NO = "Answer with one word: yes or no."


def _place(title: str, heading: str) -> str:
    if not heading:
        return f'the opening of the article "{title}" (what it is and how the person relates to it)'
    return f'the section "{heading}" of the article "{title}"'


def _gists(gists: Sequence[str]) -> str:
    return "\n".join(f"- {g}" for g in gists)


ROUTE_SYSTEM = (
    "You judge whether a piece of text is about a given topic. A text about another "
    "aspect of the same subject is not about this topic. " + YES_NO
)


def route(title: str, heading: str, opening: str, gists: Sequence[str]) -> str:
    """Asked as "is this text about this topic?", the shape the default model judges
    well; asked "does it update this part?" it answered yes to nearly every part.
    The delta comes first, so every part's question shares one prompt prefix."""
    topic = f'"{heading}" of {title}' if heading else f"what {title} is and where it lives"
    said = f" ({opening})" if opening else ""
    return (
        f"Text:\n{_gists(gists)}\n\nTopic: {topic}{said}\n\n"
        "Question: Is this text about this topic? Answer yes or no."
    )


SUBSTANTIVE_SYSTEM = (
    "You help keep a personal wiki up to date. You decide whether new conversation "
    "material says something worth keeping in an article about a subject: a fact, a "
    "choice, a plan, a result or an experience of the person. Small talk, a passing "
    "mention or a question left unanswered is not. " + YES_NO
)


def substantive(title: str, gists: Sequence[str]) -> str:
    return (
        f'Article: "{title}"\n\n'
        f"New material (oldest first):\n{_gists(gists)}\n\n"
        f'Question: Does the new material add something worth keeping about "{title}"? '
        "Answer yes or no."
    )


CONFLICT_SYSTEM = "You compare two texts. " + YES_NO


def agrees(section: str, excerpts: str) -> str:
    """Asked as "does it agree?", not "does it contradict?": the default model leans to
    yes on both, and a missed change only costs a History line, while a false one
    writes a change that never happened into the article."""
    return (
        f"Newer text:\n<<<\n{excerpts}\n>>>\n\nEarlier statement:\n<<<\n{section}\n>>>\n\n"
        "Question: Does the newer text agree with the earlier statement? Answer yes or no."
    )


KIND_OPTIONS = ("changed", "mistake", "unsure")
KIND_SYSTEM = (
    "You compare a part of a wiki article with a newer conversation excerpt that says "
    "something different. Answer `changed` when the person changed their choice, plan, "
    "opinion or situation since (the earlier statement was true then). Answer `mistake` "
    "when the earlier statement was simply wrong (a wrong fact, number or name that the "
    "newer excerpt corrects). Answer `unsure` when you cannot tell. "
    "Answer with one word: changed, mistake or unsure."
)


def kind(title: str, heading: str, section: str, excerpts: str) -> str:
    return (
        f"Part: {_place(title, heading)}.\n<<<\n{section}\n>>>\n\n"
        f"Newer excerpts (oldest first):\n<<<\n{excerpts}\n>>>\n\n"
        "Question: Did the person change their position, or was the earlier statement a "
        "mistake? Answer changed, mistake or unsure."
    )


DRAFT_SYSTEM = (
    "You correct one part of a personal wiki article with new conversation excerpts. "
    "Write plain prose stating what the excerpts establish about "
    "the subject (the cause, the answer or fix, the exact command, name or number), one "
    "paragraph a line, no heading, no list of sources, no links. Say the person chose or "
    "decided something only where an excerpt shows them doing so; never state an option "
    "from a list or a quiz, an idea offered for consideration or a hypothetical as fact. "
    "Excerpts are numbered [N] and listed oldest first: where two "
    "say different things, the later one is right and the text says what holds now. "
    "Keep every statement of the current text that still holds, with its [N] markers. "
    "End every sentence that uses an excerpt with that excerpt's marker, like this: "
    f"<what happened>.[N] Do not retell the conversation. {NO_COPY}"
)


def draft(
    title: str, heading: str, current: str, earlier: Sequence[str], excerpts: str, note: str
) -> str:
    cited = "\n".join(earlier) or "(none)"
    body = current or "(this part has no text yet)"
    return (
        f"Part: {_place(title, heading)}.\n"
        f"Current text:\n<<<\n{body}\n>>>\n\n"
        f"Sources the current text already cites:\n{cited}\n\n"
        f"New excerpts (oldest first):\n<<<\n{excerpts}\n>>>\n\n"
        f"{note}Write the whole new text of this part:"
    )


MISTAKE_NOTE = (
    "The current text contains a mistake that a newer excerpt corrects: write the "
    "corrected text and leave the wrong statement out.\n\n"
)
