"""SYNTHESIZE: each story's new chunks, woven into every article they concern.

A unit is one (bucket, article) pair with a delta: the bucket's chunks not yet
woven into that article that name a subject resolving to it (the subject's own
article, or the one its redirect points at). A missing article is created
(stages/synthesize/create.py); an existing one is revised (stages/synthesize/update.py). Every write
goes through the run's Writer; only a write that landed records its chunks as
woven (`dreaming.ledger.woven`), and a bucket's chunk woven into all its
articles is marked synthesized. A chunk whose subjects have no article yet
stays where it is, unsynthesized, until one does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from dreaming import languages
from dreaming.article import parse, title_for_stem
from dreaming.article.queries import footnote_defs
from dreaming.article.words import mention
from dreaming.errors import PolicyError, RefusedFileError, UnsafePathError
from dreaming.ledger import buckets, subjects, woven
from dreaming.ledger.buckets import CAPTURED
from dreaming.ledger.woven import Target
from dreaming.model import ModelCallError
from dreaming.policy.schemas import SCHEMAS_PAGE, schema_kinds
from dreaming.vault import checksum
from dreaming.vault.files import MAX_PAGE_BYTES, read_optional
from stages.prompts import create as create_prompt
from stages.prompts import update as update_prompt
from stages.runner.contract import (
    StageContext,
    StageName,
    Unit,
    UnitResult,
    stuck,
    unwritten,
)
from stages.runner.write import Edit, resolve
from stages.synthesize import update
from stages.synthesize.create import Created, create
from stages.synthesize.sources import Source, load

CONVENTIONS_PAGE = "Article_Conventions"


class SynthesizeStage:
    name: StageName = "synthesize"
    policy: tuple[str, ...] = (SCHEMAS_PAGE, CONVENTIONS_PAGE)

    def __init__(self) -> None:
        self._planned: tuple[str, dict[str, list[Source]]] = ("", {})
        """The run whose units were listed, and each unit's sources as planned then."""

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        planned: dict[str, list[Source]] = {}
        self._planned = (ctx.run_id, planned)
        kinds = _kinds_checksum(ctx) + _language(ctx).code
        # Stories first: a chunk is in its story's bucket and, while a subject of it
        # is captured, in `_captured` too; its story is where it belongs, and
        # `_captured` only brings the chunks of a subject that has since graduated.
        stories = sorted(buckets.with_delta(ctx.ledger), key=lambda b: (b.id == CAPTURED, b.id))
        for bucket in stories:
            for stem, chunk_ids in plan(ctx, bucket.id).items():
                mode = "update" if _article_exists(ctx, stem) else "create"
                sources = load(ctx.ledger, chunk_ids)
                digest = hashlib.sha256(
                    "\x00".join(
                        (
                            mode,
                            *(f"{s.chunk_id}\x01{s.label}\x01{s.text}" for s in sources),
                            # UPDATE drafts what a delta adds with CREATE's prompt.
                            f"{update_prompt.VERSION}+{create_prompt.VERSION}"
                            if mode == "update"
                            else create_prompt.VERSION,
                            kinds,
                            ctx.settings.model,
                        )
                    ).encode("utf-8")
                ).hexdigest()
                label = f"{mode} {title_for_stem(stem)} ({len(chunk_ids)} from {bucket.label})"
                planned[f"{bucket.id}/{stem}"] = sources
                yield Unit(f"{bucket.id}/{stem}", digest, label)

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        if ctx.writer is None:
            return UnitResult("failed", "a dry run writes nothing")
        bucket_text, _, stem = unit.key.partition("/")
        bucket_id = int(bucket_text)
        try:
            path = resolve(ctx.vault, stem).path
        except UnsafePathError as e:
            return UnitResult("failed", str(e))
        sources = self._sources(ctx, unit.key, bucket_id, stem)
        if not sources:
            # An earlier unit of this run (the chunk's story) already wove them in.
            return UnitResult("done")
        try:
            before = read_optional(ctx.vault, path, cap=MAX_PAGE_BYTES, what="an article")
        except RefusedFileError as e:
            return UnitResult("failed", str(e))
        if before is None:
            result = _create(ctx, unit.key, stem, sources)
        else:
            result = _update(ctx, unit.key, stem, before, sources)
        if isinstance(result, UnitResult):
            return result
        edit, wove, note = result
        refused = None if edit is None else unwritten(ctx.writer.write(edit))
        if refused is not None:
            return refused

        def settle() -> None:
            woven.record(ctx.ledger, stem, wove, ctx.run_id, ctx.now())
            mark_complete(ctx, bucket_id)

        return UnitResult("done", note, settle)

    def _sources(self, ctx: StageContext, key: str, bucket_id: int, stem: str) -> list[Source]:
        """The unit's sources as `units` planned them, less what an earlier unit of this
        run has changed since (woven in, or filed elsewhere: an article it could not
        write); planned afresh for a unit `units` did not list."""
        run_id, planned = self._planned
        if run_id != ctx.run_id or key not in planned:
            return load(ctx.ledger, plan(ctx, bucket_id).get(stem, []))
        sources = planned[key]
        ids = [s.chunk_id for s in sources]
        done = woven.into(ctx.ledger, ids)
        still = {t.chunk_id for t in woven.targets(ctx.ledger, ids) if t.stem == stem}
        return [s for s in sources if s.chunk_id in still and (s.chunk_id, stem) not in done]


def plan(ctx: StageContext, bucket_id: int) -> dict[str, list[str]]:
    """The bucket's delta per article: chunks not yet woven into it, in delta order;
    articles in the order their first chunk comes."""
    delta = buckets.delta(ctx.ledger, bucket_id)
    if bucket_id == CAPTURED:
        # A chunk whose story is still open is that story's to weave, once.
        in_story = buckets.pending_in_a_story(ctx.ledger, delta)
        delta = [c for c in delta if c not in in_story]
    done = woven.into(ctx.ledger, delta)
    out: dict[str, list[str]] = {}
    for t in woven.targets(ctx.ledger, delta):
        if (t.chunk_id, t.stem) not in done and t.chunk_id not in out.get(t.stem, ()):
            out.setdefault(t.stem, []).append(t.chunk_id)
    return out


def mark_complete(ctx: StageContext, bucket_id: int) -> None:
    """Mark synthesized the bucket's chunks that are woven into every article they
    concern; a chunk concerning no article yet stays in the delta, and so does a
    captured chunk while a subject of it is still captured."""
    delta = buckets.delta(ctx.ledger, bucket_id)
    if bucket_id == CAPTURED:
        waiting = woven.unhomed(ctx.ledger, delta)
        delta = [c for c in delta if c not in waiting]
    done = woven.into(ctx.ledger, delta)
    pending: dict[str, bool] = {}
    for t in woven.targets(ctx.ledger, delta):
        pending[t.chunk_id] = pending.get(t.chunk_id, False) or (t.chunk_id, t.stem) not in done
    complete = [c for c in delta if c in pending and not pending[c]]
    if complete:
        buckets.mark_synthesized(ctx.ledger, bucket_id, complete, ctx.run_id)


_Planned = tuple[Edit | None, list[str], str | None]
"""The edit (None: the sources were read and change nothing), the chunks it weaves in,
and a note for the run report."""


def _create(
    ctx: StageContext, key: str, stem: str, sources: Sequence[Source]
) -> _Planned | UnitResult:
    if not sources:
        return UnitResult("failed", f"no excerpt of {key} could be read; segment again")
    title = title_for_stem(stem)
    try:
        made = create(
            ctx.model(),
            title,
            sources,
            aliases=_surfaces(ctx, stem, sources),
            kinds=_kinds(ctx),
            unit=key,
            language=_language(ctx),
        )
    except ModelCallError as e:
        return UnitResult("failed", str(e))
    if not isinstance(made, Created):
        # Nothing true to say yet is an answer for this input, not a failure to retry:
        # the subject stays captured, and its excerpts are asked about again only when
        # a conversation brings more (this unit's input then changes).
        def recapture() -> None:
            subjects.unfile(ctx.ledger, stem)

        return UnitResult(
            "done",
            f"no article yet ({made}); the subject stays captured",
            recapture,
            held=str(made),
        )
    notes = []
    if made.left_out:
        notes.append(f"{len(made.left_out)} of {len(sources)} excerpts left for the next run")
    if made.dropped:
        notes.append(
            f"{len(made.dropped)} drafted sentences dropped: their excerpt does not hold them"
        )
    note = "; ".join(notes) or None
    edit = Edit(stem, made.text, None, stage="synthesize", unit=key)
    return edit, made.woven, note


def _update(
    ctx: StageContext, key: str, stem: str, before: bytes, sources: Sequence[Source]
) -> _Planned | UnitResult:
    try:
        text = before.decode("utf-8")
    except UnicodeDecodeError:
        return UnitResult("failed", f"articles/{stem}.md is not UTF-8 text; save it as UTF-8")
    if ctx.writer is not None and (waits := stuck(ctx.writer, stem, before, text)) is not None:
        return waits
    cited = {_cites(f.hash, f.date, f.source, f.desc) for f in footnote_defs(parse(text))}
    fresh = [s for s in sources if _cites(s.hash8, s.day, s.source, s.label) not in cited]
    if not fresh:
        # A run stopped between its write and its ledger record: the article already
        # cites every one of them, so they are woven, and no model call repeats them.
        edit = Edit(stem, text, checksum(before), stage="synthesize", unit=key)
        return edit, [s.chunk_id for s in sources], None
    try:
        title = title_for_stem(stem)
        revision = update.revise(
            ctx.model(),
            text,
            title,
            fresh,
            unit=key,
            language=_language(ctx),
            longer=_longer(ctx, title),
        )
    except ModelCallError as e:
        return UnitResult("failed", str(e))
    n = f"{len(fresh)} excerpt{'s' if len(fresh) != 1 else ''}"
    if isinstance(revision, update.NothingNew):
        # An answer for this input, not a failure to retry: the excerpts count as woven
        # in, so the article stays as it is and they are not asked about again.
        return None, [s.chunk_id for s in sources], f"nothing new for articles/{stem}.md in {n}"
    if revision is None:
        # Nothing drafted was usable. Asking the same model the same again gives the same
        # answer, so the unit is done for this input: asked again when the model or the
        # delta changes (the excerpts stay unwoven until then).
        return UnitResult(
            "done", f"no usable revision of articles/{stem}.md from {n}; asked again with more"
        )
    edit = Edit(
        stem,
        revision.text,
        checksum(before),
        touched=revision.touched,
        stage="synthesize",
        unit=key,
        allow_dropped=revision.allow_dropped,
    )
    return edit, [s.chunk_id for s in sources], None


def _cites(hash8: str, day: str, source: str, desc: str) -> tuple[str, str, str, str]:
    return hash8, day, " ".join(source.split()), " ".join(desc.split())


def _surfaces(ctx: StageContext, stem: str, sources: Sequence[Source]) -> list[str]:
    """The names the sources gave the subject, in the order they first came."""
    found: list[Target] = woven.targets(ctx.ledger, [s.chunk_id for s in sources])
    return list(dict.fromkeys(t.surface for t in found if t.stem == stem))


def _kinds(ctx: StageContext) -> tuple[str, ...]:
    try:
        return schema_kinds(ctx.policy.text(SCHEMAS_PAGE))
    except PolicyError:
        return ()


def _language(ctx: StageContext) -> languages.Language:
    try:
        return languages.of_conventions(ctx.policy.text(CONVENTIONS_PAGE))
    except PolicyError:
        return languages.ENGLISH


def _kinds_checksum(ctx: StageContext) -> str:
    try:
        return ctx.policy.page(SCHEMAS_PAGE).checksum
    except PolicyError:
        return ""


def _longer(ctx: StageContext, title: str) -> list[str]:
    """The titles of the vault's other articles that hold `title` as whole words."""
    held = mention(title)
    titles = (title_for_stem(p.stem) for p in ctx.vault.articles.glob("*.md"))
    return [t for t in titles if len(t) > len(title) and held.search(t)]


def _article_exists(ctx: StageContext, stem: str) -> bool:
    try:
        return resolve(ctx.vault, stem).path.is_file()
    except UnsafePathError:
        return False
