"""EDITORIAL's tighten: a body sentence that repeats an earlier one of the body, or a
section that opens with the lead's sentence (a stub's lead drafted from its only
paragraph), loses it, its citation kept. Pure functions.

Code finds the repeats and decides the sure ones: the same sentence, or one whose every
content word, number and negation an earlier sentence already holds, says nothing the
reader has not read. A sentence that shares most of its words with an earlier one but
not all is a question for the model (`Repeat.sure` False): the caller asks it and
passes only the ones it may drop. Nothing is reworded: a sentence stays as written or
goes, so no number, name, date or code block can be lost or changed by a tighten.
Only plain prose lines are touched: lists, quotes, tables, code, templates and the
sections at the end (See also, Notes, References) and `## History` stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.article.cited import sentences, structure_line
from dreaming.article.document import LEAD, Article, parse, tail_rank
from dreaming.article.fences import code_flags, detect_eol, line_content, split_lines
from dreaming.article.markup import (
    MARKER,
    unlinked,
)
from dreaming.article.queries import aliases
from dreaming.article.sections import replace_section
from dreaming.article.titles import heading_key, title_for_stem
from dreaming.article.words import content_words, words

NEAR = 0.75
"""The share of a sentence's content words an earlier sentence must hold before the
model is asked whether the rest adds anything."""
MIN_WORDS = 3
"""A sentence with fewer content words is too short to call a repeat of anything."""
_NEGATIONS = frozenset(("not", "no", "never", "without", "cannot", "none", "nor", "neither"))
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_PLAIN = re.compile(r"[^\s|>#*+\-\d`]")
"""A prose line starts with a letter (or a link, a quote mark): not a list, quote or table."""
_HISTORY = "history"


@dataclass(frozen=True, slots=True)
class Repeat:
    """A body sentence that repeats an earlier one."""

    at: At
    """Where it stands: section heading, line number in the section's body, sentence
    number in that line."""
    sentence: str
    """As written, its markers left out."""
    earlier_at: At
    earlier: str
    """The sentence it repeats, as written."""
    sure: bool
    """True: it adds no word; False: most of its words, for the model to judge."""


def repeats(article: Article) -> list[Repeat]:
    """Every body sentence that repeats an earlier body sentence, or that opens its
    section with the lead's words (a lead summarises its body, so a lead sentence said
    again later is no repeat: RECONCILE puts the latest position there on purpose), in
    reading order. A repeat is compared with the sentences kept before it, never with
    another repeat."""
    blocks = _blocks(article)
    lead = [
        ((LEAD, n, i), t) for n, said in blocks.pop(LEAD).items() for i, (t, _) in enumerate(said)
    ]
    kept: list[tuple[At, str]] = []
    out: list[Repeat] = []
    for heading, lines in blocks.items():
        opens = True  # no sentence of this section kept yet: the next one opens it
        for n, said in lines.items():
            for i, (text, _) in enumerate(said):
                found = _earlier(text, [*lead, *kept] if opens else kept)
                if found is None:
                    kept.append(((heading, n, i), text))
                    opens = False
                else:
                    (where, earlier), sure = found
                    out.append(Repeat((heading, n, i), text, where, earlier, sure))
                    # What it says stands where it was said first, for a later copy.
                    kept.append((where, text))
    return out


def without(text: str, dropped: Sequence[Repeat], stem: str = "") -> tuple[str, tuple[str, ...]]:
    """`text` with the `dropped` repeats left out, and the sections it changed (LEAD among
    them when a citation moved there). A dropped sentence's markers go to the unmarked
    sentence before it in its line (they cited it too), else to the sentence it repeats;
    a section keeps at least one of its sentences and one citation (code alone is no
    section, and every section cites its source). `stem` names the
    article, for a pronoun that now opens a line ("It solves …" after "Beads is …"
    went: "Beads solves …")."""
    out, changed = _without(text, dropped, stem)
    after = parse(out)
    bare = {h for h in changed if h != LEAD and not MARKER.search(_body(after, h))}
    if bare:
        return without(text, [r for r in dropped if r.at[0] not in bare], stem)
    return out, changed


def _without(text: str, dropped: Sequence[Repeat], stem: str) -> tuple[str, tuple[str, ...]]:
    article = parse(text)
    title = article.title or title_for_stem(stem)
    names = [title, *aliases(article)]
    blocks = _blocks(article)
    wanted = [r for r in dropped if r.at[0] != LEAD and _holds(blocks, r.at)]
    gone = {r.at for r in wanted}
    wanted = [r for r in wanted if not _empties(blocks, r.at[0], gone)]
    changed: dict[str, None] = {}
    for r in sorted(wanted, key=lambda r: _place(blocks, r.at)):
        heading, n, i = r.at
        said = blocks[heading][n]
        sentence, marks = said[i]
        said[i] = ("", "")
        changed[heading] = None
        if marks:
            home = _unmarked_before(said, i)
            at = (heading, n, home) if home is not None else r.earlier_at
            t, m = blocks[at[0]][at[1]][at[2]]
            if (joined := _join_marks(m, marks)) != m:
                blocks[at[0]][at[1]][at[2]] = (t, joined)
                changed[at[0]] = None
        rest = [j for j, (t, _) in enumerate(said) if t]
        if rest and rest[0] > i and _opens_with(sentence, names):
            first = rest[0]
            said[first] = (_named(said[first][0], title), said[first][1])
    out = text
    for heading in sorted(changed, key=lambda h: h != LEAD):
        out = _rewritten(out, heading, blocks[heading])
    return out, tuple(changed)


At = tuple[str, int, int]
_Lines = dict[int, list[tuple[str, str]]]


def _blocks(article: Article) -> dict[str, _Lines]:
    """heading → {line number: its sentences and their markers} for the lead and every
    body section, prose lines only."""
    out = {LEAD: _prose_lines(article.lead)}
    for s in article.sections:
        if tail_rank(s) == 0 and heading_key(s.heading) != _HISTORY:
            out.setdefault(s.heading, _prose_lines(s.body))
    return out


def _body(article: Article, heading: str) -> str:
    if heading == LEAD:
        return article.lead
    return next(s.body for s in article.sections if s.heading == heading)


def _prose_lines(body: str) -> _Lines:
    lines = split_lines(body)
    out: _Lines = {}
    for n, (line, code) in enumerate(zip(lines, code_flags(lines), strict=True)):
        text = line_content(line)
        if code or text != text.strip() or not _PLAIN.match(text[:1]) or structure_line(text):
            continue
        said = sentences(text)
        if said:
            out[n] = said
    return out


def _earlier(sentence: str, kept: Sequence[tuple[At, str]]) -> tuple[tuple[At, str], bool] | None:
    """The earlier sentence this one repeats, and whether surely; None if none does."""
    mine = _facts(sentence)
    if len(mine.words) < MIN_WORDS:
        return None
    near: tuple[tuple[At, str], bool] | None = None
    for k in kept:
        theirs = _facts(k[1])
        if mine.negations != theirs.negations or not mine.numbers <= theirs.numbers:
            continue
        if mine.words <= theirs.words:
            return k, True
        if near is None and len(mine.words & theirs.words) >= NEAR * len(mine.words):
            near = (k, False)
    return near


@dataclass(frozen=True, slots=True)
class _Facts:
    words: frozenset[str]
    numbers: frozenset[str]
    negations: frozenset[str]


def _facts(sentence: str) -> _Facts:
    plain = MARKER.sub("", unlinked(sentence))
    said = words(plain)
    negations = {w for w in said if w in _NEGATIONS or w.endswith("n't")}
    return _Facts(
        frozenset(content_words(plain)), frozenset(_NUMBER.findall(plain)), frozenset(negations)
    )


def _holds(blocks: dict[str, _Lines], at: At) -> bool:
    heading, n, i = at
    return n in blocks.get(heading, {}) and 0 <= i < len(blocks[heading][n])


def _place(blocks: dict[str, _Lines], at: At) -> tuple[int, int, int]:
    return (list(blocks).index(at[0]), at[1], at[2])


def _empties(blocks: dict[str, _Lines], heading: str, gone: set[At]) -> bool:
    """Whether leaving out `gone` would leave the section `heading` no sentence."""
    return all(
        (heading, n, i) in gone for n, said in blocks[heading].items() for i in range(len(said))
    )


def _unmarked_before(said: list[tuple[str, str]], i: int) -> int | None:
    """The sentence before `i` in its line that the marker after `i` also cited: the
    nearest one still there, when it carries no marker of its own."""
    for j in range(i - 1, -1, -1):
        t, m = said[j]
        if t:
            return None if m else j
    return None


def _join_marks(have: str, add: str) -> str:
    known = set(MARKER.findall(have))
    return have + "".join(f"[^{m}]" for m in MARKER.findall(add) if m not in known)


def _opens_with(sentence: str, names: Sequence[str]) -> bool:
    start = unlinked(sentence).lower()
    return any(name and start.startswith(name.lower() + " ") for name in names)


_IT = re.compile(r"^(It|Its)\b")


def _named(sentence: str, title: str) -> str:
    return _IT.sub(lambda m: title if m.group(1) == "It" else f"{title}'s", sentence, count=1)


def _rewritten(text: str, heading: str, lines: _Lines) -> str:
    """`text` with the prose lines of `heading` as `lines` say; a line left with no
    sentence goes, and a blank line with it where two would meet."""
    eol = detect_eol(text)
    out: list[str] = []
    dropped = False
    for n, line in enumerate(split_lines(_body(parse(text), heading))):
        content = line_content(line)
        if n in lines:
            said = " ".join(f"{t}{m}" for t, m in lines[n] if t)
            if not said:
                dropped = True
                continue
            content = said
        if dropped and not content.strip() and (not out or not out[-1].strip()):
            dropped = False
            continue
        dropped = False
        out.append(content)
    return replace_section(text, heading, eol.join(out))
