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
from dataclasses import dataclass, replace

from dreaming.article.cited import sentences, structure_line
from dreaming.article.document import LEAD, Article, parse, render, tail_rank
from dreaming.article.fences import code_flags, detect_eol, line_content, mask_code, split_lines
from dreaming.article.layout import clean_block
from dreaming.article.markup import MARKER, unlinked, wikilinks
from dreaming.article.queries import aliases
from dreaming.article.titles import heading_key, title_for_stem
from dreaming.article.words import STOPWORDS, words

NEAR = 0.75
"""The share of a sentence's content words an earlier sentence must hold before the
model is asked whether the rest adds anything."""
MIN_WORDS = 3
"""A sentence with fewer content words is too short to call a repeat of anything."""
_NEGATION = re.compile(
    r"\b(?:not|no|never|without|cannot|none|nor|neither)\b|\b\w+n['\u2019]t\b", re.IGNORECASE
)
_NUMBER = re.compile(r"\d(?:[\w.,:/-]*\d)?")
"""A number as written, dates and versions whole: "2026-03-04", "3/4/2026", "3.5"."""
_EDGES = "\"'()[]{}.,;:!?*_"
_CODE = re.compile(r"`[^`\n]+`")
_PLAIN = re.compile(r"[^\s|>#*+\-\d`<$%]")
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
    another repeat; an "It …" after a sentence opening with the title is compared as
    the title's, as `without` would leave it."""
    blocks = _blocks(article)
    names = [n for n in (article.title or "", *aliases(article)) if n]
    lead = _Pool()
    for n, said in blocks.pop(LEAD).items():
        for i, (t, _) in enumerate(said):
            lead.add((LEAD, n, i), t, _facts(t))
    kept = _Pool()
    out: list[Repeat] = []
    for heading, lines in blocks.items():
        opens = True  # no sentence of this section kept yet: the next one opens it
        for n, said in lines.items():
            for i, (text, _) in enumerate(said):
                compared = text
                if i and names and _IT.match(text) and _opens_with(said[i - 1][0], names):
                    compared = _named(text, names[0])
                mine = _facts(compared)
                found = _earlier(compared, mine, (lead, kept) if opens else (kept,))
                if found is None:
                    kept.add((heading, n, i), text, mine)
                    opens = False
                else:
                    where, earlier, sure = found
                    out.append(Repeat((heading, n, i), text, where, earlier, sure))
                    # What it says stands where it was said first, for a later copy.
                    kept.add(where, text, mine)
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
    bare = {h for h in changed if h != LEAD and not MARKER.search(mask_code(_body(after, h)))}
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
    if not changed:
        return text, ()
    # Every changed part rewritten at once, the article rendered once: a section at a
    # time re-parsed the whole text each time (quadratic in a long article).
    eol = detect_eol(text)
    bodies = {h: clean_block(_rewritten(_body(article, h), blocks[h], eol), eol) for h in changed}
    sections, seen = [], set()
    for section in article.sections:
        body = bodies.get(section.heading) if section.heading not in seen else None
        seen.add(section.heading)
        sections.append(section if body is None else replace(section, body=body))
    lead = bodies.get(LEAD, article.lead)
    return render(replace(article, lead=lead, sections=tuple(sections))), tuple(changed)


At = tuple[str, int, int]
_Lines = dict[int, list[tuple[str, str]]]


def _blocks(article: Article) -> dict[str, _Lines]:
    """heading → {line number: its sentences and their markers} for the lead and every
    body section, prose lines only."""
    out = {LEAD: _prose_lines(article.lead)}
    seen = {LEAD}
    for s in article.sections:
        key = heading_key(s.heading)
        # Sections are found again by key: one whose key another has (or the lead's,
        # "") cannot be told apart, so it is never cut.
        if key not in seen and tail_rank(s) == 0 and key != _HISTORY:
            out[s.heading] = _prose_lines(s.body)
        seen.add(key)
    return out


def _body(article: Article, heading: str) -> str:
    if heading == LEAD:
        return article.lead
    return next(s.body for s in article.sections if s.heading == heading)


def _prose_lines(body: str) -> _Lines:
    """The lines that are plain prose and nothing else, each a paragraph of its own: not
    code or a comment (nor a line one shares), a list, quote, table, HTML or math line,
    or a line with another right before or after it."""
    lines = split_lines(body)
    contents = [line_content(x) for x in lines]
    masked = split_lines(mask_code(body, inline=False))
    out: _Lines = {}
    previous = ""
    for n, (text, code) in enumerate(zip(contents, code_flags(lines), strict=True)):
        after = contents[n + 1] if n + 1 < len(contents) else ""
        plain = (
            not code
            and text == text.strip()
            and _PLAIN.match(text[:1]) is not None
            and n < len(masked)
            and line_content(masked[n]) == text
            and "|" not in text
            and not structure_line(text)
            # A paragraph of one line: a wrapped one's sentences cite across its lines,
            # and a line beside another may be a quote's, a list's or a setext heading's.
            and not previous.strip()
            and not after.strip()
        )
        previous = text
        if plain and (said := sentences(text)):
            out[n] = said
    return out


def _earlier(sentence: str, mine: _Facts, pools: Sequence[_Pool]) -> tuple[At, str, bool] | None:
    """The earlier sentence this one repeats (where, its text) and whether surely; None if
    none does. Only sentences sharing enough of its words are compared: linear in the
    article for all but its commonest words."""
    # A marker inside the sentence (not after it) cites a part of it, and one opening
    # in lower case is the tail of a sentence cut at "e.g." or "3." : never left out.
    if len(mine.words) < MIN_WORDS or MARKER.search(sentence) or sentence[:1].islower():
        return None
    need = NEAR * len(mine.words)
    near = None
    for pool in pools:
        for k, shared in pool.sharing(mine.words):
            at, text, theirs = pool.items[k]
            if shared < need or mine.negations != theirs.negations:
                continue
            if not mine.exact <= theirs.held:
                continue
            if shared == len(mine.words):
                return at, text, True
            if near is None:
                near = (at, text, False)
    return near


class _Pool:
    """Sentences said so far, with their facts and which of them hold each word."""

    def __init__(self) -> None:
        self.items: list[tuple[At, str, _Facts]] = []
        self._holding: dict[str, list[int]] = {}

    def add(self, at: At, text: str, facts: _Facts) -> None:
        for word in facts.words:
            self._holding.setdefault(word, []).append(len(self.items))
        self.items.append((at, text, facts))

    def sharing(self, words: frozenset[str]) -> list[tuple[int, int]]:
        """(index, how many of `words` it holds) of every sentence holding one, oldest
        first."""
        counts: dict[int, int] = {}
        for word in words:
            for k in self._holding.get(word, ()):
                counts[k] = counts.get(k, 0) + 1
        return sorted(counts.items())


@dataclass(frozen=True, slots=True)
class _Facts:
    words: frozenset[str]
    """Every word but the stop words, however short ("Go" is no "Rust")."""
    exact: frozenset[str]
    """What must stand as written in the earlier sentence: each name (a capitalised word
    not opening the sentence), number as one token ("2026-03-04" is no "2026-04-03"),
    code span and link."""
    held: frozenset[str]
    """The same, the opening word included: what an earlier sentence can stand for."""
    negations: frozenset[str]


def _facts(sentence: str) -> _Facts:
    plain = MARKER.sub("", unlinked(sentence))
    said = words(plain)
    negations = {m.casefold().replace("\u2019", "'") for m in _NEGATION.findall(plain)}
    tokens = [w.strip(_EDGES) for w in plain.split()]
    names = {w for w in tokens[1:] if w[:1].isupper()}
    fixed = {
        *_NUMBER.findall(plain),
        *_CODE.findall(sentence),
        *(link.target.casefold() for link in wikilinks(sentence)),
    }
    held = {*fixed, *names, *(w for w in tokens[:1] if w[:1].isupper())}
    kept = {w for w in said if w not in STOPWORDS}
    return _Facts(
        frozenset(kept), frozenset({*fixed, *names}), frozenset(held), frozenset(negations)
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


_IT = re.compile(r"^(It|Its)\b(?!['\u2019])")
""""It" or "Its" opening a sentence; "It's" is left as it is ("Beads's" is no word)."""


def _named(sentence: str, title: str) -> str:
    return _IT.sub(lambda m: title if m.group(1) == "It" else f"{title}'s", sentence, count=1)


def _rewritten(body: str, lines: _Lines, eol: str) -> str:
    """`body` with its prose lines as `lines` say; a line left with no sentence goes, and
    a blank line with it where two would meet."""
    out: list[str] = []
    dropped = False
    for n, line in enumerate(split_lines(body)):
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
    return eol.join(out)
