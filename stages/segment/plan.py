"""The code half of SEGMENT: propose boundaries, assemble and repair ranges, trim labels.

The model only judges (is this a new topic? what is its name?); everything with a
shape is decided here, in pure functions over message roles and texts, so a weak
model can make a chunking worse but never invalid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.words import STOPWORDS, content_words, words

Range = tuple[int, int]
"""First and last message position of a chunk, both included."""

CHARS_PER_TOKEN = 4
"""A token proxy for sizing prompts without a tokenizer."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The limits of the Chunking page's settings block."""

    min_messages: int = 2
    max_messages: int = 500
    label_min_words: int = 4
    label_max_words: int = 10


def parse_rules(page: str) -> Rules:
    """The settings block of the Chunking page; a missing or bad value keeps its default."""
    defaults = Rules()
    values = {
        "min_messages": defaults.min_messages,
        "max_messages": defaults.max_messages,
        "label_min_words": defaults.label_min_words,
        "label_max_words": defaults.label_max_words,
    }
    inside = False
    for line in page.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            inside = stripped == "```settings"
            continue
        name, sep, value = stripped.partition(":")
        if inside and sep and name.strip() in values and value.strip().isdigit():
            values[name.strip()] = int(value.strip())
    rules = Rules(**values)
    if rules.min_messages < 1 or rules.min_messages > rules.max_messages:
        rules = Rules(label_min_words=rules.label_min_words, label_max_words=rules.label_max_words)
    if rules.label_min_words < 1 or rules.label_min_words > rules.label_max_words:
        rules = Rules(min_messages=rules.min_messages, max_messages=rules.max_messages)
    return rules


def overlap(message: str, span: Sequence[str]) -> float:
    """The share of `message`'s content words that `span` already used."""
    own = content_words(message)
    if not own:
        return 1.0
    seen: set[str] = set()
    for text in span:
        seen |= content_words(text)
    return len(own & seen) / len(own)


CONTINUES = 0.5
"""A user turn that reuses this share of its words from the span before continues it:
no need to ask the model."""
SPAN_LOOKBACK = 4
"""How many messages before a candidate count as `the span before` for overlap."""


def candidates(roles: Sequence[str], texts: Sequence[str]) -> list[int]:
    """Positions where a new topic could start: a user turn after a non-user turn whose
    words are mostly new to the messages just before it. A short turn (a thanks, a
    follow-up) has no content words to be new and is never a candidate."""
    found = []
    for k in range(1, len(roles)):
        if roles[k] != "user" or roles[k - 1] == "user":
            continue
        if len(content_words(texts[k])) < 3:
            continue
        if overlap(texts[k], texts[max(0, k - SPAN_LOOKBACK) : k]) >= CONTINUES:
            continue
        found.append(k)
    return found


def window(roles: Sequence[str], opened: int, k: int, before: int) -> list[int]:
    """The positions a boundary question about message `k` shows: the message that
    opened the current topic, the last `before` messages ahead of `k` that are not tool
    output (a `[tool result]` line says nothing about the topic), and `k` itself."""
    recent: list[int] = []
    for i in range(k - 1, opened - 1, -1):
        if len(recent) == before:
            break
        if roles[i] != "tool":
            recent.append(i)
    return sorted({opened, *recent, k})


def assemble(count: int, starts: Sequence[int], min_messages: int) -> list[Range]:
    """Ranges covering 0..count-1 that begin at `starts` (plus 0), with a range shorter
    than `min_messages` merged into the one before it (the first into the next)."""
    if count <= 0:
        return []
    begins = sorted({s for s in starts if 0 < s < count} | {0})
    ranges = [(b, e - 1) for b, e in zip(begins, [*begins[1:], count], strict=True)]
    merged: list[Range] = []
    for first, last in ranges:
        if merged and last - first + 1 < min_messages:
            merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    if len(merged) > 1 and merged[0][1] - merged[0][0] + 1 < min_messages:
        merged[0:2] = [(merged[0][0], merged[1][1])]
    return merged


def split_long(ranges: Sequence[Range], max_messages: int, roles: Sequence[str]) -> list[Range]:
    """Ranges longer than `max_messages` cut into pieces of at most that many, each cut
    moved back to the nearest user turn where there is one."""
    out: list[Range] = []
    for first, last in ranges:
        start = first
        while last - start + 1 > max_messages:
            cut = start + max_messages
            for k in range(cut, start + max(1, max_messages // 2), -1):
                if roles[k] == "user":
                    cut = k
                    break
            out.append((start, cut - 1))
            start = cut
        out.append((start, last))
    return out


def repair(count: int, ranges: Sequence[Range]) -> list[Range]:
    """Any ranges made valid for a conversation of `count` messages: clamped into range,
    ordered, non-overlapping and covering every message (a gap joins the range before it)."""
    if count <= 0:
        return []
    starts = set()
    for first, last in ranges:
        lo, hi = sorted((first, last))
        if hi < 0 or lo >= count:
            continue
        starts.add(max(lo, 0))
    return assemble(count, sorted(starts), 1)


def excerpt(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with a marker when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)].rstrip() + "…"


# Phrases of the label prompt itself: a small model sometimes answers with the
# instruction ("Vector2 of four to ten words"), which would become a subject's source.
_PROMPT_ECHOES = ("four to ten", "ten words", "noun phrase", "<aspect>", "<subject>")


def clean_label(answer: str, min_words: int, max_words: int) -> str | None:
    """The model's label cut to `max_words` words, or None when it has fewer than
    `min_words` (too vague to tell chunks apart) or echoes the prompt."""
    if any(echo in answer.lower() for echo in _PROMPT_ECHOES):
        return None
    kept = []
    for token in answer.replace("\n", " ").split():
        word = token.strip("\"'`*#.,;:!?()[]{}<>")
        if word:
            kept.append(word)
    if len(kept) < min_words:
        return None
    return " ".join(kept[:max_words])


def fallback_label(texts: Sequence[str], max_words: int) -> str:
    """A label from the first content words of the chunk's user messages."""
    picked: list[str] = []
    for text in texts:
        for word in words(text):
            if word not in STOPWORDS and word not in picked:
                picked.append(word)
            if len(picked) == max_words:
                return " ".join(picked)
    return " ".join(picked) or "untitled"


def ignore_patterns(page: str) -> list[str]:
    """The patterns of the Topics_to_Ignore page's ignore block (comments and blanks left out)."""
    patterns = []
    inside = False
    for line in page.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            inside = stripped == "```ignore"
            continue
        if inside and stripped and not stripped.startswith("#"):
            patterns.append(stripped.lower())
    return patterns


def ignored(label: str, patterns: Sequence[str]) -> bool:
    """Whether `label` contains one of `patterns` (ignoring case; `*` is any run of
    characters). Each pattern's pieces are found left to right with str.find, so a
    match costs one pass over the label per piece, whatever the input."""
    text = label.lower()
    for pattern in patterns:
        at = 0
        for piece in pattern.split("*"):
            found = text.find(piece, at)
            if found == -1:
                break
            at = found + len(piece)
        else:
            return True
    return False


FILING_WORDS = 6
"""Content words (each message's distinct ones, summed) a conversation needs before
anything in it is worth filing: a greeting and its reply has fewer."""


def nothing_to_file(roles: Sequence[str], texts: Sequence[str]) -> str | None:
    """Why a conversation holds nothing a wiki could file (no reply, only a greeting),
    or None: such a conversation is cut into no chunks and costs no model call."""
    if "assistant" not in roles or "user" not in roles:
        return "nothing to file: no exchange (one side only)"
    said = 0
    for text in texts:
        said += len(content_words(text))
        if said >= FILING_WORDS:
            return None
    return "nothing to file: only a greeting or a few words"
