"""RESOLVE: one bucket's delta (its unsynthesized chunks, together) -> where each of
its subjects lives.

Every subject the delta names ends with a home: its own article (`article`, with a
safe stem), another article (`redirect`), or none yet (`captured`, its chunks also
in `_captured`). A subject that already has one keeps it. For the others, in order:
a subject matching Topics_to_Ignore is captured; a name or alias an article
already answers to resolves with no model call; a near miss (lexical shortlist of
article titles and aliases, no embeddings) gets one yes/no per candidate "same
thing?", a yes folding it into that article; else it earns an article of its own
when it recurs in two chunks or a chunk has it as its main subject, and is
captured otherwise. `_captured` is a bucket like any other, so it is taken up
again whenever a captured subject's reach or the article index changes: a subject
that has since recurred graduates.

The model's answers are decided first and written in one transaction, so a
failed call or a crash stores nothing of the unit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from dreaming.article import stem_for_title
from dreaming.article.titles import heading_key
from dreaming.errors import UnsafePathError
from dreaming.ledger import buckets, chunks, subjects
from dreaming.ledger.subjects import Mention, Reach, Subject
from dreaming.model import ModelCallError, TextModel
from dreaming.subjects.candidates import is_file_name
from dreaming.subjects.names import AliasIndex, canonical, declared_aliases
from stages.judge import says_yes
from stages.lexical import SHORTLIST, contains, key_words, shortlist, trigrams
from stages.prompts import resolve as prompt
from stages.runner.contract import StageContext, StageName, Unit, UnitResult
from stages.segment.plan import ignore_patterns, ignored

RESOLVER_VERSION = "1"
"""Bumped when the code half changes where a subject goes."""
RECURS = 2
"""A subject named in this many chunks earns an article of its own."""
NEAR = 0.5
"""The share of letter triples two names must have in common to be asked about."""

Kind = Literal["article", "redirect", "captured"]
Judge = Callable[[str, str, str], bool]
"""judge(name, article title, where the name was found) -> same thing?"""


@dataclass(frozen=True, slots=True)
class Home:
    kind: Kind
    stem: str | None = None
    why: str = ""
    """For a captured subject: why it earns no article yet."""


@dataclass(frozen=True, slots=True)
class Name:
    """An article's title or alias as a near miss is found: by its words and letters."""

    display: str
    stem: str
    words: frozenset[str]
    grams: frozenset[str]


@dataclass
class Homes:
    """Every name an article answers to, and the stems in use (as files compare them)."""

    stems: dict[str, str] = field(default_factory=dict)
    """canonical name -> the stem of the article it resolves to"""
    own: dict[str, str] = field(default_factory=dict)
    """canonical title -> stem, for names that are their article's own title"""
    taken: dict[str, str] = field(default_factory=dict)
    """heading_key(stem) -> stem: two stems that differ only in case are one file on
    a case-insensitive disk"""
    names: list[Name] = field(default_factory=list)
    by_gram: dict[str, list[int]] = field(default_factory=dict)

    def add(self, name: str, stem: str, own: bool) -> None:
        key = canonical(name)
        if not key or key in self.stems:
            return
        self.stems[key] = stem
        if own:
            self.own[key] = stem
        self.taken.setdefault(heading_key(stem), stem)
        grams = trigrams(key)
        for g in grams:
            self.by_gram.setdefault(g, []).append(len(self.names))
        self.names.append(Name(name, stem, key_words(key), grams))

    def near_misses(self, key: str, limit: int = SHORTLIST) -> list[Name]:
        """The names most like `key` (sharing `NEAR` of their letter triples, or all the
        words of one being words of the other), at most `limit`, best first."""
        grams, own_words = trigrams(key), key_words(key)
        shared: dict[int, int] = {}
        for g in grams:
            for i in self.by_gram.get(g, ()):
                shared[i] = shared.get(i, 0) + 1
        scored = []
        for i, n in shared.items():
            name = self.names[i]
            if canonical(name.display) == key:
                continue
            score = n / (len(grams) + len(name.grams) - n)
            if score >= NEAR or contains(own_words, name.words):
                scored.append((score, f"{name.stem}\0{name.display}", name))
        picked: list[Name] = []
        for name in shortlist(scored, len(scored)):
            if all(p.stem != name.stem for p in picked):
                picked.append(name)
        return picked[:limit]


def build_homes(index: Sequence[tuple[str, str, bool]], with_article: Sequence[Subject]) -> Homes:
    homes = Homes()
    for name, stem, own in index:
        homes.add(name, stem, own)
    for s in with_article:
        if s.article_stem is not None:
            homes.add(s.display, s.article_stem, True)
    return homes


def alias_version(entities: str, index: Sequence[tuple[str, str, bool]]) -> str:
    h = hashlib.sha256(entities.encode())
    for name, stem, own in index:
        h.update(f"\0{name}\0{stem}\0{int(own)}".encode())
    return h.hexdigest()


def input_hash(
    delta: Sequence[Mention], reach: dict[str, Reach], chunk_ids: Sequence[str], *versions: str
) -> str:
    h = hashlib.sha256()
    for cid in chunk_ids:
        h.update(f"c\0{cid}\0".encode())
    for m in delta:
        r = reach[m.subject]
        h.update(f"m\0{m.chunk_id}\0{m.subject}\0{int(m.is_main)}\0".encode())
        h.update(f"r\0{min(r.chunks, RECURS)}\0{int(r.main)}\0".encode())
    for v in (*versions, prompt.VERSION, RESOLVER_VERSION):
        h.update(f"v\0{v}\0".encode())
    return h.hexdigest()


def same_thing(model: TextModel, name: str, context: str, title: str, unit: str) -> bool:
    """The model's judgement: is `name` (found in the chunk labelled `context`) the
    thing the article `title` is about?"""
    user = prompt.different_thing(name, context, title)
    return not says_yes(model, "resolve", prompt.SYSTEM, user, unit)


def earns(r: Reach) -> bool:
    return r.chunks >= RECURS or r.main


def own_stem(display: str, homes: Homes) -> Home:
    """A new article for `display`, a fold into the article already at its stem, or
    captured when its name cannot be a file name."""
    try:
        stem = stem_for_title(display)
    except UnsafePathError as e:
        return Home("captured", why=f"its name is refused as a file name: {e}")
    existing = homes.taken.get(heading_key(stem))
    if existing is not None:
        return Home("redirect", existing)
    return Home("article", stem)


class ResolveStage:
    name: StageName = "resolve"
    policy: tuple[str, ...] = ("Entities", "Topics_to_Ignore")

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        index = subjects.article_homes(ctx.ledger)
        aliases = alias_version(ctx.policy.page("Entities").checksum, index)
        patterns = ignore_patterns(ctx.policy.text("Topics_to_Ignore"))
        for bucket in buckets.with_delta(ctx.ledger):
            ids = buckets.delta(ctx.ledger, bucket.id)
            delta = subjects.mentions_of(ctx.ledger, ids)
            reach = subjects.reaches(ctx.ledger, [m.subject for m in delta])
            if bucket.id == buckets.CAPTURED and not self._rescan(ctx, index, reach):
                continue
            # The ignore list counts only through the delta's subjects it matches: a
            # pattern for another topic leaves this bucket done.
            ignore = "\x1f".join(
                sorted(
                    name
                    for name, s in subjects.named(ctx.ledger, reach).items()
                    if _ignored(s, patterns)
                )
            )
            digest = input_hash(delta, reach, ids, aliases, f"ignored:{ignore}", ctx.settings.model)
            yield Unit(str(bucket.id), digest, bucket.label)

    def _rescan(
        self, ctx: StageContext, index: Sequence[tuple[str, str, bool]], reach: dict[str, Reach]
    ) -> bool:
        """Whether `_captured` holds a subject with no home yet, or a captured one that now
        recurs or that an article now answers to. Its chunks arrive while the other buckets
        are resolved, so without this test the night after would take it up for nothing."""
        homes = build_homes(index, subjects.with_article(ctx.ledger))
        declared = AliasIndex.build(declared_aliases(ctx.policy.text("Entities")))
        patterns = ignore_patterns(ctx.policy.text("Topics_to_Ignore"))
        for s in subjects.named(ctx.ledger, reach).values():
            if s.status == "candidate":
                return True
            if s.status != "captured" or _ignored(s, patterns):
                continue
            if earns(reach[s.name]) or _known(s, homes, declared) is not None:
                return True
        return False

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        ids = buckets.delta(ctx.ledger, int(unit.key))
        delta = subjects.mentions_of(ctx.ledger, ids)
        named: dict[str, list[Mention]] = {}
        for m in delta:
            named.setdefault(m.subject, []).append(m)
        try:
            homes = self._decide(ctx, unit.key, named)
        except ModelCallError as e:
            return UnitResult("failed", str(e).splitlines()[0] if str(e) else "model answer")
        to_capture = _to_capture(homes, named, ids)
        return UnitResult(
            "done",
            _summary(homes, len(to_capture)),
            settle=partial(_store, ctx, homes, to_capture),
        )

    def _decide(
        self, ctx: StageContext, unit: str, named: dict[str, list[Mention]]
    ) -> dict[str, Home]:
        homes = build_homes(subjects.article_homes(ctx.ledger), subjects.with_article(ctx.ledger))
        declared = AliasIndex.build(declared_aliases(ctx.policy.text("Entities")))
        patterns = ignore_patterns(ctx.policy.text("Topics_to_Ignore"))
        reach = subjects.reaches(ctx.ledger, named)
        labels = _labels(ctx, named)
        model: list[TextModel] = []

        def judge(name: str, article: str, context: str) -> bool:
            if not model:
                model.append(ctx.model())
            return same_thing(model[0], name, context, article, unit)

        decided: dict[str, Home] = {}
        for name in named:
            subject = subjects.get(ctx.ledger, name)
            if subject is None or subject.status in ("article", "redirect"):
                continue
            home = _home(subject, reach[name], homes, declared, patterns, labels[name], judge)
            if home.kind == "article" and home.stem is not None:
                homes.add(subject.display, home.stem, True)
            decided[name] = home
        return decided


def _home(
    subject: Subject,
    reach: Reach,
    homes: Homes,
    declared: AliasIndex,
    patterns: Sequence[str],
    context: str,
    judge: Judge,
) -> Home:
    if _ignored(subject, patterns):
        return Home("captured", why="it matches Meta/Topics_to_Ignore.md")
    if is_file_name(subject.display):
        return Home("captured", why="a file's name: what it holds goes under its subject")
    known = _known(subject, homes, declared)
    if known is not None:
        return known
    if subject.status == "candidate" or earns(reach):
        for near in homes.near_misses(subject.name):
            if judge(subject.display, near.display, context):
                return Home("redirect", near.stem)
    if not earns(reach):
        return Home("captured", why="named in one chunk only, and not as its main subject")
    return own_stem(subject.display, homes)


def _ignored(subject: Subject, patterns: Sequence[str]) -> bool:
    return ignored(subject.display, patterns) or ignored(subject.name, patterns)


def _known(subject: Subject, homes: Homes, declared: AliasIndex) -> Home | None:
    """The home an article's title or alias (or a declared alias of one) gives a subject:
    the article itself when it is the subject's own title, else a fold into it."""
    for key in (subject.name, declared.resolve(subject.display)[0]):
        stem = homes.stems.get(key)
        if stem is not None:
            if key == subject.name and homes.own.get(key) == stem:
                return Home("article", stem)
            return Home("redirect", stem)
    return None


def _labels(ctx: StageContext, named: dict[str, list[Mention]]) -> dict[str, str]:
    """Each subject's first chunk's label: where the question says the name was found."""
    found: dict[str, str] = {}
    for name, mentions in named.items():
        cid = mentions[0].chunk_id
        conv_id = cid.rpartition(":")[0]
        label = next(
            (c.label for c in chunks.of_conversation(ctx.ledger, conv_id) if c.id == cid), ""
        )
        found[name] = label
    return found


def _to_capture(
    homes: dict[str, Home], named: dict[str, list[Mention]], ids: Sequence[str]
) -> list[str]:
    """The chunks that go into `_captured`: every one naming a captured subject, or none
    at all."""
    quiet = [cid for cid in ids if not any(cid == m.chunk_id for ms in named.values() for m in ms)]
    held = [m.chunk_id for name, h in homes.items() if _captured(h) for m in named[name]]
    return list(dict.fromkeys([*quiet, *held]))


def _captured(home: Home) -> bool:
    return not (home.kind == "redirect" and home.stem is not None) and home.kind != "article"


def _store(ctx: StageContext, homes: dict[str, Home], to_capture: Sequence[str]) -> None:
    """Write the decided homes and fill `_captured`."""
    now = ctx.now()
    for name, home in homes.items():
        if home.kind == "redirect" and home.stem is not None:
            subjects.redirect(ctx.ledger, name, home.stem, "folded", now)
            subjects.set_status(ctx.ledger, name, "redirect")
        elif home.kind == "article":
            subjects.set_status(ctx.ledger, name, "article", home.stem)
        else:
            subjects.set_status(ctx.ledger, name, "captured")
    for cid in to_capture:
        buckets.add_chunk(ctx.ledger, buckets.CAPTURED, cid, now)


def _summary(homes: dict[str, Home], captured_chunks: int) -> str:
    kinds = [h.kind for h in homes.values()]
    parts = [
        f"{kinds.count('article')} new articles",
        f"{kinds.count('redirect')} folded",
        f"{kinds.count('captured')} captured",
    ]
    ignored_count = sum(1 for h in homes.values() if "Topics_to_Ignore" in h.why)
    if ignored_count:
        parts.append(f"{ignored_count} of them ignored by Meta/Topics_to_Ignore.md")
    return ", ".join(parts) + f"; {captured_chunks} chunks in _captured"
