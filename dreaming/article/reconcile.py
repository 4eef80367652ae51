"""RECONCILE's text half: the infobox brought to what the article's cited sentences say,
the latest dated statement winning, and a sentence still stating a superseded position
scoped to when it held, with the trace kept under `## History`. The model's part (which
proposals a sentence really states) is decided before; this only applies the yeses.
Pure functions.

A value already in the infobox stays unless the article's own sentences could have put
it there (then the newer statement replaces it): a value a person wrote is never
overwritten, and where it disagrees with the newest sentence that is reported as
unresolved, not forced.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from dreaming.article.cited import sentences
from dreaming.article.document import LEAD, Article, Section, infobox_malformed, render, tail_rank
from dreaming.article.fields import STATUS, Proposal
from dreaming.article.history import HISTORY, as_of, trace_line, with_trace
from dreaming.article.keep import Part
from dreaming.article.markup import MARKER
from dreaming.article.titles import heading_key


@dataclass(frozen=True)
class Settled:
    text: str
    touched: tuple[str | Part, ...]
    changed: tuple[str, ...]
    """What changed, field by field, for the run report."""
    unresolved: tuple[str, ...]
    """What could not be settled, with the citations on each side."""


def settle(
    article: Article,
    fields: Sequence[tuple[str, str]],
    judged: Sequence[Proposal],
    derivable: Mapping[str, set[str]],
) -> Settled:
    """The article with `judged` (proposals the model said yes to) applied; `derivable` is
    every value proposed for each field, judged or not (what we could have written)."""
    original = render(article)
    if article.infobox is None or infobox_malformed(article):
        return Settled(original, (), (), ())
    box = list(article.infobox)
    changed: list[str] = []
    unresolved: list[str] = []
    latest_status: Proposal | None = None
    for name, kind in fields:
        mine = [p for p in judged if p.field == name]
        if not mine:
            continue
        at = next((i for i, (k, _) in enumerate(box) if k == name), None)
        current = box[at][1].strip() if at is not None else None
        if kind in ("list", "link"):
            value = _joined(current, [p.value for p in mine])
        else:
            winner, tie = _latest(mine)
            if tie is not None:
                unresolved.append(_tie(name, winner, tie))
                continue
            keep_theirs = current and current != winner.value and current not in derivable[name]
            if keep_theirs:
                unresolved.append(
                    f"{name}: the infobox says {current!r} (not from this article's "
                    f"sentences); {_cite(winner)} says {winner.value!r}"
                )
                continue
            value = winner.value
            if name == STATUS:
                latest_status = winner
        if value == current:
            continue
        changed.append(f"{name}: {value}")
        if at is None:
            box.append((name, value))
        else:
            box[at] = (name, value)
    out = replace(article, infobox=tuple(box))
    touched: list[str | Part] = [Part.INFOBOX] if changed else []
    if latest_status is not None:
        out, dated = _dated(out, [p for p in judged if p.field == STATUS], latest_status)
        touched += dated
        if dated:
            changed.append("history: " + latest_status.value)
    return Settled(render(out), tuple(touched), tuple(changed), tuple(unresolved))


_FORWARD = {"planned": 0, "in progress": 1, "finished": 2}
"""Positions one conversation moves through in this order only: a source saying both
"planned" and "started" says it started."""


def _latest(proposals: Sequence[Proposal]) -> tuple[Proposal, Proposal | None]:
    """The newest proposal, and another of the same date saying otherwise (a tie); of
    two positions one source gives, the further one along."""
    date = max(p.cited.date for p in proposals)
    newest = [p for p in proposals if p.cited.date == date]
    forward = all(p.field == STATUS and p.value in _FORWARD for p in newest)
    if forward and len({p.cited.labels for p in newest}) == 1:
        newest = [max(newest, key=lambda p: _FORWARD[p.value])]
    first = newest[-1]
    tie = next((p for p in newest if p.value.casefold() != first.value.casefold()), None)
    return first, tie


def _tie(name: str, one: Proposal, other: Proposal) -> str:
    return (
        f"{name}: {_cite(one)} says {one.value!r} and {_cite(other)} says "
        f"{other.value!r}, both of {one.cited.date or 'no date'}"
    )


def _cite(p: Proposal) -> str:
    return "".join(f"[^{label}]" for label in p.cited.labels)


def _joined(current: str | None, values: Sequence[str]) -> str:
    """A comma list with `values` added where not already in it (same words, any case)."""
    have = [v.strip() for v in (current or "").split(",") if v.strip()]
    seen = {heading_key(v) for v in have}
    for value in values:
        if heading_key(value) not in seen:
            seen.add(heading_key(value))
            have.append(value)
    return ", ".join(have)


def _dated(
    article: Article, statuses: Sequence[Proposal], latest: Proposal
) -> tuple[Article, list[str]]:
    """Every sentence stating an older position scoped "As of <month>, …", and the trace
    of positions under `## History`, when the position changed at all."""
    older = [
        p
        for p in statuses
        if p.cited.date < latest.cited.date and p.value.casefold() != latest.value.casefold()
    ]
    if not older:
        return article, []
    touched: list[str] = []
    headings = [LEAD, *(s.heading for s in article.sections)]
    lead = _led(article, statuses, latest)
    if lead != article.lead:
        touched.append(LEAD)
    bodies = [lead, *(s.body for s in article.sections)]
    prose = [article.lead, *(s.body for s in article.sections if tail_rank(s) == 0)]
    names = names_in(prose) | set((article.title or "").split())
    for p in older:
        at = next(
            (
                i
                for i, h in enumerate(headings)
                if h == p.cited.heading
                and _sentence_at(bodies[i], p.cited.sentence, p.cited.labels) >= 0
            ),
            None,
        )
        dated = as_of(p.cited.sentence, p.cited.date, names)
        where = -1 if at is None else _sentence_at(bodies[at], p.cited.sentence, p.cited.labels)
        if at is not None and where >= 0 and dated != p.cited.sentence:
            end = where + len(p.cited.sentence)
            bodies[at] = bodies[at][:where] + dated + bodies[at][end:]
            touched.append(p.cited.heading)
    sections = [
        s if s.body == body else replace(s, body=body)
        for s, body in zip(article.sections, bodies[1:], strict=True)
    ]
    trace = _trace(statuses)
    history = next((s for s in sections if heading_key(s.heading) == heading_key(HISTORY)), None)
    if history is None:
        at = next((i for i, s in enumerate(sections) if tail_rank(s) > 0), len(sections))
        sections.insert(at, Section(HISTORY, body="\n".join(trace)))
        touched.append(HISTORY)
    else:
        body = with_trace(history.body, trace)
        if body != history.body:
            sections[sections.index(history)] = replace(history, body=body)
            touched.append(history.heading)
    out = replace(article, lead=bodies[0], sections=tuple(sections))
    return out, list(dict.fromkeys(touched))


def _sentence_at(body: str, sentence: str, labels: Sequence[str]) -> int:
    """Where `sentence` stands in `body` as a whole sentence (not the tail of a longer
    one), at the one its own markers follow where there is one; -1 where it stands not."""
    whole = rf"(?<!\S){re.escape(sentence)}"
    marks = "".join(rf"[ \t]{{0,3}}\[\^{re.escape(label)}\]" for label in labels)
    for pattern in (whole + marks, whole):
        if (m := re.search(pattern, body)) is not None:
            return m.start()
    return -1


LEAD_POSITION_WORDS = 25


def _led(article: Article, statuses: Sequence[Proposal], latest: Proposal) -> str:
    """The lead saying the latest position: the sentence that states it, with its
    citations, after the lead's first paragraph, in place of an older position's
    sentence copied there before (the body keeps that one); unless the lead holds it."""
    lead = article.lead
    body = "\n".join(s.body for s in article.sections)
    for p in statuses:
        copied = p.cited.sentence + _cite(p)
        if p.cited.heading == LEAD and p.value != latest.value and p.cited.sentence in body:
            lead = lead.replace(f" {copied}", "", 1)
    if any(p.cited.heading == LEAD and p.value == latest.value for p in statuses):
        return lead
    sentence = latest.cited.sentence
    if len(sentence.split()) > LEAD_POSITION_WORDS or sentence in lead:
        return lead
    first, gap, rest = lead.partition("\n\n")
    return f"{first.rstrip()} {sentence}{_cite(latest)}{gap}{rest}" if first.strip() else lead


def date_block(block: str, dates: Mapping[str, str], names: Collection[str]) -> str:
    """Each cited present-tense sentence of `block` scoped to the month of its newest
    source (`dates`: footnote label → YYYY-MM-DD): what a changed position does to the
    text it supersedes. Words, markers and every other byte stay."""
    out: list[str] = []
    at = 0
    for sentence, marks in sentences(block):
        labels = MARKER.findall(marks)
        when = max((dates.get(label, "") for label in labels), default="")
        dated = as_of(sentence, when, names) if labels else sentence
        where = block.find(sentence, at)
        out += [block[at:where], dated]
        at = where + len(sentence)
    return "".join([*out, block[at:]])


def names_in(blocks: Sequence[str]) -> set[str]:
    """The words the blocks write with a capital where no sentence starts: names."""
    return {
        word
        for block in blocks
        for sentence, _ in sentences(" ".join(block.split()))
        for word in sentence.split()[1:]
        if word[:1].isupper()
    }


def _trace(statuses: Sequence[Proposal]) -> list[str]:
    """One line a date's position (settled as the infobox settles it), oldest first; a
    position said again is one line."""
    lines: list[str] = []
    last = ""
    for date in sorted({p.cited.date for p in statuses if p.cited.date}):
        p, _ = _latest([p for p in statuses if p.cited.date == date])
        if p.value.casefold() != last:
            last = p.value.casefold()
            lines.append(trace_line(p.cited.date, p.value, p.cited.labels))
    return lines
