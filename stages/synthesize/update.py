"""SYNTHESIZE UPDATE: an existing article revised with a bucket's whole delta at once.

Shaped for a small model that judges yes/no well and writes structure badly:

- ROUTE: one constrained yes/no per body section (the lead, History and the structural
  tails excluded: the lead is what the article is, the rest is the grammar's) over the
  section's opening and the delta's labels.
- ADD: each yes section gets what the delta establishes, drafted as CREATE drafts, one
  short paragraph an excerpt from that excerpt alone, every sentence checked against
  it (dreaming.article.claims), code appending its marker; a sentence that adds no word
  the section does not say already is left out. The section's text stays byte for
  byte: a small model asked to rewrite a section dropped its markers, echoed the
  prompt, or carried a new word into an old fact ("40 pine boards" became "40 cedar
  boards").
- Contradictions: a yes/no, then one Choice. A changed position scopes each of the
  section's present-tense sentences to the month of its source ("As of March 2026, …")
  before the new paragraph (the default when unsure); a mistake is corrected by one
  replacement of the section (the wrong statement and a citation it no longer needs
  may go), and where that replacement is unusable the new paragraph is added instead.
- All no: a yes/no "substantive?"; yes makes a new section named from the delta's
  labels by code, never a silent drop.

An answer that is no prose leaves its section as it was, and a section whose change
the write gate would refuse is left out, so what comes back passes the gate.
ModelCallError (a runaway draft) costs only its paragraph; a yes/no or Choice the seam
cannot give, and BudgetExhausted, propagate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from dreaming.article import Article, Part, check, claims, normalize, parse, stem_for_title
from dreaming.article.document import LEAD, NOTES, REFERENCES, SEE_ALSO, tail_rank
from dreaming.article.fences import detect_eol
from dreaming.article.markup import MARKER, conv_hashes, definitions, markers, parse_footnote, words
from dreaming.article.queries import article_markers, footnote_defs, prose
from dreaming.article.reconcile import date_block, names_in
from dreaming.article.sections import add_section, replace_section
from dreaming.article.titles import heading_key
from dreaming.article.words import content_words, mention, sentences
from dreaming.languages import ENGLISH, Language, written_in
from dreaming.model import Choice, Constraint, Lines, ModelCallError, TextModel
from stages.prompts import create as create_prompt
from stages.prompts import update as prompt
from stages.synthesize import specifics
from stages.synthesize.proto import clean_draft
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
"""A corrected section: a few paragraphs, one a line; the bound ends a ramble in decoding."""
PARAGRAPH = Lines(max_lines=1, max_chars=480)
"""One drafted paragraph, as CREATE drafts it."""
NEW_WORDS = 1
"""Content words a drafted sentence must add to what the section says to be added."""
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
class NothingNew:
    """`revise`'s answer when the model judged the delta adds nothing to the article: no
    section takes it and it makes no section of its own. An answer, not a failure."""


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


class _Ask:
    """The model calls of one revision, all for one unit."""

    def __init__(self, model: TextModel, stage: str, unit: str, longer: Sequence[str]) -> None:
        self._model, self._stage, self._unit = model, stage, unit
        self.longer = longer
        """Other articles' titles holding the subject's (see `revise`)."""
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
    language: Language = ENGLISH,
    longer: Sequence[str] = (),
) -> Revision | NothingNew | None:
    """The article `text` updated with the whole delta `sources` (oldest first);
    NothingNew when the model judged the delta adds nothing, None when nothing it
    drafted was usable (or there are no sources).
    `longer`: other articles' titles that hold this one ("Claude Code" for Claude): a
    paragraph naming only them is not about this subject. Raises ModelCallError /
    BudgetExhausted as the seam does."""
    if not sources:
        return None
    ask = _Ask(model, stage, unit, longer)
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
        change = _revised(ask, article, title, target, sources, fresh, language)
        if change is not None:
            changes.append(change)
    if not routed:
        if not ask.yes(prompt.SUBSTANTIVE_SYSTEM, prompt.substantive(title, gists)):
            return NothingNew()
        taken = [s.heading for s in article.sections] + [SEE_ALSO, NOTES, REFERENCES, HISTORY]
        heading = heading_from([s.label for s in sources], taken)
        paras = [] if heading is None else _drafted(ask, title, heading, sources, fresh, language)
        if heading is not None and paras:
            changes.append(_Change(heading, "\n\n".join(paras), new=True))
    return _settle(text, title, changes, sources, fresh)


def _gist(source: Source) -> str:
    flat = " ".join(source.text.split())
    cut = flat[:GIST_CHARS] + (" ..." if len(flat) > GIST_CHARS else "")
    return f"{source.label}: {cut}"


def _targets(article: Article) -> list[_Target]:
    """Every `##` body section but History: a History line records a change, so adding
    to it would blur the trace; the lead says what the subject is, and a delta adds to
    the body (a stub with no section gets a new one). A heading that names nothing
    (`## [^2]`) addresses the lead, so its section is no target either."""
    return [
        _target(s.heading, split_body(s.body))
        for s in article.sections
        if s.level == 2
        and not tail_rank(s)
        and heading_key(s.heading) not in (heading_key(HISTORY), LEAD)
    ]


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


def _revised(
    ask: _Ask,
    article: Article,
    title: str,
    target: _Target,
    sources: Sequence[Source],
    fresh: Sequence[str],
    language: Language,
) -> _Change | None:
    k = len(target.labels)
    excerpts = _excerpts(sources, k + 1)
    mode: Mode = "add"
    dates = {str(f.number): f.date for f in footnote_defs(article)}
    newest = max((dates.get(label, "") for label in MARKER.findall(target.split.intro)), default="")
    told = max((s.day for s in sources), default="")
    # The delta is older than what the section says (a history the nights take newest
    # first): it cannot correct it, only be the position that held before.
    older = bool(told and newest and told < newest)
    if target.split.intro and not ask.yes(
        prompt.CONFLICT_SYSTEM, prompt.agrees(show_markers(target.split.intro, {}), excerpts)
    ):
        shown = show_markers(target.split.intro, {lb: i for i, lb in enumerate(target.labels, 1)})
        said = (
            "changed"
            if older
            else ask.answer(
                prompt.KIND_SYSTEM, prompt.kind(title, target.heading, shown, excerpts), KIND
            )
        )
        mode = "mistake" if said == "mistake" else "changed"
    if mode == "mistake":
        corrected = _corrected(ask, article, title, target, excerpts, fresh)
        if corrected is not None:
            return corrected
    paras = _drafted(ask, title, target.heading, sources, fresh, language, target.split.intro)
    if not paras:
        return None
    intro = target.split.intro
    eol = article.eol
    if mode == "changed":
        if older:
            # The older position is the one that no longer holds: dated and put before
            # the section's text, which stands as written; the page reads as if the
            # conversations had come in order.
            days = {label: s.day for s, label in zip(sources, fresh, strict=True)}
            names = names_in([article.lead, *paras])
            before = (eol + eol).join(date_block(p, days, names) for p in paras)
            body = f"{before}{eol}{eol}{intro.lstrip()}" if intro.strip() else before
            return _Change(target.heading, join_body(target.split, body, eol))
        intro = date_block(intro, dates, names_in([article.lead, intro]))
    added = (eol + eol).join(paras)
    body = f"{intro.rstrip()}{eol}{eol}{added}" if intro.strip() else added
    return _Change(target.heading, join_body(target.split, body, eol))


def _drafted(
    ask: _Ask,
    title: str,
    heading: str,
    sources: Sequence[Source],
    fresh: Sequence[str],
    language: Language,
    said: str = "",
) -> list[str]:
    """One paragraph a source, drafted from it alone as CREATE drafts and cited with its
    label by code: the sentences its excerpt holds that add words `said` (the section's
    text) and the paragraphs before do not hold, of a paragraph that names the subject."""
    named = content_words(title)
    have = content_words(said) | named
    out: list[str] = []
    for source, label in zip(sources, fresh, strict=True):
        user = create_prompt.draft(title, heading, source.text, language.name)
        answer = ask.prose(create_prompt.DRAFT_SYSTEM, user, PARAGRAPH)
        paragraph = None if answer is None else clean_draft(answer, create_prompt.echoes(title))
        if paragraph is not None and not written_in(paragraph, language):
            continue
        if paragraph is not None:
            paragraph = claims.keep_supported(sentences(paragraph), source.text, title).text
        paragraph = specifics.with_positions(paragraph, source.text, [title], language)
        if paragraph is None or not content_words(_without(paragraph, ask.longer)) & named:
            # A paragraph that never names the subject is about something else the
            # excerpt discussed ("The renderer's logic …" drafted for Claude), and so is
            # one naming it only inside a longer name ("Claude Code" drafted for Claude).
            continue
        new = [x for x in sentences(paragraph) if len(content_words(x) - have) >= NEW_WORDS]
        if new:
            out.append(cite(" ".join(new), [label]))
            have |= content_words(" ".join(new))
    return out


def _without(text: str, names: Sequence[str]) -> str:
    """`text` with every whole-word mention of `names` taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = mention(name).sub(" ", text)
    return text


def _corrected(
    ask: _Ask,
    article: Article,
    title: str,
    target: _Target,
    excerpts: str,
    fresh: Sequence[str],
) -> _Change | None:
    """The section replaced by one that leaves the mistake out, or None when the model's
    replacement is no section prose or cites nothing new."""
    k = len(target.labels)
    shown = show_markers(target.split.intro, {lb: i for i, lb in enumerate(target.labels, 1)})
    user = prompt.draft(
        title,
        target.heading,
        shown,
        _earlier(article, target.labels),
        excerpts,
        prompt.MISTAKE_NOTE,
    )
    answer = ask.prose(prompt.DRAFT_SYSTEM, user, PROSE)
    limit = words(target.split.intro) + WORDS_PER_SOURCE * len(fresh) + 50
    paras = None if answer is None else usable(answer, k + len(fresh), limit, shown)
    if paras is None:
        return None
    labels = {i: lb for i, lb in enumerate(target.labels, 1)}
    labels |= {k + 1 + j: lb for j, lb in enumerate(fresh)}
    intro = relabel(paras, labels, fresh, target.split.intro)
    if not any(lb in set(markers(intro)) for lb in fresh):
        return None
    return _Change(target.heading, join_body(target.split, intro, article.eol))


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
