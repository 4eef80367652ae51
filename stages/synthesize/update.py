"""SYNTHESIZE UPDATE: an existing article revised with a bucket's whole delta at once.

Shaped for a small model that judges yes/no well and writes structure badly:

- ROUTE: one constrained yes/no per section (the lead included; History and the
  structural tails excluded) over the section's opening and the delta's labels.
- PATCH: each yes section gets ONE replacement drafted from the whole delta. The
  model sees the section and the excerpts numbered; code maps its `[N]` back to
  footnote labels, cites every new paragraph, writes the definition lines and
  swaps exactly that section, leaving every other byte as it was.
- Contradictions: a yes/no, then one Choice. A changed position keeps a `## History`
  line citing the earlier and the newer sources (the default when unsure); a
  mistake is corrected silently, and a citation it no longer needs may go.
- All no: a yes/no "substantive?"; yes makes a new section named from the delta's
  labels by code, never a silent drop.

An answer that is no section prose leaves its section as it was, and a section
whose change the write gate would refuse is left out, so what comes back passes
the gate. ModelCallError (a runaway draft) costs only its section; a yes/no or
Choice the seam cannot give, and BudgetExhausted, propagate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from dreaming.article import LEAD, Article, Part, check, normalize, parse, stem_for_title
from dreaming.article.document import NOTES, REFERENCES, SEE_ALSO, tail_rank
from dreaming.article.fences import detect_eol
from dreaming.article.markup import conv_hashes, definitions, markers, parse_footnote, words
from dreaming.article.queries import article_markers, prose
from dreaming.article.sections import add_section, replace_section
from dreaming.article.titles import heading_key
from dreaming.model import Choice, Constraint, Lines, ModelCallError, TextModel
from stages.prompts import update as prompt
from stages.synthesize.sources import Source, numbered
from stages.synthesize.update_text import (
    WORDS_PER_SOURCE,
    Split,
    cite,
    heading_from,
    join_body,
    opening,
    relabel,
    show_markers,
    split_body,
    top_label,
    usable,
    with_definitions,
)

HISTORY = "History"
YES_NO = Choice(("yes", "no"))
KIND = Choice(prompt.KIND_OPTIONS)
PROSE = Lines(max_lines=6, max_chars=600)
"""A replacement: a few paragraphs, one a line; the bound ends a ramble in decoding."""
SENTENCE = Lines(max_lines=1, max_chars=400)
EXCERPT_CHARS = 6000
"""All excerpts of one drafting prompt together: about 1.5k tokens, which a small
model on a CPU reads in seconds."""
GIST_CHARS = 160

Mode = Literal["add", "changed", "mistake"]


@dataclass(frozen=True)
class Revision:
    text: str
    """The whole new article text."""
    touched: tuple[str | Part, ...]
    """Headings changed (LEAD for the lead) and Parts."""
    allow_dropped: tuple[str, ...] = ()
    """Conversation hashes deliberately no longer cited (a corrected mistake)."""


@dataclass(frozen=True)
class _Target:
    heading: str
    """As the article writes it; LEAD for the lead."""
    split: Split
    labels: tuple[str, ...]
    """The footnote labels its prose cites, in order of first citation."""


@dataclass(frozen=True)
class _Change:
    heading: str
    body: str
    new: bool = False
    history: str | None = None


class _Ask:
    """The model calls of one revision, all for one unit."""

    def __init__(self, model: TextModel, stage: str, unit: str) -> None:
        self._model, self._stage, self._unit = model, stage, unit
        self.calls = 0

    def answer(self, system: str, user: str, constraint: Constraint) -> str:
        self.calls += 1
        done = self._model.complete(
            self._stage, system, user, unit=self._unit, constraint=constraint
        )
        return done.text.strip()

    def yes(self, system: str, user: str) -> bool:
        return self.answer(system, user, YES_NO) == "yes"

    def prose(self, system: str, user: str, constraint: Constraint) -> str | None:
        try:
            return self.answer(system, user, constraint)
        except ModelCallError:
            return None


def revise(
    model: TextModel,
    text: str,
    title: str,
    sources: Sequence[Source],
    *,
    unit: str,
    stage: str = "synthesize",
) -> Revision | None:
    """The article `text` updated with the whole delta `sources` (oldest first); None when
    the delta changes nothing (all-no and not substantive, or nothing usable drafted).
    Raises ModelCallError / BudgetExhausted as the seam does."""
    if not sources:
        return None
    ask = _Ask(model, stage, unit)
    article = parse(text)
    top = top_label(text)
    fresh = [str(top + 1 + i) for i in range(len(sources))]
    gists = [_gist(s) for s in sources]
    targets = _targets(article)
    routed = [
        t
        for t in targets
        if ask.yes(
            prompt.ROUTE_SYSTEM, prompt.route(title, t.heading, opening(t.split.intro), gists)
        )
    ]
    changes: list[_Change] = []
    for target in routed:
        change = _rewrite(ask, article, title, target, sources, fresh)
        if change is not None:
            changes.append(change)
    if not routed and ask.yes(prompt.SUBSTANTIVE_SYSTEM, prompt.substantive(title, gists)):
        taken = [s.heading for s in article.sections] + [SEE_ALSO, NOTES, REFERENCES, HISTORY]
        change = _new_section(
            ask, title, heading_from([s.label for s in sources], taken), sources, fresh
        )
        if change is not None:
            changes.append(change)
    return _settle(text, title, changes, sources, fresh)


def _gist(source: Source) -> str:
    flat = " ".join(source.text.split())
    cut = flat[:GIST_CHARS] + (" ..." if len(flat) > GIST_CHARS else "")
    return f"{source.label}: {cut}"


def _targets(article: Article) -> list[_Target]:
    """The lead and every `##` body section but History: a History line records a
    change, so rewriting it toward the latest statement would erase the trace."""
    out = [_target(LEAD, split_body(article.lead, lead=True))]
    for s in article.sections:
        if s.level == 2 and not tail_rank(s) and heading_key(s.heading) != heading_key(HISTORY):
            out.append(_target(s.heading, split_body(s.body)))
    return out


def _target(heading: str, split: Split) -> _Target:
    return _Target(heading, split, tuple(dict.fromkeys(markers(split.intro))))


def _excerpts(sources: Sequence[Source], first: int) -> str:
    share = max(600, EXCERPT_CHARS // len(sources))
    trimmed = [
        replace(s, text=s.text if len(s.text) <= share else s.text[:share] + " [...]")
        for s in sources
    ]
    return numbered(trimmed, first=first)


def _earlier(article: Article, labels: Sequence[str]) -> list[str]:
    """What the prompt lists for each citation the section already has."""
    found = {
        d.label: d
        for b in (article.lead, *(s.body for s in article.sections))
        for d in definitions(b)
    }
    out = []
    for i, label in enumerate(labels, 1):
        d = found.get(label)
        foot = parse_footnote(d) if d is not None else None
        what = f"({foot.date}) {foot.desc}" if foot is not None else (d.text if d else "")
        out.append(f"[{i}] {' '.join(what.split())[:GIST_CHARS]}")
    return out


def _rewrite(
    ask: _Ask,
    article: Article,
    title: str,
    target: _Target,
    sources: Sequence[Source],
    fresh: Sequence[str],
) -> _Change | None:
    k = len(target.labels)
    shown = show_markers(target.split.intro, {lb: i for i, lb in enumerate(target.labels, 1)})
    excerpts = _excerpts(sources, k + 1)
    mode: Mode = "add"
    if target.split.intro and not ask.yes(
        prompt.CONFLICT_SYSTEM, prompt.agrees(show_markers(target.split.intro, {}), excerpts)
    ):
        said = ask.answer(
            prompt.KIND_SYSTEM, prompt.kind(title, target.heading, shown, excerpts), KIND
        )
        mode = "mistake" if said == "mistake" else "changed"
    note = {"add": "", "changed": prompt.CHANGED_NOTE, "mistake": prompt.MISTAKE_NOTE}[mode]
    user = prompt.draft(
        title, target.heading, shown, _earlier(article, target.labels), excerpts, note
    )
    answer = ask.prose(prompt.DRAFT_SYSTEM, user, PROSE)
    limit = words(target.split.intro) + WORDS_PER_SOURCE * len(sources) + 50
    paras = None if answer is None else usable(answer, k + len(sources), limit, shown)
    if paras is None:
        return None
    labels = {i: lb for i, lb in enumerate(target.labels, 1)}
    labels |= {k + 1 + j: lb for j, lb in enumerate(fresh)}
    intro = relabel(paras, labels, fresh, target.split.intro)
    cited = set(markers(intro))
    new_cited = [lb for lb in fresh if lb in cited]
    if not new_cited:
        return None
    lost = [lb for lb in target.labels if lb not in cited]
    history = None
    if mode == "changed":
        said_before = ask.prose(
            prompt.HISTORY_SYSTEM,
            prompt.history(title, target.heading, shown, excerpts),
            SENTENCE,
        )
        line = None if said_before is None else usable(said_before, k + len(sources), 80)
        if line is None:
            return None
        history = cite(line[0], [*target.labels, *new_cited])
    elif lost and mode == "add":
        return None
    return _Change(target.heading, join_body(target.split, intro, article.eol), history=history)


def _new_section(
    ask: _Ask, title: str, heading: str | None, sources: Sequence[Source], fresh: Sequence[str]
) -> _Change | None:
    if heading is None:
        return None
    user = prompt.draft(title, heading, "", [], _excerpts(sources, 1), "")
    answer = ask.prose(prompt.DRAFT_SYSTEM, user, PROSE)
    limit = WORDS_PER_SOURCE * len(sources) + 50
    paras = None if answer is None else usable(answer, len(sources), limit)
    if paras is None:
        return None
    labels = {1 + j: lb for j, lb in enumerate(fresh)}
    return _Change(heading, relabel(paras, labels, fresh, ""), new=True)


def _settle(
    text: str,
    title: str,
    changes: Sequence[_Change],
    sources: Sequence[Source],
    fresh: Sequence[str],
) -> Revision | None:
    """The changes applied one by one, each kept only if the write gate accepts the
    article with it: one bad section never costs the others."""
    stem = stem_for_title(title)
    kept: list[_Change] = []
    best: Revision | None = None
    for change in changes:
        trial = _apply(text, [*kept, change], sources, fresh)
        verdict = check(
            text,
            normalize(trial.text, stem=stem),
            touched=trial.touched,
            allow_dropped=trial.allow_dropped,
            stem=stem,
        )
        if verdict.ok:
            kept.append(change)
            best = trial
    return best


def _apply(
    text: str, changes: Sequence[_Change], sources: Sequence[Source], fresh: Sequence[str]
) -> Revision:
    eol = detect_eol(text)
    out = text
    touched: list[str | Part] = []
    for c in changes:
        if c.new:
            out = add_section(out, f"## {c.heading}\n\n{c.body}\n")
        else:
            out = replace_section(out, c.heading, c.body)
        touched.append(c.heading)
    entries = [c.history for c in changes if c.history is not None]
    if entries:
        out = _with_history(out, entries, eol)
        touched.append(HISTORY)
    before = set(article_markers(parse(text)))
    now = set(article_markers(parse(out)))
    add = [s.footnote(int(lb)).line() for s, lb in zip(sources, fresh, strict=True) if lb in now]
    refs = parse(out).section(REFERENCES)
    if refs is not None:
        out = replace_section(
            out, refs.heading, with_definitions(refs.body, add, before - now, eol)
        )
    elif add:
        out = out.rstrip() + eol + eol + f"## {REFERENCES}" + eol + eol + eol.join(add) + eol
        touched.append(REFERENCES)
    dropped = conv_hashes(prose(parse(text))) - conv_hashes(prose(parse(out)))
    return Revision(out, tuple(dict.fromkeys(touched)), tuple(sorted(dropped)))


def _with_history(text: str, entries: Sequence[str], eol: str) -> str:
    block = (eol + eol).join(entries)
    section = parse(text).section(HISTORY)
    if section is None:
        return add_section(text, f"## {HISTORY}\n\n{block}\n")
    body = f"{section.body}{eol}{eol}{block}" if section.body else block
    return replace_section(text, section.heading, body)
