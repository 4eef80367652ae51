"""SEGMENT's two questions: does this message start a new topic (yes/no), and what
is this chunk's topic (one short line).

Schematic only: no real names, products, figures or dates, because a small model
copies concrete example values into its answers. Any change to the wording bumps
PROMPT_VERSION, which makes every conversation new for SEGMENT again.
"""

from __future__ import annotations

from collections.abc import Sequence

PROMPT_VERSION = "segment-1"

NO_COPY = "Never copy wording from these instructions into your answer."


def _body(page: str) -> str:
    """A Meta page without its front matter (the model needs the rules, not the keys)."""
    if page.startswith("---\n"):
        end = page.find("\n---", 4)
        if end != -1:
            return page[end + 4 :].strip()
    return page.strip()


def boundary_system(chunking: str) -> str:
    return (
        "You read part of a conversation between a user and an assistant and decide "
        "whether one marked message starts a new topic.\n\n"
        f"{_body(chunking)}\n\n"
        "Answer `yes` only when the marked message turns to a different subject from the "
        "messages before it. A follow-up, a next step of the same task, a correction, or "
        "a question about the answer just given is the same topic: answer `no`.\n"
        f"Answer with one word: yes or no. {NO_COPY}"
    )


def boundary_user(before: Sequence[str], marked: str, after: Sequence[str]) -> str:
    lines = ["Messages before:", *before, "", "Marked message:", marked]
    if after:
        lines += ["", "Message after:", *after]
    lines += ["", "Does the marked message start a new topic? Answer yes or no."]
    return "\n".join(lines)


def label_system(chunking: str, topics_to_ignore: str) -> str:
    return (
        "You name the topic of one part of a conversation between a user and an "
        "assistant.\n\n"
        f"{_body(chunking)}\n\n"
        f"{_body(topics_to_ignore)}\n\n"
        "Write one line: a noun phrase of four to ten words naming the topic, in the "
        "shape `<Subject> <aspect>`. No sentence, no quotes, no date. "
        f"{NO_COPY}"
    )


def label_user(messages: Sequence[str]) -> str:
    return "\n".join(["Conversation part:", *messages, "", "Topic (four to ten words):"])


def line(role: str, text: str) -> str:
    """One message as the prompts show it."""
    return f"[{role}] {text}"
