"""`## See also`: the articles that cite the same conversations as this one, then the
ones that link to it, then the ones whose subject its conversations name (or whose
conversations name its subject), a few, best first. Pure functions.

Two articles drawn from one conversation are about things that person discussed
together, an article that links here discusses this subject, and a conversation that
names another article's subject discussed the two together: those are the relations
a reader's "see also" means that code can know without a model. Items are
only ever added: one a person wrote stays where they wrote it, and an article's See
also never shrinks because a neighbour moved.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence

from dreaming.article.document import NOTES, REFERENCES, SEE_ALSO, parse
from dreaming.article.fences import detect_eol
from dreaming.article.linking import wikilink
from dreaming.article.overlap import CROWD
from dreaming.article.queries import see_also
from dreaming.article.sections import extract_section, replace_section, section_start
from dreaming.article.titles import heading_key, title_for_stem

CAP = 5
"""At most this many neighbours an article: a See also longer than a screen is a list
nobody reads, and the best-shared come first."""


def neighbours(
    cites: Mapping[str, frozenset[str]],
    linked_from: Mapping[str, frozenset[str]] | None = None,
    named_in: Mapping[str, frozenset[str]] | None = None,
    cap: int = CAP,
) -> dict[str, tuple[str, ...]]:
    """Each article (stem → the conversations it cites) → at most `cap` others: those
    sharing most conversations with it first, then those linking to it
    (`linked_from`: stem → the stems whose text links to it), then those discussed with
    it (`named_in`: conversation → the stems of the articles whose subjects it names;
    either way round), each group by stem. The same input, the same order, whatever
    order the mappings came in."""
    by_conv: dict[str, list[str]] = {}
    for stem, convs in cites.items():
        for conv in convs:
            by_conv.setdefault(conv, []).append(stem)
    # A conversation most of the wiki cites relates no two articles in particular, and
    # counting its pairs would make a night's See also quadratic in its articles.
    by_conv = {conv: stems for conv, stems in by_conv.items() if len(stems) < CROWD}
    keys = {stem: heading_key(stem) for stem in cites}
    talked = _talked(cites, named_in or {})
    out: dict[str, tuple[str, ...]] = {}
    for stem, convs in cites.items():
        shared: Counter[str] = Counter()
        for conv in convs:
            shared.update(by_conv.get(conv, ()))
        del shared[stem]
        linking = (linked_from or {}).get(stem, frozenset())
        spoken = talked.get(stem, set())
        near = {*shared, *(s for s in (*linking, *spoken) if s != stem and s in cites)}
        # The best `cap`, not every neighbour sorted: a conversation most articles cite
        # must not make a night's See also quadratic in its sort.
        ranked = heapq.nsmallest(
            cap, near, key=lambda o: (-shared[o], o not in linking, o not in spoken, keys[o], o)
        )
        out[stem] = tuple(ranked)
    return out


def _talked(
    cites: Mapping[str, frozenset[str]], named_in: Mapping[str, frozenset[str]]
) -> dict[str, set[str]]:
    """stem → the articles discussed with it: named in a conversation it cites, or citing
    a conversation that names it. A conversation naming a crowd of articles relates
    none of them in particular (and would make this quadratic)."""
    out: dict[str, set[str]] = {}
    for stem, convs in cites.items():
        for conv in convs:
            named = named_in.get(conv, frozenset())
            if len(named) >= CROWD:
                continue
            for other in named:
                if other != stem and other in cites:
                    out.setdefault(stem, set()).add(other)
                    out.setdefault(other, set()).add(stem)
    return out


def with_see_also(text: str, stems: Sequence[str]) -> str:
    """`text` with a See also item for each of `stems` it does not list yet, after the
    items already there (a new section goes before Notes and References); every other
    byte as it was. Nothing to add, `text` itself."""
    listed = {heading_key(t) for t in see_also(parse(text))}
    missing = [s for s in stems if heading_key(s) not in listed]
    if not missing:
        return text
    eol = detect_eol(text)
    items = eol.join(f"- {wikilink(s, title_for_stem(s))}" for s in missing)
    out = _added(text, items, eol)
    # A fence left open swallows whatever follows it: such an article gets no See also
    # until NORMALIZE has closed it, rather than a list that reads as code.
    return (
        out
        if {heading_key(t) for t in see_also(parse(out))} >= {heading_key(s) for s in missing}
        else text
    )


def _added(text: str, items: str, eol: str) -> str:
    old = extract_section(text, SEE_ALSO)
    if old is not None:
        return replace_section(text, SEE_ALSO, f"{old.rstrip()}{eol}{items}")
    section = f"## {SEE_ALSO}{eol}{eol}{items}{eol}"
    tails = [at for name in (NOTES, REFERENCES) if (at := section_start(text, name)) is not None]
    if tails:
        at = min(tails)
        return f"{text[:at]}{section}{eol}{text[at:]}"
    body = text.rstrip("\r\n")
    return f"{body}{eol}{eol}{section}"
