"""UPDATE's pure text work: what a section shows a model, what a drafted answer may be,
and how citations move between the two.

A model sees one section's prose with its footnote markers shown as `[N]` (the
numbers of a list that also holds the delta's excerpts) and answers in the same
numbering; code maps the numbers back to footnote labels, appends the delta's
markers to a new paragraph that cites nothing, and refuses an answer that is no
section prose (a heading, a definition, markup, an invented number, a ramble).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dreaming.article.cited import sentences
from dreaming.article.fences import fence_blocks, line_content, split_lines
from dreaming.article.markup import DEFINITION, MARKER, STUB_RE, atx_heading, markers, words
from dreaming.article.schematic import leaks
from dreaming.article.titles import cut_heading, heading_key, spoken

# Bounded on every side: digits at most 3, at most 10 numbers in one bracket.
_SHOWN = re.compile(r"\[\^?([0-9]{1,3}(?:[ \t]?,[ \t]?\^?[0-9]{1,3}){0,9})\]")
_NUMBERED_DEF = re.compile(r"[ \t]{0,3}\[\^?[0-9]{1,3}\][ \t]{0,3}:")
_TAG = re.compile(r"</?[A-Za-z!]")
_ROLE = re.compile(r"(?:user|assistant|system|human|ai)[ \t]{0,3}:", re.IGNORECASE)
# The assistant's own voice, as in a retold transcript: "I'll add", "Let me read".
_ASSISTANT = re.compile(r"(?<![\w'])(?:I|I'll|I've|I'm|I'd|Let me|Let's)(?![\w'])")
_ENDS = (".", "!", "?", '"', "'", ")", "]")
_SENTENCE_END = re.compile(r"[.!?](?=[ \t\n]|$)")
_UNSAFE_HEADING = re.compile(r"[\[\]#|^*_`<>{}\\\r\n\t]")

OPENING_CHARS = 300
"""A routing question shows this much of a section: its first sentences."""
WORDS_PER_SOURCE = 150
"""How much longer than before a replacement may grow per excerpt before it is a ramble."""


@dataclass(frozen=True)
class Split:
    """A section body as UPDATE rewrites it: the prose before its first subsection or
    code block (the model's part) and the rest, kept byte for byte."""

    intro: str
    rest: str
    stub: bool = False
    """The lead carried {{stub}}; it is put back under the new lead."""


def split_body(body: str, *, lead: bool = False) -> Split:
    lines = split_lines(body)
    starts = {b.start for b in fence_blocks(lines)}
    cut = next(
        (i for i, line in enumerate(lines) if i in starts or atx_heading(line) is not None),
        len(lines),
    )
    intro, rest = "".join(lines[:cut]), "".join(lines[cut:])
    stub = False
    if lead and STUB_RE.search(intro):
        stub = True
        intro = STUB_RE.sub("", intro)
    return Split(intro.strip(), rest.strip(), stub)


def join_body(split: Split, intro: str, eol: str) -> str:
    parts = [intro, *(["{{stub}}"] if split.stub else []), *([split.rest] if split.rest else [])]
    return (eol + eol).join(p for p in parts if p)


def opening(intro: str) -> str:
    """The first two sentences of a section's prose, markers left out, at most OPENING_CHARS."""
    flat = " ".join(MARKER.sub("", intro).split())
    ends = [m.end() for m in _SENTENCE_END.finditer(flat, 0, OPENING_CHARS)]
    if len(ends) >= 2:
        return flat[: ends[1]]
    return flat[:OPENING_CHARS]


def show_markers(intro: str, shown: Mapping[str, int]) -> str:
    """The section's prose with each footnote marker as the `[N]` the prompt lists."""
    return MARKER.sub(lambda m: f"[{shown[m.group(1)]}]" if m.group(1) in shown else "", intro)


def usable(answer: str, count: int, limit: int, old: str = "") -> list[str] | None:
    """The answer's paragraphs, or None when it is no section prose: empty, longer than
    `limit` words, a heading, a code fence, a footnote definition, a link or tag, a
    transcript line or the assistant's voice, a repeated line, a line cut off before its
    sentence ends, a schematic placeholder, or a number outside 1..count. First person is
    the assistant's voice only when the `old` text, a person's own, has none."""
    lines = [line_content(x).strip() for x in split_lines(answer.strip())]
    lines = [x for x in lines if x]
    voice = _ASSISTANT.search(old) is None
    if not lines or words(answer) > limit or len(set(lines)) < len(lines):
        return None
    for line in lines:
        if (
            atx_heading(line) is not None
            or line.startswith(("```", "~~~"))
            or DEFINITION.match(line)
            or _NUMBERED_DEF.match(line)
            or _ROLE.match(line)
            or "[[" in line
            or "[N]" in line
            or _TAG.search(line)
            or (voice and _ASSISTANT.search(line))
            or not line.endswith(_ENDS)
        ):
            return None
    if leaks("", answer):
        return None
    shown = list(_SHOWN.finditer(answer))
    if any(not 1 <= int(n) <= count for m in shown for n in _numbers(m.group(1))):
        return None
    # A bracket that opens no marker is a transcript's tool line or a Markdown link.
    if answer.count("[") != len(shown):
        return None
    return [" ".join(x.split()) for x in lines]


def _numbers(group: str) -> list[str]:
    return [n.strip(" \t^") for n in group.split(",")]


def relabel(paras: Sequence[str], labels: Mapping[int, str], fresh: Sequence[str], old: str) -> str:
    """Paragraphs with `[N]` as `[^label]`, every claim cited.

    The default model copies the sentences it keeps but drops their markers, so a
    sentence close to one of the `old` text (same words, give or take a few) gets that
    sentence's markers back; a run of new sentences without a marker gets the `fresh`
    ones (the delta's) at its end; an old sentence that cited nothing still cites nothing.
    """
    before = [(_word_set(body), marks) for body, marks in sentences(old)]
    out = []
    for para in paras:
        text = _SHOWN.sub(
            lambda m: "".join(f"[^{labels[int(n)]}]" for n in _numbers(m.group(1))), para
        )
        parts: list[str] = []
        pending = False
        for body, marks in sentences(text):
            known = _closest(body, before)
            if known is not None or marks:
                if pending:
                    parts[-1] += _marks(fresh)
                pending = False
                parts.append(body + (marks or (known or "")))
            else:
                pending = True
                parts.append(body)
        if pending:
            parts[-1] += _marks(fresh)
        out.append(" ".join(parts))
    return "\n\n".join(out)


def _marks(labels: Sequence[str]) -> str:
    return "".join(f"[^{label}]" for label in labels)


_WORD = re.compile(r"[0-9A-Za-z\u00C0-\uFFFF]{1,64}")
SAME_SENTENCE = 0.7
"""Shared words (Jaccard) above which a drafted sentence is an old one reworded."""


def _word_set(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(MARKER.sub(" ", text)))


def _closest(body: str, before: Sequence[tuple[frozenset[str], str]]) -> str | None:
    """The markers of the old sentence this one repeats, or None for a new sentence."""
    words_now = _word_set(body)
    best, marks = 0.0, None
    for words_then, then in before:
        union = words_now | words_then
        share = len(words_now & words_then) / len(union) if union else 0.0
        if share > best:
            best, marks = share, then
    return marks if best >= SAME_SENTENCE else None


def cite(sentence: str, labels: Sequence[str]) -> str:
    """One line of prose with these markers at its end, and no `[N]` the model wrote."""
    clean = " ".join(_SHOWN.sub("", sentence).split())
    return clean + "".join(f"[^{label}]" for label in dict.fromkeys(labels))


def top_label(text: str) -> int:
    """The highest numeric footnote label in the text (markers and definitions); 0 if none."""
    # ASCII numbers only: "²" passes isdigit() and int() refuses it.
    found = [int(x) for x in markers(text) if x.isascii() and x.isdigit()]
    found += [
        int(m.group(1))
        for line in split_lines(text)
        if (m := DEFINITION.match(line)) and m.group(1).isascii() and m.group(1).isdigit()
    ]
    return max(found, default=0)


def with_definitions(body: str, add: Sequence[str], drop: set[str], eol: str) -> str:
    """A References body with the `add` definition lines after its last definition (before
    its categories) and the definitions of the `drop` labels taken out."""
    lines = [line_content(x) for x in split_lines(body)]
    kept = [x for x in lines if not ((m := DEFINITION.match(x)) and m.group(1) in drop)]
    last = max((i for i, x in enumerate(kept) if DEFINITION.match(x)), default=-1)
    if last < 0:
        rest = [x for x in kept if x.strip()]
        return eol.join([*add, *([""] if rest else []), *kept])
    return eol.join([*kept[: last + 1], *add, *kept[last + 1 :]])


def heading_from(labels: Sequence[str], taken: Sequence[str]) -> str | None:
    """A heading for a new section from the delta's labels: the first that is safe and
    no heading the article has (nor a structural one), cut as `cut_heading` cuts."""
    used = {heading_key(t) for t in taken}
    for label in labels:
        if spoken(label):
            continue
        flat = cut_heading(_UNSAFE_HEADING.sub(" ", label).split()).strip(" .,:;-")
        if len(flat) < 3 or heading_key(flat) in used:
            continue
        return flat
    return None
