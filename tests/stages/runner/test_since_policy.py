"""Which policy each unit ran under, and `synthesize --since-policy PAGE`."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest

from dreaming.config import Settings
from dreaming.errors import DreamingError
from dreaming.ledger import Ledger, chunks, subjects, unit_policy
from dreaming.model import Completion, Constraint, Lines
from dreaming.policy.pages import Policy, PolicyPage
from dreaming.vault import Vault
from stages.bucket import BucketStage
from stages.resolve import ResolveStage
from stages.runner.contract import Stage, StageContext, Unit, UnitResult
from stages.runner.pipeline import STAGES, run_night
from stages.runner.report import NightReport
from tests.rule_model import RuleModel
from tests.story_support import context, conversation, names, run
from tests.support import drop, every_load_gives, raw_note
from tests.watcher.test_cli import dreaming as command
from watcher.app import App

BREAD = raw_note(
    ("user", "How do I keep Sourdough Bread fresh for a week?"),
    ("assistant", "Wrap the Sourdough Bread in a cotton cloth, or slice it and freeze it."),
    title="Bread",
)
TIMEOUTS = raw_note(
    ("user", "Why does the `requests` library hang in Python?"),
    ("assistant", "Pass a timeout to requests.get and retry with backoff."),
    title="Timeouts",
)


class TopicModel(RuleModel):
    """RuleModel, but a chunk's label names its own topic, and every call is counted
    by stage."""

    def __init__(self) -> None:
        super().__init__()
        self.by_stage: Counter[str] = Counter()

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        self.by_stage[stage] += 1
        done = super().complete(stage, system, user, unit=unit, constraint=constraint)
        if isinstance(constraint, Lines):
            topic = "sourdough bread kept fresh" if "Sourdough" in user else "python requests"
            return replace(done, text=f"{topic} for the user")
        return done


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> TopicModel:
    return every_load_gives(monkeypatch, TopicModel())


def night(vault: Vault, **kwargs: object) -> NightReport:
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        return run_night(app, **kwargs)  # type: ignore[arg-type]


def ignore(vault: Vault, pattern: str) -> None:
    page = vault.meta / "Topics_to_Ignore.md"
    text = page.read_text(encoding="utf-8").replace("```ignore\n", f"```ignore\n{pattern}\n")
    page.write_text(text, encoding="utf-8")


def attempted(report: NightReport) -> dict[str, int]:
    return {s.stage: s.attempted for s in report.stages}


@pytest.fixture
def done(vault: Vault, model: TopicModel) -> Vault:
    """A vault whose two conversations went through a whole night."""
    drop(vault, "bread.md", BREAD)
    drop(vault, "timeouts.md", TIMEOUTS)
    report = night(vault)
    assert all(s.failed == 0 for s in report.stages), [s.failures for s in report.stages]
    model.by_stage.clear()
    return vault


def chunk_of(ledger: Ledger, word: str) -> str:
    return next(c.id for c in chunks.in_order(ledger) if word in c.label)


def test_every_unit_done_records_the_pages_its_stage_reads(done: Vault) -> None:
    policy = Policy(done)
    with Ledger(done.ledger_path) as ledger:
        extract = unit_policy.ran_under(ledger, "extract", "Topics_to_Ignore")
        assert set(extract) == {c.id for c in chunks.in_order(ledger)}
        assert set(extract.values()) == {policy.page("Topics_to_Ignore").checksum}
        assert unit_policy.ran_under(ledger, "extract", "Bucketing") == {}
        assert set(unit_policy.ran_under(ledger, "bucket", "Bucketing")) == set(extract)


def test_an_edited_ignore_list_redoes_only_the_chunks_it_touches(
    done: Vault, model: TopicModel
) -> None:
    ignore(done, "sourdough")
    report = night(done, since_policy="Topics_to_Ignore")
    assert [s.stage for s in report.stages] == ["extract", "resolve"]
    extract = report.stages[0]
    assert (extract.done, extract.failed) == (1, 0)
    assert report.stages[1].attempted == 0
    # The ignored chunk is done without a question; no other chunk is asked about.
    assert model.by_stage["extract"] == model.by_stage["resolve"] == 0
    with Ledger(done.ledger_path) as ledger:
        assert subjects.mentions_in(ledger, chunk_of(ledger, "sourdough")) == []
        assert subjects.mentions_in(ledger, chunk_of(ledger, "python")) != []


def test_a_second_since_policy_run_has_nothing_to_do(done: Vault, model: TopicModel) -> None:
    ignore(done, "sourdough")
    night(done, since_policy="Topics_to_Ignore")
    model.by_stage.clear()
    report = night(done, since_policy="Topics_to_Ignore")
    assert sum(attempted(report).values()) == 0
    assert sum(model.by_stage.values()) == 0


def test_an_ignore_pattern_no_chunk_matches_redoes_no_extract_or_resolve(
    done: Vault, model: TopicModel
) -> None:
    ignore(done, "a topic nobody talked about")
    report = night(done, since_policy="Topics_to_Ignore")
    assert attempted(report)["extract"] == attempted(report)["resolve"] == 0


def test_since_policy_runs_only_the_stages_that_read_the_page(
    done: Vault, model: TopicModel
) -> None:
    page = done.meta / "Bucketing.md"
    page.write_text(page.read_text(encoding="utf-8") + "- One more rule.\n", encoding="utf-8")
    report = night(done, since_policy="Bucketing")
    assert [s.stage for s in report.stages] == ["bucket"]


def test_since_policy_plans_in_a_dry_run_without_calls_or_writes(
    done: Vault, model: TopicModel
) -> None:
    ignore(done, "sourdough")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=done.root, capture_output=True, text=True
    ).stdout
    report = night(done, since_policy="Topics_to_Ignore", dry_run=True)
    assert {s.stage: s.planned for s in report.stages}["extract"] == 1
    assert sum(model.by_stage.values()) == 0
    assert (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=done.root, capture_output=True, text=True
        ).stdout
        == head
    )


def test_an_unknown_page_is_refused_naming_the_pages_stages_read(vault: Vault) -> None:
    with pytest.raises(DreamingError) as caught:
        night(vault, since_policy="Topics_To_Ignore")
    read = ", ".join(sorted({p for s in STAGES for p in s.policy}))
    assert f"choose one of: {read}" in str(caught.value)
    assert "Topics_to_Ignore" in read


def test_a_resolve_unit_is_new_only_when_the_ignore_list_touches_its_subjects(
    vault: Vault, ledger: Ledger
) -> None:
    a, b = conversation(ledger, "c1", ["Watering the seedlings", "Sowing the seed trays"])
    names(ledger, a, "Watering Can", main="Watering Can")
    names(ledger, b, "Seed Tray", main="Seed Tray")
    run(BucketStage(), context(vault, ledger))

    def hashes() -> set[str]:
        return {u.input_hash for u in ResolveStage().units(context(vault, ledger))}

    before = hashes()
    ignore(vault, "compost")
    assert hashes() == before
    ignore(vault, "watering")
    changed = hashes()
    assert len(changed - before) == 1
    assert len(changed & before) == 1


def test_units_new_for_another_page_wait_for_the_next_night(done: Vault, model: TopicModel) -> None:
    page = done.meta / "Entities.md"
    page.write_text(page.read_text(encoding="utf-8") + "- One more rule.\n", encoding="utf-8")
    report = night(done, since_policy="Topics_to_Ignore")
    extract = next(s for s in report.stages if s.stage == "extract")
    assert (extract.attempted, extract.left) == (0, 2)
    assert attempted(night(done))["extract"] == 2


class Watched:
    """A stage whose every read of a Meta page is noted."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.name = stage.name
        self.policy = stage.policy
        self.read: set[str] = set()

    def units(self, ctx: StageContext) -> Iterator[Unit]:
        return self.stage.units(self._watched(ctx))

    def run(self, ctx: StageContext, unit: Unit) -> UnitResult:
        return self.stage.run(self._watched(ctx), unit)

    def _watched(self, ctx: StageContext) -> StageContext:
        read, policy = self.read, ctx.policy

        class Noting(Policy):
            def page(self, name: str) -> PolicyPage:
                read.add(name)
                return policy.page(name)

        return replace(ctx, policy=Noting(ctx.vault))


def test_each_stage_declares_exactly_the_pages_it_reads(vault: Vault, model: TopicModel) -> None:
    drop(vault, "bread.md", BREAD)
    drop(vault, "timeouts.md", TIMEOUTS)
    watched = [Watched(s) for s in STAGES]
    night(vault, stages=watched)
    assert {w.name: w.read for w in watched} == {s.name: set(s.policy) for s in STAGES}


@pytest.mark.slow  # the console script in a child process
def test_the_command_refuses_an_unknown_page_in_one_line(vault: Vault) -> None:
    said = command("synthesize", "--vault", str(vault.root), "--since-policy", "Nope")
    assert said.returncode == 1
    assert said.stderr.startswith("dreaming: error: no stage reads a Meta page named 'Nope'")
    assert said.stderr.count("\n") == 1


@pytest.mark.slow  # the console script in a child process
def test_the_command_plans_a_since_policy_run(done: Vault) -> None:
    ignore(done, "sourdough")
    said = command(
        "synthesize",
        "--vault",
        str(done.root),
        "--since-policy",
        "Topics_to_Ignore",
        "--dry-run",
        "--model",
        "rule",
    )
    assert said.returncode == 0, said.stderr
    assert "  extract: 1 units to do" in said.stdout
    assert "  bucket:" not in said.stdout
