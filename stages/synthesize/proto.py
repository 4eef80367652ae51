"""The code half of CREATE: proto-sections, headings and drafts checked and cleaned.

A small model judges well and writes structure badly, so everything with a
shape is decided here, in pure functions: which excerpts share a section
(label and text word overlap, no embeddings), whether a proposed heading is
one, and what of a drafted paragraph may reach an article. The model only
fills in short plain text; a draft this module cannot clean is refused, never
repaired into something the model did not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.schematic import leaks
from dreaming.article.titles import HEADING_CHARS, HEADING_WORDS, cut_heading, heading_key, spoken
from dreaming.article.words import STOPWORDS, content_words, sentences, words

MAX_SECTIONS = 6
JOIN = 0.2
"""Label-and-text word overlap (Jaccard) at which an excerpt joins a section."""
TEXT_WORDS = 40
"""How many of an excerpt's most frequent content words stand for its text."""
RESERVED = frozenset(
    heading_key(h) for h in ("References", "See also", "Notes", "History", "Lead", "Introduction")
)
"""Headings the grammar or UPDATE own, or that say nothing."""
_MARKUP = frozenset("#*[]`<>|_~{}=\\")
DRAFT_CHARS = 700
"""A paragraph of at most three plain sentences fits easily; more is a ramble."""
DRAFT_SENTENCES = 3
_ROLES = frozenset({"user", "assistant", "system", "tool"})
"""The speaker names an excerpt's lines start with: in every excerpt, so no signal."""
_PROSE_OPENERS = ("sure", "here is", "here's", "certainly", "heading:", "answer:", "the heading")


@dataclass(frozen=True, slots=True)
class Excerpt:
    """What grouping reads of one source: its label and its text."""

    label: str
    text: str


def signature(excerpt: Excerpt) -> frozenset[str]:
    """The words that stand for an excerpt: its label's and its text's most frequent."""
    counts: dict[str, int] = {}
    for w in words(excerpt.text):
        if len(w) > 2 and w not in STOPWORDS and w not in _ROLES:
            counts[w] = counts.get(w, 0) + 1
    common = sorted(counts, key=lambda w: (-counts[w], w))[:TEXT_WORDS]
    return frozenset(content_words(excerpt.label)) | frozenset(common)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def group(excerpts: Sequence[Excerpt], limit: int = MAX_SECTIONS) -> list[list[int]]:
    """Proto-sections: indexes of `excerpts`, each in its first-seen order.

    An excerpt joins the section it overlaps most (at least `JOIN`), else opens a
    new one; past `limit` sections the last opened is merged into its closest.
    Deterministic: the same excerpts in the same order give the same sections.
    """
    sigs = [signature(e) for e in excerpts]
    sections: list[list[int]] = []
    words_of: list[frozenset[str]] = []
    for i, sig in enumerate(sigs):
        scores = [_jaccard(sig, have) for have in words_of]
        best = max(range(len(scores)), key=lambda k: scores[k], default=None)
        if best is not None and scores[best] >= JOIN:
            sections[best].append(i)
            words_of[best] = words_of[best] | sig
        else:
            sections.append([i])
            words_of.append(sig)
    while len(sections) > limit:
        last, last_words = sections.pop(), words_of.pop()
        closest = max(range(len(sections)), key=lambda k: _jaccard(last_words, words_of[k]))
        sections[closest] = sorted(sections[closest] + last)
        words_of[closest] = words_of[closest] | last_words
    return sections


def heading_problem(heading: str, title: str, taken: Sequence[str]) -> str | None:
    """Why `heading` cannot head a section of `title`'s article, or None."""
    text = heading.strip()
    if not text:
        return "empty"
    if "\n" in text or len(text) > HEADING_CHARS or len(text.split()) > HEADING_WORDS:
        return "longer than a heading"
    if any(c in _MARKUP for c in text) or leaks("", text):
        return "markup or a placeholder"
    if text[-1] in ".!?:;," or text.casefold().startswith(_PROSE_OPENERS):
        return "a sentence, not a heading"
    if not any(c.isalpha() for c in text):
        return "no words"
    key = heading_key(text)
    if key == heading_key(title):
        return "the article's title"
    if key in RESERVED:
        return "a heading the article grammar reserves"
    if key in {heading_key(t) for t in taken}:
        return "a heading already used"
    return None


def heading_from_label(label: str) -> str:
    """A section heading proposed from an excerpt's label: its first words, capitalised;
    none from a label that is someone's message cut short."""
    if spoken(label):
        return ""
    return cut_heading([w for w in label.split() if not any(c in _MARKUP for c in w)])


def pick_heading(
    proposed: str | None, labels: Sequence[str], title: str, taken: Sequence[str], n: int
) -> str:
    """The model's heading when it is one, else one made from the labels, else `Part n`."""
    candidates = [proposed] if proposed is not None else []
    candidates += [heading_from_label(label) for label in labels]
    for c in candidates:
        if heading_problem(c, title, taken) is None:
            return c.strip()
    return f"Part {n}"


def clean_draft(answer: str, echoes: Sequence[str] = ()) -> str | None:
    """A drafted paragraph fit for an article, or None.

    Kept: the first paragraph's plain sentences (at most `DRAFT_SENTENCES`), with
    headings, list bullets, quote marks, footnote markers and link brackets the model
    added taken off. Refused: nothing left, a ramble, a schematic example or slot,
    or a paragraph that repeats one of `echoes` (the prompt's own lines).
    """
    text = answer.strip()
    if not text or len(text) > DRAFT_CHARS * 2:
        return None
    paragraph = next((p for p in text.split("\n\n") if _prose_lines(p)), "")
    lines = _prose_lines(paragraph)
    flat = " ".join(line for line in lines if line)
    flat = _strip_markers(flat).replace("[[", "").replace("]]", "")
    flat = " ".join(flat.split())
    if not flat or len(flat) > DRAFT_CHARS or leaks("", flat):
        return None
    flat = " ".join(_unframed(sentence) for sentence in sentences(_defanged(flat)))
    if not any(c.isalpha() for c in flat):
        return None
    folded = flat.casefold()
    if any(len(e) >= 20 and e.casefold() in folded for e in echoes):
        return None
    said = sentences(flat)
    if len(said) > 1 and said[-1][-1] not in ".!?":
        # Cut off by the length bound mid-sentence: a half claim is no claim.
        said.pop()
    out = " ".join(said[:DRAFT_SENTENCES])
    return out if out[-1] in ".!?" else f"{out}."


def _prose_lines(paragraph: str) -> list[str]:
    """The paragraph's lines that are prose (a heading is none), each made plain."""
    plain = (_plain_line(line) for line in paragraph.splitlines() if not _is_heading(line))
    return [line for line in plain if line]


def _is_heading(line: str) -> bool:
    text = line.strip()
    return text.startswith("#") or (text.startswith("**") and text.endswith("**"))


_META = re.compile(
    r"^(?:(?:the|this|these) (?:excerpts?|conversation|text|passage|notes?) (?:establish(?:es)?"
    r"|shows?|states?|says?|explains?|mentions?|describes?|notes|suggests?|indicates?)"
    r"(?: that)?[ ,:]+(?!how\b|why\b|what\b)"
    # The prompt's own slot said back: "The most important fact about X is that …".
    r"|the (?:most important|key|main) (?:fact|point|thing)(?: about [^,.]{1,80}?)? is"
    r"(?: that)?[ ,:]+)",
    re.IGNORECASE,
)


def _unframed(text: str) -> str:
    """`text` without an opening that talks about the excerpt ("The excerpt establishes
    that …"): what follows is the claim, and the support check weighs it alone."""
    m = _META.match(text)
    if m is None:
        return text
    rest = text[m.end() :]
    if m.group().rstrip(" ,:").casefold().endswith(" that"):
        # "… says that X, and that Y": the second "that" hung on the opener too.
        rest = _PARALLEL_THAT.sub(", and ", rest)
    return rest[:1].upper() + rest[1:]


_PARALLEL_THAT = re.compile(r",? and that (?!(?:is|was|means|makes)\b)(?=\S)")
"""The opener's second "that" clause; not "and that is why …", where "that" is the thing."""


def _defanged(text: str) -> str:
    """`text` with no HTML tag, table bar or unpaired backtick left: prose about code
    keeps its words (`<div>` reads `div`) but cannot open a tag, a cell or a code span
    that swallows the marker code appends."""
    text = text.replace("<", "").replace(">", "").replace("|", "/")
    if text.count("`") % 2:
        text = text.replace("`", "")
    return " ".join(text.split())


def _plain_line(line: str) -> str:
    """A line without the quote mark, bullet or number that opens it."""
    text = line.strip().lstrip(">").strip()
    if text[:2] in ("- ", "* ", "+ "):
        text = text[2:].strip()
    digits = len(text) - len(text.lstrip("0123456789"))
    if 0 < digits <= 3 and text[digits : digits + 2] in (". ", ") "):
        text = text[digits + 2 :].strip()
    return text.strip('"\u201c\u201d*_').strip()


def _strip_markers(text: str) -> str:
    """`text` without `[^x]` and `[3]` markers the model wrote (code places the real ones)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "[":
            end = text.find("]", i + 1, i + 12)
            inner = text[i + 1 : end] if end != -1 else ""
            if inner and (inner.startswith("^") or inner.isdigit()) and "[" not in inner:
                i = end + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out).replace(" .", ".").replace(" ,", ",")


REPEAT = 0.8
"""Share of a lead sentence's content words a body sentence already holds: a repeat."""


def retold(paragraph: str, lead: str) -> bool:
    """Whether every sentence of `paragraph` is one the lead already says (`REPEAT` of
    its content words in one lead sentence)."""
    said = [content_words(s) for s in sentences(lead)]
    for sentence in sentences(paragraph):
        own = content_words(sentence)
        if own and not any(len(own & s) >= REPEAT * len(own) for s in said):
            return False
    return True


def lead_sentences(lead: str, body: Sequence[str], limit: int) -> str:
    """The lead's first `limit` sentences, less those past the first that only repeat a
    body sentence (a small model asked for a lead retells its notes)."""
    said = sentences(lead)
    seen = [content_words(b) for p in body for b in sentences(p)]
    kept = said[:1]
    for sentence in said[1:limit]:
        own = content_words(sentence)
        if not any(own and len(own & b) >= REPEAT * len(own) for b in seen):
            kept.append(sentence)
    return " ".join(kept)


GROUNDED = 0.5
"""Share of a lead sentence's own words (past the title's and the kind words) that the
notes it is cited to must hold. Asked what a thing is, a small model answers from what
it knows of the word: on the corpus vault the default model opened `Haiku` with "a
three-line poem that expresses a moment of beauty", where the person meant the model.
On that vault's ten lead sentences (tests/fixtures/leads.jsonl, labelled by hand) this
dropped the three that said what the model knows and kept five of the six that say
what the notes say (every first sentence among them)."""
_KIND_WORDS = frozenset((
    "tool", "tools", "language", "library", "method", "person", "project", "concept",
    "service", "framework", "format", "model", "practice", "decision", "thing", "type",
    "user", "uses", "used", "using",
))  # fmt: skip


def grounded_lead(lead: str, title: str, notes: Sequence[str]) -> str:
    """The lead's sentences whose own words the notes mostly hold; when none is, the
    notes' first sentence that names the title (else their first sentence): a lead says
    what the person's conversations say, never what the model knows of a word."""
    known: set[str] = set()
    for note in notes:
        known |= content_words(note)
    skip = content_words(title) | _KIND_WORDS
    kept = [
        sentence
        for sentence in sentences(lead)
        if len((own := content_words(sentence) - skip) & known) >= GROUNDED * len(own)
    ]
    if kept:
        return " ".join(kept)
    said = [sentence for note in notes for sentence in sentences(note)]
    naming = [x for x in said if content_words(title) <= content_words(x)]
    return (naming or said or [lead])[0]


def cite(paragraph: str, markers: Sequence[int]) -> str:
    """`paragraph` with its sources' `[^N]` markers after its last sentence."""
    return paragraph + "".join(f"[^{n}]" for n in markers)


def alias_list(title: str, surfaces: Sequence[str]) -> list[str]:
    """The other names the sources used, as an infobox `aliases:` list may hold them."""
    seen = {heading_key(title)}
    out: list[str] = []
    for s in surfaces:
        name = " ".join(s.split())
        bad = any(c in _MARKUP or c in ",:" for c in name) or leaks("", name)
        if not name or bad or len(name) > HEADING_CHARS or heading_key(name) in seen:
            continue
        seen.add(heading_key(name))
        out.append(name)
    return out
