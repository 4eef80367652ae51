"""A night's own cost, without a model: a generated vault of 1,000 articles and 5,000 chunks.

Generates the vault with the project's own functions (ledger query modules,
`article.build`, one git commit), marks every unit of every stage in
`stages.runner.pipeline.STAGES` done, then measures, in one run:

- a nothing-new night (`run_night`, every unit done): wall time and model calls
  (goal: under 3 s, 0 calls), and where that time goes (ingest, each stage's unit
  enumeration, the done-check, the run's bookkeeping);
- each stage's deterministic time per unit: its `run` on a sample of units with a
  model that answers by rule instantly (tests/rule_model.py), so all of it is code.

    python bench/night.py [--articles 1000] [--chunks 5000] [--sample 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dreaming.model  # noqa: E402
from bench.machine import cpu  # noqa: E402
from dreaming.article.document import build  # noqa: E402
from dreaming.article.markup import Footnote  # noqa: E402
from dreaming.clock import utc_now  # noqa: E402
from dreaming.config import Settings  # noqa: E402
from dreaming.ledger import (  # noqa: E402
    Ledger,
    buckets,
    chunks,
    conversations,
    runs,
    subjects,
    work,
)
from dreaming.ledger.chunks import Chunk  # noqa: E402
from dreaming.ledger.subjects import Mention  # noqa: E402
from dreaming.model import TextModel  # noqa: E402
from dreaming.policy.pages import Policy  # noqa: E402
from dreaming.query.reindex import reindex  # noqa: E402
from dreaming.vault import Vault  # noqa: E402
from dreaming.vault.repo import VaultRepo  # noqa: E402
from dreaming.vault.scaffold import init_vault  # noqa: E402
from stages.jobs.ingest import ingest  # noqa: E402
from stages.runner.contract import Stage, StageContext  # noqa: E402
from stages.runner.pipeline import STAGES, run_night  # noqa: E402
from tests.rule_model import RuleModel  # noqa: E402
from tests.support import raw_note  # noqa: E402
from watcher.app import App  # noqa: E402

CHUNKS_PER_CONVERSATION = 5
MESSAGES_PER_CHUNK = 2
NOW = "2026-01-02T03:04:05+00:00"


def subject_name(i: int) -> str:
    return f"Topic {i:04d}"


def article_text(i: int, hash8: str) -> str:
    return build(
        subject_name(i),
        lead=f"Topic {i:04d} is a schematic subject the person worked on.[^1]",
        sections=[("Background", "The person chose one option over another.[^1]")],
        infobox={"kind": "concept", "aliases": f"T{i:04d}"},
        footnotes=[Footnote(1, hash8, "2026-01-02", "markdown", "a schematic talk")],
    )


def message(c: int, m: int, topic: int) -> tuple[str, str]:
    """One turn of conversation `c`, about `topic`, a few hundred characters long."""
    if m % 2 == 0:
        return "user", (
            f"How should I set up {subject_name(topic)} for the Example Project? I tried the "
            f"`example_tool` command with `--option-{m}` and it printed a warning about the "
            f"config file. Conversation {c}, turn {m}."
        )
    return "assistant", (
        f"{subject_name(topic)} reads its settings from one file. Run `example_tool --check` "
        "first, then move the setting into the project's config and try again; the warning "
        "goes away once the old key is gone. " * 2
    )


def generate(root: Path, articles: int, chunk_count: int) -> Vault:
    """A vault holding `articles` articles and `chunk_count` chunks, none of it new: the
    conversations are Raw files read by the real ingest; the chunks, subjects, story
    buckets (synthesized) and articles are written with the ledger's query modules and
    `article.build`."""
    vault = init_vault(root).vault
    conv_count = chunk_count // CHUNKS_PER_CONVERSATION
    per_conv = CHUNKS_PER_CONVERSATION * MESSAGES_PER_CHUNK
    for c in range(conv_count):
        turns = [message(c, m, (c * CHUNKS_PER_CONVERSATION + m // 2) % articles)
                 for m in range(per_conv)]  # fmt: skip
        date = f"2026-{c // 28 % 12 + 1:02d}-{c % 28 + 1:02d}"
        (vault.raw / f"talk-{c:05d}.md").write_text(
            raw_note(*turns, title=f"Talk {c}", date=date), "utf-8"
        )
    with Ledger(vault.ledger_path) as ledger:
        ingest(vault, ledger)
        with ledger.transaction():
            runs.put(ledger, runs.Run("bench", "night", NOW, NOW, "ok"))
            for n, conv in enumerate(conversations.by_updated(ledger)):
                conv_chunks = [
                    Chunk(conv.id, k * MESSAGES_PER_CHUNK, (k + 1) * MESSAGES_PER_CHUNK - 1,
                          f"setting up topic {n} part {k}", conv.content_sha, "bench")
                    for k in range(CHUNKS_PER_CONVERSATION)
                ]  # fmt: skip
                chunks.replace(ledger, conv.id, conv_chunks, NOW)
                # One story a conversation, its chunks all synthesized already.
                story = buckets.for_label(ledger, f"setting up topic {n}", f"story-{n}", NOW)
                for chunk in conv_chunks:
                    buckets.add_chunk(ledger, story.id, chunk.id, NOW)
                buckets.mark_synthesized(ledger, story.id, [c.id for c in conv_chunks], "bench")
                for k, chunk in enumerate(conv_chunks):
                    topic = (n * CHUNKS_PER_CONVERSATION + k) % articles
                    name = subject_name(topic).casefold()
                    subjects.add(ledger, name, subject_name(topic), NOW)
                    subjects.mention(ledger, Mention(chunk.id, name, subject_name(topic), k == 0))
            for i in range(articles):
                subjects.set_status(ledger, subject_name(i).casefold(), "article", stem(i))
            hash8s = [c.hash8 for c in map(_citation(ledger), conversations.by_updated(ledger))]
    for i in range(articles):
        (vault.articles / f"{stem(i)}.md").write_text(article_text(i, hash8s[i % conv_count]))
    VaultRepo(vault.root).commit_person(sorted(vault.articles.glob("*.md")), "bench articles")
    with Ledger(vault.ledger_path) as ledger:
        reindex(vault, ledger)
        mark_done(vault, ledger)
    return vault


def stem(i: int) -> str:
    return subject_name(i).replace(" ", "_")


def _citation(ledger: Ledger) -> Callable[[conversations.Updated], conversations.Citation]:
    def cite(conv: conversations.Updated) -> conversations.Citation:
        found = conversations.citation(ledger, conv.id)
        assert found is not None
        return found

    return cite


def context(vault: Vault, ledger: Ledger, settings: Settings, model: TextModel) -> StageContext:
    return StageContext(vault, ledger, settings, Policy(vault), "bench", lambda: model, utc_now)


def mark_done(vault: Vault, ledger: Ledger) -> None:
    """Record every unit of every stage done, as a finished night would have."""
    ctx = context(vault, ledger, Settings(vault=vault.root, model="rule"), RuleModel())
    for stage in STAGES:
        with ledger.transaction():
            for unit in stage.units(ctx):
                work.record(ledger, stage.name, unit.key, unit.input_hash, "done",
                            run_id=None, now=NOW)  # fmt: skip


@contextmanager
def rule_model() -> Iterator[RuleModel]:
    model = RuleModel()
    load = dreaming.model.load

    def loading(spec: str, **_: object) -> TextModel:
        return model

    dreaming.model.load = loading
    try:
        yield model
    finally:
        dreaming.model.load = load


def timed(fn: object, *args: object) -> tuple[float, object]:
    started = time.perf_counter()
    result = fn(*args)  # type: ignore[operator]
    return time.perf_counter() - started, result


def nothing_new(vault: Vault) -> None:
    with (
        rule_model() as model,
        App(vault, replace(Settings(vault=vault.root), model="rule")) as app,
    ):
        seconds, report = timed(run_night, app)
        summary = report.summary()  # type: ignore[attr-defined]
        print(f"nothing-new night: {seconds:.2f} s wall, {model.calls} model calls, "
              f"{summary['commits']} commits (goal < 3 s, 0 calls)")  # fmt: skip
        ctx = context(vault, app.ledger, app.settings, model)
        for stage in STAGES:
            enum_s, units = timed(lambda s=stage: list(s.units(ctx)))
            check_s, _ = timed(
                lambda us=units, s=stage: work.todo(
                    app.ledger, s.name, {u.key: u.input_hash for u in us}
                )
            )
            print(f"  {stage.name}: {len(units)} units, enumerated in {enum_s:.2f} s, "  # type: ignore[arg-type]
                  f"done-checked in {check_s:.2f} s")  # fmt: skip


def per_unit(vault: Vault, sample: int) -> None:
    """Each stage's `run` on `sample` of its units: the code's time, the model's is ~0."""
    with rule_model() as model, Ledger(vault.ledger_path) as ledger:
        settings = Settings(vault=vault.root, model="rule")
        for stage in STAGES:
            ctx = context(vault, ledger, settings, model)
            units = list(stage.units(ctx))[:sample]
            if not units:
                print(f"  {stage.name}: no units")
                continue
            calls = model.calls
            seconds = _run_units(stage, ctx, units)
            print(f"  {stage.name}: {seconds / len(units) * 1000:.1f} ms a unit over "
                  f"{len(units)} units, {(model.calls - calls) / len(units):.1f} model calls "
                  f"a unit")  # fmt: skip


def _run_units(stage: Stage, ctx: StageContext, units: list[object]) -> float:
    started = time.perf_counter()
    for unit in units:
        stage.run(ctx, unit)  # type: ignore[arg-type]
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=5000)
    parser.add_argument("--sample", type=int, default=20, help="units timed per stage")
    args = parser.parse_args()
    print(f"cpu: {cpu()}")
    print(f"stages: {', '.join(s.name for s in STAGES)}")
    with tempfile.TemporaryDirectory() as tmp:
        seconds, vault = timed(generate, Path(tmp) / "vault", args.articles, args.chunks)
        print(f"generated {args.articles} articles, {args.chunks} chunks in {seconds:.1f} s")
        nothing_new(vault)  # type: ignore[arg-type]
        print("deterministic time per unit (rule model, ~0 model time):")
        per_unit(vault, args.sample)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
