"""SEGMENT's two questions: does this message start a new topic (yes/no), and what
is this chunk's topic (one short line).

Schematic only: no real names, products, figures or dates, because a small model
copies concrete example values into its answers. Any change to the wording bumps
PROMPT_VERSION, which makes every conversation new for SEGMENT again.
"""

from __future__ import annotations

from collections.abc import Sequence

from stages.prompts import page_body

PROMPT_VERSION = "segment-5"

NO_COPY = "Never copy wording from these instructions into your answer."


def boundary_system(chunking: str) -> str:
    return (
        "You read part of a conversation between a user and an assistant and decide "
        "whether the next message continues the same topic as the earlier messages.\n\n"
        f"{page_body(chunking)}\n\n"
        "A follow-up, a next step of the same task, a correction, or a question about the "
        "answer just given is the same topic: answer `yes`. Answer `no` only when the next "
        "message turns to a different subject.\n"
        f"Answer with one word: yes or no. {NO_COPY}"
    )


def boundary_user(before: Sequence[str], marked: str) -> str:
    """Asked as `same topic?`, not `new topic?`: the default model answers the first far
    more reliably, and a wrong `yes` keeps a chunk whole instead of cutting it."""
    return "\n".join(
        [
            "Earlier messages:",
            *before,
            "",
            "Next message:",
            marked,
            "",
            "Is the next message about the same topic as the earlier messages? Answer yes or no.",
        ]
    )


def label_system(chunking: str) -> str:
    return (
        "You name the topic of one part of a conversation between a user and an "
        "assistant.\n\n"
        f"{page_body(chunking)}\n\n"
        "Write one line: a noun phrase of four to ten words naming the topic and what "
        "about it was discussed, in the shape `<aspect> of <Subject> for <purpose>`. "
        "No sentence, no quotes, no date. "
        f"{NO_COPY}"
    )


def label_user(messages: Sequence[str]) -> str:
    return "\n".join(["Conversation part:", *messages, "", "Topic (four to ten words):"])


def label_again_user(messages: Sequence[str], short: str) -> str:
    """Asked once when the first label is too short: the default model tends to answer
    with two or three words, and told so it adds what was discussed."""
    return "\n".join(
        [
            label_user(messages),
            short,
            "",
            "That topic has too few words. Write it again in four to ten words, "
            "adding what about it was discussed:",
        ]
    )


def line(role: str, text: str) -> str:
    """One message as the prompts show it."""
    return f"[{role}] {text}"
