"""The vault as Obsidian shows it: a night's articles, Talk page and run report, read by
obsidiantools (a third-party parser of Obsidian vaults), not only by our own grammar.

Obsidian finds the note a `[[link]]` names by its file's path, never by its H1 or an
alias: the whole target is an exact vault path (`[[Talk/Beads]]`), else a file of that
name in the linking note's own folder, else the one with the shortest path; without
regard to case. (Obsidian's help, "Internal links" and "Aliases"; the order observed on
Obsidian 1.13.7 through `app.metadataCache.getFirstLinkpathDest`, pvliesdonk/
markdown-vault-mcp#1380.) obsidiantools matches the name only, with case, and knows a
note by its path only when two share a name, so `resolve` below applies Obsidian's order
to the links obsidiantools read; its own list of missing notes is checked too, its
blind spots named. The test skips, saying why, where obsidiantools is not installed.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dreaming.article import build
from dreaming.article.titles import heading_key
from dreaming.config import Settings
from dreaming.vault import Vault
from dreaming.vault.scaffold import init_vault
from stages.runner.pipeline import run_night
from tests.rule_model import RuleModel
from tests.support import every_load_gives
from watcher.app import App

otools = pytest.importorskip(
    "obsidiantools.api",
    reason="obsidiantools is not installed (the dev extra brings it: pip install -e '.[dev]')",
)

ROOF = (
    "The roof is felt on ten millimetre boards with a slope of fifteen degrees.[^2]\n\n"
    "Felt lasts about fifteen years when the gutters are kept clear of leaves and moss.[^2]\n\n"
    "A second layer of felt went on in June because the first one tore near the door.[^2]"
)
BEADS = "Beads tracks issues for coding agents with hash ids and dependency links."


def refs(*convs: str) -> str:
    return "\n".join(
        f"[^{n}]: `conv:{c}` (2026-03-0{n}, claude-code) — talk {n}" for n, c in enumerate(convs, 1)
    )


def seed(vault: Vault) -> None:
    """Articles as earlier nights wrote them (titles of two words live in `Title_Two.md`),
    one a person made in Obsidian (`Rain Barrel.md`, spaces in its name, a link by an
    alias), a person's link in other case to a heading; a category to file under and a
    split rule to meet."""
    articles = {
        "Garden_Shed": build(
            "Garden Shed",
            lead="The Garden Shed is a wooden shed built with a Cordless Drill.[^1]",
            sections=[
                ("Walls", "The walls are cedar (see [[cordless drill#history]]).[^1]"),
                ("Roof", ROOF),
                ("References", refs("aaaa1111", "bbbb2222")),
            ],
            infobox={"kind": "project", "aliases": "the shed", "built_with": "[[Cordless Drill]]"},
        ),
        "Cordless_Drill": build(
            "Cordless Drill",
            lead="The Cordless Drill is an 18 V drill used on the garden shed.[^1]",
            sections=[
                ("History", "Bought in March for the garden shed and the rain barrel.[^1]"),
                ("References", refs("aaaa1111")),
            ],
            infobox={"kind": "thing", "aliases": "the drill"},
        ),
        "Beads": build(
            "Beads", lead=f"{BEADS}[^1]", sections=[("References", refs("cccc3333"))],
            infobox={"kind": "thing"},
        ),
        "Issue_Tracker": build(
            "Issue Tracker", lead=f"{BEADS}[^1]", sections=[("References", refs("cccc3333"))],
            infobox={"kind": "thing"},
        ),
        "Rain Barrel": (
            "# Rain Barrel\n\nMy rain barrel catches water off the shed roof.\n\n"
            "I cut its tap hole with [[the drill]].\n"
        ),
    }  # fmt: skip
    for stem, text in articles.items():
        (vault.articles / f"{stem}.md").write_text(text, encoding="utf-8")
    for page, old, new in (
        ("Summary_Style", "min_words: 400", "min_words: 40"),
        ("Category_Definitions", "```categories\n", "```categories\nGarden projects: a shed\n"),
    ):
        path = vault.meta / f"{page}.md"
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git = ["git", "-C", str(vault.root), "-c", "user.name=p", "-c", "user.email=p@localhost"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "earlier nights and the person"], check=True)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault from `dreaming init`, seeded, after one real night (LINK, EDITORIAL's
    split, merge proposal and filing, the run report) on a model answering by rule."""
    vault = init_vault(tmp_path_factory.mktemp("obsidian") / "vault").vault
    seed(vault)
    with pytest.MonkeyPatch.context() as patch:
        every_load_gives(patch, RuleModel())
        with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
            report = run_night(app)
    assert report.status == "ok"
    assert report.summary()["failures"] == 0
    return vault.root


def obsidian(root: Path) -> Any:
    """The vault as obsidiantools reads it: its links, front matter and text."""
    with warnings.catch_warnings():
        # Its HTML and table libraries warn about their own use of each other.
        warnings.simplefilter("ignore")
        return otools.Vault(root).connect().gather()


def resolve(target: str, source: str, notes: list[str]) -> str | None:
    """The note (vault path without `.md`) Obsidian opens for `[[target]]` written in
    the note `source`: an exact vault path, else a note of that name in `source`'s
    folder, else the shortest path of that name; case ignored."""
    want = target.strip().removesuffix(".md").casefold()
    folder = posixpath.dirname(source)
    named = [n for n in notes if n.casefold() == want or n.casefold().endswith("/" + want)]
    exact = [n for n in named if n.casefold() == want]
    beside = [n for n in named if posixpath.dirname(n) == folder]
    found = exact or beside or sorted(named, key=len)
    return found[0] if found else None


def links(vault: Any) -> Iterator[tuple[str, str]]:
    """(note, target) for every wikilink obsidiantools found outside code: its alias and
    heading cut off, as Obsidian reads them; the note as its vault path."""
    for name, targets in vault.wikilinks_index.items():
        note = vault.md_file_index[name].with_suffix("").as_posix()
        for target in targets:
            yield note, target


def written(root: Path) -> list[str]:
    """The notes a night wrote: its articles, Talk pages and run reports."""
    return sorted(
        p.relative_to(root).with_suffix("").as_posix()
        for folder in ("articles", "Talk", "Log")
        for p in (root / folder).glob("*.md")
        if p.name != "README.md"
    )


CATEGORY = re.compile(r"Category:", re.IGNORECASE)
"""`[[Category:Name]]`: a category, no note (see `test_a_category_is_a_link_to_no_note`)."""


def meant(target: str, notes: list[str]) -> str | None:
    """The note our grammar means by `target`: an article whose file name is the target
    with `_` read as a space, case ignored; `Talk/X` and `articles/X` in that folder."""
    folder, _, name = target.rpartition("/")
    return next(
        (
            n
            for n in notes
            if posixpath.dirname(n) == (folder or "articles")
            and heading_key(posixpath.basename(n)) == heading_key(name)
        ),
        None,
    )


def test_every_link_a_night_wrote_opens_the_note_it_means(night: Path) -> None:
    vault = obsidian(night)
    notes = [p.with_suffix("").as_posix() for p in vault.md_file_index.values()]
    ours = set(written(night))
    wrong = [
        (note, target, resolve(target, note, notes), meant(target, notes))
        for note, target in links(vault)
        if note in ours and not CATEGORY.match(target)
        if resolve(target, note, notes) != meant(target, notes) or meant(target, notes) is None
    ]
    assert wrong == [], "\n".join(map(str, wrong))


def test_obsidiantools_misses_only_what_it_cannot_follow(night: Path) -> None:
    # Its own blind spots, not Obsidian's: a name two notes share (`articles/Beads.md`
    # and `Talk/Beads.md`) it knows only by path, and a path to a note whose name is
    # unique it knows only by name. Obsidian opens both (the test above).
    vault = obsidian(night)
    names = [Path(p).stem for p in vault.md_file_index.values()]
    shared = {n for n in names if names.count(n) > 1}
    blind = [
        n
        for n in vault.nonexistent_notes
        if not CATEGORY.match(n) and n not in shared and "/" not in n
    ]
    assert blind == []


def test_a_note_a_person_named_with_spaces_is_linked_by_its_name(night: Path) -> None:
    drill = (night / "articles" / "Cordless_Drill.md").read_text(encoding="utf-8")
    assert "the [[Rain Barrel|rain barrel]]." in drill
    vault = obsidian(night)
    assert "Rain Barrel" in vault.backlinks_index
    assert "Cordless_Drill" in vault.backlinks_index["Rain Barrel"]


def test_a_person_s_link_by_an_alias_names_the_file(night: Path) -> None:
    # "the drill" is an alias of Cordless Drill (its infobox): Obsidian opens no note by
    # an alias, so LINK names the file and keeps the words.
    barrel = (night / "articles" / "Rain Barrel.md").read_text(encoding="utf-8")
    assert "with [[Cordless_Drill|the drill]]." in barrel


def test_a_person_s_link_to_a_heading_names_the_file_and_keeps_the_heading(night: Path) -> None:
    shed = (night / "articles" / "Garden_Shed.md").read_text(encoding="utf-8")
    assert "(see [[Cordless_Drill#history]])" in shed
    drill = (night / "articles" / "Cordless_Drill.md").read_text(encoding="utf-8")
    # Obsidian scrolls to the heading the anchor names; "history" is "## History".
    assert "\n## History\n" in drill


def test_every_footnote_marker_meets_its_definition(night: Path) -> None:
    # python-markdown's footnotes, as obsidiantools renders a note: a marker with no
    # definition stays `[^1]` in the text, a definition becomes a numbered note whose
    # back-links (↩) count the markers citing it.
    vault = obsidian(night)
    for name, path in vault.md_file_index.items():
        if path.parts[0] != "articles":
            continue
        source = (night / path).read_text(encoding="utf-8")
        text = vault.source_text_index[name]
        assert "[^" not in text, name
        cited = len(re.findall(r"\[\^\d+\](?!:)", source))
        assert text.count("↩") == cited, name


def test_the_infobox_is_one_code_block_and_no_front_matter(night: Path) -> None:
    # Obsidian shows the ```info block as code: nothing of it leaks into the prose, and
    # the lead after it is prose. Its `[[links]]` are text there, not links (dreaming's
    # own index follows them); the articles carry no front matter of ours.
    vault = obsidian(night)
    text = vault.source_text_index["Garden_Shed"]
    assert "kind:" not in text
    assert "built_with" not in text
    assert "The Garden Shed is a wooden shed built with a [[Cordless_Drill|Cordless Drill]]" in (
        text
    )
    assert "Cordless Drill" not in vault.wikilinks_index["Garden_Shed"]  # the infobox's
    for name, path in vault.md_file_index.items():
        if path.parts[0] == "articles":
            assert vault.front_matter_index[name] == {}, name
    assert vault.front_matter_index["Entities"]["dreaming"] == "policy"


def test_a_category_is_a_link_to_no_note(night: Path) -> None:
    # `[[Category:Name]]` (the article grammar's) names no file: Obsidian shows it as a
    # link to a note not yet made, and a click would make `Category:Name.md`, a name
    # Windows cannot hold. Known and kept (docs/vault.md, "Links in Obsidian").
    vault = obsidian(night)
    categories = {n for n in vault.nonexistent_notes if CATEGORY.match(n)}
    assert categories == {"Category:Garden projects"}


def test_the_run_report_lists_each_article_once_and_its_table_renders(night: Path) -> None:
    vault = obsidian(night)
    (report,) = (
        n for n, p in vault.md_file_index.items() if p.parts[0] == "Log" and p.stem[0] == "2"
    )
    text = vault.source_text_index[report]
    updated = text.split("### Articles updated", 1)[1].split("###", 1)[0]
    items = [line.strip() for line in updated.splitlines() if line.strip()]
    assert len(items) == len(set(items))
    assert "| --- |" not in text  # the stage table is a table, not pipes in a paragraph
    assert re.search(r"^link \d+ 0 0 0 0 ", text, re.MULTILINE)  # a row: its cells, no bars
