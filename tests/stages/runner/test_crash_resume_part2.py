"""RECONCILE, LINK and EDITORIAL killed (SIGKILL) at every point they reach and started
again end where uninterrupted runs do: the same articles, Talk pages, ledger and
commits, audit clean, nothing of ours left uncommitted.

The vault holds conversations and articles drawn from them that give every stage work:
a project whose position changed between two conversations (an infobox to fill, a
sentence to date, a History trace), mentions to link, conversations two articles share
(See also), two stubs about one thing under two names (a merge proposal), a section
that outgrew its article (a split), a section opening with its lead's sentence (a
tighten) and a defined category (the rule model says yes to
every question). Each kind of event of each
stage's run is a kill point once, then seeded draws up to `KILL_POINTS`.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from dreaming.article import build
from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger, conversations
from dreaming.vault.scaffold import init_vault
from stages.jobs.ingest import ingest
from tests.stages.runner.test_crash_resume import (
    TALKS,
    audit_clean,
    contents,
    git_state,
    pipeline_commits,
    run_child,
)
from tests.support import drop

pytestmark = pytest.mark.slow  # nights killed in child processes

STAGES = ("reconcile", "link", "editorial")
KILL_POINTS = 30
SEED = 18


def article(root: Path, title: str, lead: str, hash8: str) -> None:
    note = Footnote(1, hash8, "2026-01-02", "markdown", "a talk")
    text = build(
        title, lead=f"{lead}[^1]", sections=[], infobox={"kind": "thing"}, footnotes=(note,)
    )
    (root / "articles" / f"{title.replace(' ', '_')}.md").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = init_vault(tmp_path_factory.mktemp("fresh") / "vault").vault
    for name, text in TALKS.items():
        drop(vault, name, text)
    with Ledger(vault.ledger_path) as ledger:
        ingest(vault, ledger)
        cites = {
            c.title: conversations.citation(ledger, c.id) for c in conversations.by_updated(ledger)
        }
        hashes = {title: c.hash8 for title, c in cites.items() if c is not None}
    bread, timeouts = hashes["Bread"], hashes["Timeouts"]
    same = "Wrap the loaf in a cotton cloth or slice and freeze it to keep it fresh."
    article(vault.root, "Sourdough Bread", same, bread)
    article(vault.root, "Bread Keeping", same, bread)
    article(vault.root, "Bread Box", "A Bread Box keeps the crust of Sourdough Bread crisp.", bread)
    article(vault.root, "Requests", "Requests times out unless given a timeout.", timeouts)
    article(vault.root, "Httpx", "Httpx has the timeouts of Requests and adds async.", timeouts)
    notes = (
        Footnote(1, bread, "2026-01-02", "markdown", "a talk"),
        Footnote(2, timeouts, "2026-02-03", "markdown", "a later talk"),
    )
    oven = build(
        "Oven Build",
        lead="Oven Build is a brick oven project.[^1] The oven is planned for the summer.[^1]",
        sections=[("Result", "The Oven Build was finished in August.[^2]")],
        infobox={"kind": "project"},
        footnotes=notes,
    )
    (vault.root / "articles" / "Oven_Build.md").write_text(oven, encoding="utf-8")
    page = vault.meta / "Category_Definitions.md"
    block = "```categories\nKitchen: bread, food and cooking\n"
    page.write_text(page.read_text(encoding="utf-8").replace("```categories\n", block))
    commit_as_person(vault.root)
    shed = build(
        "Garden Shed",
        lead="The Garden Shed is a wooden shed.[^1]",
        sections=[
            ("Walls", "The Garden Shed is a wooden shed. The walls are cedar.[^1]"),
            ("Roof", ROOF),
        ],
        infobox={"kind": "project"},
        footnotes=notes,
    )
    (vault.root / "articles" / "Garden_Shed.md").write_text(shed, encoding="utf-8")
    style = vault.meta / "Summary_Style.md"
    rule = "```split\nmin_words: 20\nshare_percent: 50\n```"
    style.write_text(style.read_text(encoding="utf-8").replace(DEFAULT_RULE, rule))
    commit_as_pipeline(vault.root)  # an article of ours: split, not proposed
    return vault.root


ROOF = (
    "The roof is felt on ten millimetre boards with a slope of fifteen degrees.[^1]\n\n"
    "Felt lasts about fifteen years when the gutters are kept clear of leaves.[^2]"
)
DEFAULT_RULE = "```split\nmin_words: 400\nshare_percent: 50\n```"


def commit_as_pipeline(root: Path) -> None:
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    ours = ["-c", "user.name=dreaming", "-c", "user.email=dreaming@localhost"]
    subprocess.run(["git", "-C", str(root), *ours, "commit", "-qm", "ours"], check=True)


def commit_as_person(root: Path) -> None:
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=p",
            "-c",
            "user.email=p@x",
            "commit",
            "-qm",
            "mine",
        ],
        check=True,
    )


def both_stages(vault: Path, kill: tuple[str, str, int] | None = None) -> None:
    for stage in STAGES:
        options = ["--kill", f"{kill[1]}:{kill[2]}"] if kill and kill[0] == stage else []
        done = run_child(vault, *options, args=("synthesize", "--stage", stage, "--vault"))
        if options:
            assert done.returncode == -signal.SIGKILL, (kill, done.stderr)
            again = run_child(vault, args=("synthesize", "--stage", stage, "--vault"))
            assert again.returncode == 0, (kill, again.stderr)
        else:
            assert done.returncode == 0, (stage, done.stderr)


def counted(vault: Path) -> dict[str, dict[str, int]]:
    out = {}
    for stage in STAGES:
        counts = vault.parent / f"{stage}.json"
        done = run_child(
            vault, "--count", str(counts), args=("synthesize", "--stage", stage, "--vault")
        )
        assert done.returncode == 0, done.stderr
        out[stage] = {e: n for e, n in json.loads(counts.read_text()).items() if n > 0}
    return out


@pytest.fixture(scope="module")
def uninterrupted(
    fresh: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, dict[str, int]]]:
    vault = tmp_path_factory.mktemp("whole") / "vault"
    shutil.copytree(fresh, vault)
    return vault, counted(vault)


def test_the_uninterrupted_runs_reconcile_link_list_propose_and_file(
    uninterrupted: tuple[Path, dict[str, dict[str, int]]],
) -> None:
    vault, counts = uninterrupted
    oven = (vault / "articles" / "Oven_Build.md").read_text(encoding="utf-8")
    assert "status: finished" in oven
    assert "As of January 2026, the oven is planned" in oven
    shed = (vault / "articles" / "Garden_Shed.md").read_text(encoding="utf-8")
    assert "*Main article: [[Roof]]*" in shed
    assert "## Walls\n\nThe walls are cedar.[^1]\n" in shed  # tightened
    assert (vault / "articles" / "Roof.md").exists()
    bread = (vault / "articles" / "Bread_Box.md").read_text(encoding="utf-8")
    assert "[[Sourdough_Bread|Sourdough Bread]]" in bread  # the file, as Obsidian opens it
    assert "## See also" in bread
    assert "[[Category:Kitchen]]" in bread
    assert any("## Merge" in p.read_text() for p in (vault / "Talk").glob("*.md"))
    assert sum(n for events in counts.values() for n in events.values()) >= KILL_POINTS
    assert audit_clean(vault) == []


@pytest.mark.timeout(600)  # 30 kill points, three child processes each: ~80 s when quiet
def test_the_part_two_stages_killed_anywhere_resume_to_the_uninterrupted_result(
    fresh: Path, uninterrupted: tuple[Path, dict[str, dict[str, int]]], tmp_path: Path
) -> None:
    whole, counts = uninterrupted
    settled = tmp_path / "settled"
    shutil.copytree(whole, settled)
    both_stages(settled)
    expected = {**contents(whole), "talk": talk(whole)}
    expected_settled = {**contents(settled), "talk": talk(settled)}
    expected_commits, expected_git = pipeline_commits(whole), git_state(whole)
    for i, point in enumerate(kill_points(counts)):
        vault = tmp_path / f"trial-{i}"
        shutil.copytree(fresh, vault)
        both_stages(vault, point)
        assert audit_clean(vault) == [], point
        assert git_state(vault) == expected_git, point
        if point[0] != "link":
            assert {**contents(vault), "talk": talk(vault)} == expected, point
            assert pipeline_commits(vault) == expected_commits, point
            continue
        # A See also lists the articles linking to it, and a resumed LINK run starts
        # from the links the killed one wrote: it may list one a night early, and a
        # list only grows at its end. The vault settles to the same links and lists (an
        # item's place aside), and nothing is ever the person's.
        both_stages(vault)
        got = _unordered({**contents(vault), "talk": talk(vault)})
        assert got == _unordered(expected_settled), point
        assert _persons(pipeline_commits(vault)) == _persons(expected_commits), point


def _unordered(state: dict[str, object]) -> dict[str, object]:
    """Articles with their See also items sorted, the index (their checksums) left out."""
    out = {k: v for k, v in state.items() if k != "article_index"}
    for key, value in state.items():
        if key.startswith("articles/") and isinstance(value, bytes):
            lines = value.decode("utf-8").split("\n")
            items = [i for i, line in enumerate(lines) if line.startswith("- [[")]
            for i, line in zip(items, sorted(lines[i] for i in items), strict=True):
                lines[i] = line
            out[key] = "\n".join(lines)
    return out


def _persons(commits: list[str]) -> list[str]:
    return [c for c in commits if c.startswith("person:")]


def kill_points(counts: dict[str, dict[str, int]]) -> list[tuple[str, str, int]]:
    """(stage, event, n): every kind of event of each stage once, then seeded draws."""
    rng = random.Random(SEED)
    kinds = sorted((s, e) for s, events in counts.items() for e in events)
    points = [(s, e, rng.randint(1, counts[s][e])) for s, e in kinds]
    while len(points) < KILL_POINTS:
        s, e = rng.choice(kinds)
        points.append((s, e, rng.randint(1, counts[s][e])))
    return points


def talk(vault: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((vault / "Talk").glob("*.md"))}
