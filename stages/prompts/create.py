"""CREATE's prompts: one short heading, one drafted paragraph, one lead, one kind.

Each call reads one small thing (a few labels, one excerpt, a few drafted
paragraphs) and answers with plain text code can check; no call places a
footnote marker or sees a whole article. Examples are schematic: slots from
dreaming.article.schematic, never a real name, figure or date, and a line that
says not to copy them.
"""

from __future__ import annotations

from collections.abc import Sequence

VERSION = "create-3"

NO_COPY = "The example shows the form only: never copy its words or anything in <angle brackets>."

HEADING_SYSTEM = (
    "You name sections of an encyclopedia article. "
    "Answer with one short heading of two to five words: no punctuation at the end, "
    "no markup, not the article's title. "
    "Example form: <aspect> of <Thing A>. " + NO_COPY
)

DRAFT_SYSTEM = (
    "You write one paragraph of an encyclopedia article from one conversation excerpt. "
    "Write one to three plain sentences stating what the excerpt establishes about the "
    "subject: what it is or does, the cause found, the answer or fix that worked, and the "
    "exact command, setting, name or number. Write about the subject, not about the "
    "conversation or the people in it. "
    "Never state as fact an option from a list or a quiz, an idea offered for "
    "consideration, a guess or a hypothetical; keep words like may and might. "
    "No headings, no lists, no footnotes, no links, no greeting. "
    "Example form: <Thing A> <does what> when <condition>; <exact change> fixed it. " + NO_COPY
)

LEAD_SYSTEM = (
    "You write the opening of an encyclopedia article about one thing. "
    "Write one or two plain sentences: first what the thing is (a tool, a language, a "
    "method, a person, a project...), then the most important fact the notes give about "
    "it. Use only the notes given. The subject is the thing itself, never a story about "
    "it or about the people who discussed it. "
    "No headings, no lists, no footnotes, no links. "
    "Example form: <Title> is a <kind> for <purpose>. <most important fact>. " + NO_COPY
)

KIND_SYSTEM = (
    "You classify the subject of an encyclopedia article. "
    "Answer with exactly one of the kinds listed."
)


def heading(title: str, labels: Sequence[str]) -> str:
    topics = "\n".join(f"- {label}" for label in labels)
    return (
        f"Article: {title}\n"
        f"This section covers conversations about:\n{topics}\n\n"
        "Question: What is a short heading for this section? Answer with the heading only."
    )


def draft(title: str, section: str, excerpt: str, language: str = "English") -> str:
    return (
        f"Conversation excerpt:\n<<<\n{excerpt}\n>>>\n\n"
        f"Article: {title}\nSection: {section}\n\n"
        f"Write one to three sentences for this section stating what this excerpt "
        f"establishes about {title}, using only this excerpt. Write in {language}."
    )


def lead(title: str, notes: Sequence[str], language: str = "English") -> str:
    listed = "\n".join(f"- {n}" for n in notes)
    return (
        f"Notes about {title}:\n{listed}\n\n"
        f"Write the opening sentences of the article {title}: what {title} is, then the "
        f"most important fact the notes give. Write in {language}."
    )


HUMAN_SYSTEM = "You answer questions about names. Answer with one word: yes or no."


def human(title: str) -> str:
    """Asked so that the answer a small model leans to (yes) files a name as a thing:
    a person filed as a thing loses little, a tool filed as a person reads absurd."""
    return (
        f"Name: {title}\n\nQuestion: Is {title} the name of a program, product, company, "
        "AI model, project or place rather than of a human being? Answer yes or no."
    )


GLOSSES = {
    "thing": "a tool, program, file, product or object",
    "person": "a human being",
    "domain": "a field, method, technique or area of knowledge",
    "project": "something the person builds, runs or works on",
    "standard": "a specification, protocol or format",
}
"""What the seeded kinds mean; a kind a person adds to Meta/Infobox_Schemas.md is listed
by its name alone."""


def kind(title: str, kinds: Sequence[str], labels: Sequence[str]) -> str:
    topics = "\n".join(f"- {label}" for label in labels)
    listed = "\n".join(f"- {k}: {GLOSSES[k]}" if k in GLOSSES else f"- {k}" for k in kinds)
    return (
        f"Article: {title}\nConversations about it:\n{topics}\n\n"
        f"Kinds:\n{listed}\n\n"
        f"Question: What kind of subject is {title}? Answer with one of: {', '.join(kinds)}."
    )


def echoes(title: str) -> tuple[str, ...]:
    """The lines of the prompts a draft must not repeat (a model that parrots its prompt)."""
    return (
        "Write one to three sentences",
        "using only this excerpt",
        "Conversation excerpt:",
        "Write the opening sentences",
        f"Notes about {title}:",
        NO_COPY,
    )
