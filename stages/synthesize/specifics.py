"""What a section carries verbatim: the code its excerpt ended on, and where the
person said the subject stands.

A small model paraphrases a command or a fix into something vaguer, or gets it
wrong; code can copy it exactly. The last complete fenced block the assistant
wrote in an excerpt is where that part of the conversation arrived (a later
block replaces an earlier attempt), so a section shows it under its paragraph,
with its language, cited by that paragraph's footnote.

A small model drafting from an excerpt writes about the assistant's advice and leaves
out the person's own news ("The Garden Shed is finished!"), which is what RECONCILE
and a reader most need. Such a sentence, when it names the subject and states a
position in the person's words (no "I", no question, no "if"), is taken as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dreaming.article.fences import fence_blocks, line_content, split_lines
from dreaming.article.fields import STATUSES
from dreaming.article.words import content_words, mention, sentences
from dreaming.languages import Language, written_in

MAX_LINES = 30
MAX_CHARS = 2000
_ROLES = ("user", "assistant", "tool", "system")
_CUT = "[...]"
"""chunk_text's mark where it cut a message: a block with it is not the whole code."""
_RESERVED_LABELS = frozenset({"info"})
"""Fence labels the article grammar gives a meaning (the infobox)."""


def final_code(excerpt: str) -> str | None:
    """The excerpt's last complete fenced block in an assistant turn, as a fence an
    article can hold, or None when there is none small enough to show whole."""
    lines = split_lines(excerpt)
    roles = _roles(lines)
    for block in reversed(fence_blocks(lines)):
        if not block.closed or roles[block.start] != "assistant":
            continue
        body = [line_content(x) for x in lines[block.start + 1 : block.end - 1]]
        code = "\n".join(body).strip("\n")
        if not code.strip() or len(body) > MAX_LINES or len(code) > MAX_CHARS or _CUT in code:
            continue
        label = "" if block.label.casefold() in _RESERVED_LABELS else block.label
        fence = "~~~~" if "```" in code or "~~~" in code else "```"
        return f"{fence}{label}\n{code}\n{fence}"
    return None


POSITIONS = 2
POSITION_WORDS = 30
PREFACE_WORDS = 4
"""Words before a colon that introduce a statement rather than start it."""
_PERSONAL = re.compile(r"\b(?:I|I'm|I've|I'll|I'd)\b|\b(?:my|me|mine|we|our|us|you|your)\b", re.I)
_UNSURE = re.compile(
    r"\b(?:if|would|could|might|should|maybe|perhaps|whether|unless)\b", re.IGNORECASE
)


def stated_positions(excerpt: str, names: Sequence[str]) -> list[str]:
    """The person's own sentences saying where the subject called `names` stands
    ("The Garden Shed is finished!" → "The Garden Shed is finished."), at most
    `POSITIONS`, each adding words the ones before did not say."""
    lines = split_lines(excerpt)
    roles = _roles(lines)
    said = " ".join(
        line_content(x).removeprefix("user: ")
        for x, r in zip(lines, roles, strict=True)
        if r == "user"
    )
    out: list[str] = []
    seen: set[str] = set()
    for sentence in sentences(" ".join(said.split())):
        plain = _unprefaced(sentence.rstrip("!. "))
        if (
            sentence.endswith("?")
            or len(plain.split()) > POSITION_WORDS
            or _PERSONAL.search(plain)
            or _UNSURE.search(plain)
            or not any(_names(plain, n) for n in names)
            or not any(cue.search(plain) for cue in STATUSES.values())
            or content_words(plain) <= seen
        ):
            continue
        # "…planned for April" then "…planned for April, with pine walls": the second.
        out = [x for x in out if not content_words(x) <= content_words(plain)]
        out.append(f"{plain}.")
        seen |= content_words(plain)
        if len(out) == POSITIONS:
            break
    return out


_PREFACE = re.compile(r"^(?:so|ok|okay|good|well|anyway|right|great|thanks)\b[,!.]?\s+", re.I)


def _unprefaced(sentence: str) -> str:
    """The statement without the talk around it: "So the plan: the shed is planned for
    April" says "The shed is planned for April"."""
    head, colon, rest = sentence.partition(": ")
    if colon and len(head.split()) <= PREFACE_WORDS and rest:
        sentence = rest
    sentence = _PREFACE.sub("", sentence)
    return sentence[:1].upper() + sentence[1:]


def with_positions(
    paragraph: str | None, excerpt: str, names: Sequence[str], language: Language
) -> str | None:
    """A drafted paragraph (or none) with the person's stated positions before it, those
    in the wiki's language adding words it does not hold."""
    have = content_words(paragraph or "")
    added = [
        p
        for p in stated_positions(excerpt, names)
        if written_in(p, language) and not content_words(p) <= have
    ]
    return " ".join([*added, *([paragraph] if paragraph else [])]) or None


def _names(text: str, name: str) -> bool:
    name = name.strip()
    return bool(name) and mention(name).search(text) is not None


def _roles(lines: list[str]) -> list[str]:
    """Whose turn each line is in: chunk_text opens every message with `role: `."""
    out: list[str] = []
    role = ""
    for line in lines:
        head, colon, _ = line.partition(": ")
        if colon and head in _ROLES:
            role = head
        out.append(role)
    return out
