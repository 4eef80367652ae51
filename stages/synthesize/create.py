"""CREATE: a new article about one subject from the excerpts that discuss it.

Code proposes, the model fills in short plain text, code assembles. The
excerpts are grouped into proto-sections by word overlap (stages/synthesize/proto.py);
the model names each section (one constrained line; code's heading from the
labels when its answer is no heading), drafts one paragraph per excerpt from
that excerpt alone (code appends that excerpt's `[^N]` marker, so no claim goes
uncited and the model never places one), writes the lead from the drafted
paragraphs (cited with theirs), and picks the infobox kind from the kinds
`Meta/Infobox_Schemas.md` declares. `dreaming.article.build` assembles it; the
caller writes it through the run's Writer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from dreaming.article import build, claims, normalize, stem_for_title
from dreaming.article.titles import HEADING_CHARS
from dreaming.article.words import content_words, sentences
from dreaming.languages import ENGLISH, Language, written_in
from dreaming.model import Choice, Lines, ModelCallError, TextModel
from stages.prompts import create as prompt
from stages.synthesize import proto, specifics
from stages.synthesize.sources import Source

STAGE = "synthesize"
YES_NO = Choice(("yes", "no"))
HEADING = Lines(max_lines=1, max_chars=HEADING_CHARS)
PARAGRAPH = Lines(max_lines=1, max_chars=480)
"""One line of plain prose, about three sentences: constrained decoding stops a ramble
here, and the sentence it cuts is dropped (proto.clean_draft)."""
MIN_NEW_WORDS = 2
"""Content words the drafts must hold beyond the title's: fewer is no article yet."""
LEAD_SENTENCES = 2
LEAD_NOTES = 3
"""The drafted paragraphs the lead reads: the first of each of the first sections."""


@dataclass
class Created:
    text: str
    woven: list[str]
    """The chunks the article cites."""
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """(chunk, why) for each excerpt whose draft was refused: retried next run."""
    calls: int = 0
    paragraphs: int = 0
    """Drafted paragraphs, each carrying its source's marker."""
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, why) for each drafted sentence its excerpt did not support."""


@dataclass
class _Section:
    heading: str
    paragraphs: list[tuple[str, Source]]
    code: str | None = None
    """The code the section's last excerpt with any ended on, shown whole."""

    def body(self, numbers: dict[str, int]) -> str:
        parts = [proto.cite(p, [numbers[s.chunk_id]]) for p, s in self.paragraphs]
        return "\n\n".join([*parts, self.code] if self.code else parts)


class _Asker:
    """The model, counted; a call whose answer breaks its constraint gives None."""

    def __init__(self, model: TextModel, unit: str) -> None:
        self.model = model
        self.unit = unit
        self.calls = 0

    def __call__(self, system: str, user: str, constraint: Lines | Choice) -> str | None:
        self.calls += 1
        try:
            answer = self.model.complete(STAGE, system, user, unit=self.unit, constraint=constraint)
        except ModelCallError:
            return None
        return answer.text


def create(
    model: TextModel,
    title: str,
    sources: Sequence[Source],
    *,
    aliases: Sequence[str],
    kinds: Sequence[str],
    unit: str,
    language: Language = ENGLISH,
) -> Created | str:
    """The new article `title` citing `sources`, or why none could be written."""
    ask = _Asker(model, unit)
    groups = proto.group([proto.Excerpt(s.label, s.text) for s in sources])
    sections: list[_Section] = []
    left_out: list[tuple[str, str]] = []
    dropped: list[tuple[str, str]] = []
    echoes = prompt.echoes(title)
    for n, members in enumerate(groups, 1):
        labels = [sources[i].label for i in members]
        proposed = ask(prompt.HEADING_SYSTEM, prompt.heading(title, labels), HEADING)
        taken = [s.heading for s in sections]
        heading = proto.pick_heading(proposed, labels, title, taken, n)
        drafted: list[tuple[str, Source]] = []
        for i in members:
            s = sources[i]
            answer = ask(
                prompt.DRAFT_SYSTEM, prompt.draft(title, heading, s.text, language.name), PARAGRAPH
            )
            paragraph = None if answer is None else proto.clean_draft(answer, echoes)
            if paragraph is not None and not written_in(paragraph, language):
                left_out.append((s.chunk_id, f"drafted in another language than {language.name}"))
                continue
            if paragraph is not None:
                kept = claims.keep_supported(sentences(paragraph), s.text, title)
                dropped.extend(kept.dropped)
                paragraph = kept.text or None
            paragraph = specifics.with_positions(paragraph, s.text, [title, *aliases], language)
            if paragraph is None:
                left_out.append((s.chunk_id, "no usable paragraph drafted"))
            else:
                drafted.append((paragraph, s))
        if drafted:
            code = next(
                (c for _, s in reversed(drafted) if (c := specifics.final_code(s.text))), None
            )
            sections.append(_Section(heading, drafted, code))
    if not sections:
        return f"no excerpt gave a usable paragraph ({len(sources)} tried)"
    said = set().union(*(content_words(p) for sec in sections for p, _ in sec.paragraphs))
    if len(said - content_words(title)) < MIN_NEW_WORDS and not any(s.code for s in sections):
        return "the drafts say nothing beyond the title"
    notes = [sec.paragraphs[0] for sec in sections[:LEAD_NOTES]]
    answer = ask(
        prompt.LEAD_SYSTEM, prompt.lead(title, [p for p, _ in notes], language.name), PARAGRAPH
    )
    lead = None if answer is None else proto.clean_draft(answer, echoes)
    if lead is not None and not written_in(lead, language):
        return f"the lead the model wrote is not in {language.name}"
    if lead is None:
        return "the lead the model wrote was no usable paragraph"
    body = [p for sec in sections for p, _ in sec.paragraphs]
    grounded = proto.grounded_lead(lead, title, [p for p, _ in notes])
    framed = claims.keep_supported(
        sentences(grounded), "\n\n".join(s.text for _, s in notes), title
    )
    dropped.extend(framed.dropped)
    if not framed.text:
        return "no sentence of the lead the model wrote is held by its excerpts"
    lead_text = proto.lead_sentences(framed.text, body, LEAD_SENTENCES)
    drafted_from = [s for sec in sections for _, s in sec.paragraphs]
    if len(body) == 1 and not sections[0].code and proto.retold(body[0], lead_text):
        # A stub: its one paragraph said again under a heading reads twice. A section
        # with code keeps its paragraph: the citation of the code stands there.
        sections = []
    numbers = _numbers([s for _, s in notes], drafted_from)
    cited = [numbers[s.chunk_id] for _, s in notes]
    infobox = _infobox(ask, title, kinds, [s.label for s in sources], aliases)
    article = build(
        title,
        lead=proto.cite(lead_text, cited),
        sections=[(sec.heading, sec.body(numbers)) for sec in sections],
        infobox=infobox,
        footnotes=sorted(
            (s.footnote(numbers[s.chunk_id]) for s in drafted_from), key=lambda f: f.number
        ),
    )
    return Created(
        text=normalize(article, stem=stem_for_title(title)),
        woven=[s.chunk_id for s in drafted_from],
        left_out=left_out,
        calls=ask.calls,
        paragraphs=len(body),
        dropped=dropped,
    )


def _numbers(lead: Sequence[Source], drafted: Sequence[Source]) -> dict[str, int]:
    """Each drafted source's footnote number, in order of first citation: the lead's
    sources, then the sections' (the order NORMALIZE keeps)."""
    numbers: dict[str, int] = {}
    for s in [*lead, *drafted]:
        numbers.setdefault(s.chunk_id, len(numbers) + 1)
    return numbers


PERSON = "person"
_NAME_WORD = re.compile(r"[A-Z][a-z]+(?:['-][A-Za-z]+)?")


def _a_human(ask: _Asker, title: str) -> bool:
    """Whether `title` names a human: two to four capitalised words, and the model
    answers no when asked whether it names a program, product or the like (one call,
    only when it said person)."""
    parts = title.split()
    if not 2 <= len(parts) <= 4 or not all(_NAME_WORD.fullmatch(p) for p in parts):
        return False
    return ask(prompt.HUMAN_SYSTEM, prompt.human(title), YES_NO) == "no"


def _infobox(
    ask: _Asker, title: str, kinds: Sequence[str], labels: Sequence[str], aliases: Sequence[str]
) -> list[tuple[str, str]] | None:
    fields: list[tuple[str, str]] = []
    if kinds:
        kind = ask(prompt.KIND_SYSTEM, prompt.kind(title, kinds, labels[:6]), Choice(tuple(kinds)))
        if kind is not None and kind.strip() == PERSON and not _a_human(ask, title):
            # The default model filed Claude Code under person; person is kept only for a
            # name a human bears.
            kind = "thing" if "thing" in kinds else None
        if kind is not None and kind.strip() in kinds:
            fields.append(("kind", kind.strip()))
    names = proto.alias_list(title, aliases)
    if names:
        fields.append(("aliases", ", ".join(names)))
    return fields or None
