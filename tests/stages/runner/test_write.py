"""The one door to disk: NORMALIZE → gate → checksum-guarded write → commit of those bytes."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest

from dreaming.article import LEAD, normalize
from dreaming.ledger import Ledger, gate_rejections, runs
from dreaming.vault import OwnWrites, Vault, checksum
from dreaming.vault.repo import VaultRepo
from stages.runner.write import Edit, Writer

RUN = "run1"

THING = """\
# Thing

Thing is a small tool that people use for many purposes every day.[^1]

## History

It was first made in a shed by two friends who liked tools and wood.[^2]

## References

[^1]: `conv:aaaaaaaa` (2024-01-02, claude) — first
[^2]: `conv:bbbbbbbb` (2024-02-03, claude) — second
"""

HISTORY = "It was first made in a shed by two friends who liked tools and wood.[^2]"
BETTER = "It was first made in a garden shed by two friends who liked tools and oak.[^2]"


def git(vault: Vault, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=vault.root, capture_output=True, text=True, check=True
    ).stdout


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` but git's own, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def person(vault: Vault) -> str:
    return str(VaultRepo(vault.root).person().name)


@pytest.fixture
def own_writes() -> OwnWrites:
    return OwnWrites()


@pytest.fixture
def writer(vault: Vault, ledger: Ledger, own_writes: OwnWrites) -> Writer:
    runs.put(ledger, runs.Run(RUN, "night", "2026-12-01T03:00:00+00:00", None, "running"))
    return Writer(vault, ledger, own_writes, RUN)


def committed_thing(vault: Vault, writer: Writer) -> Path:
    """articles/Thing.md as the pipeline created and committed it."""
    assert writer.write(Edit("Thing", THING, None, stage="synthesize")).status == "written"
    assert writer.commit("create Thing") is not None
    return vault.articles / "Thing.md"


def improve(page: Path) -> Edit:
    """An edit of the History section, made from the text on disk now."""
    text = page.read_text(encoding="utf-8")
    return Edit("Thing", text.replace(HISTORY, BETTER), checksum(text), ("History",), "reconcile")


def test_a_good_new_article_is_written_normalized_and_committed_with_the_run(
    vault: Vault, writer: Writer
) -> None:
    outcome = writer.write(Edit("Thing", THING.replace("# Thing", "# Some thing"), None))
    assert (outcome.status, outcome.path) == ("written", "articles/Thing.md")
    page = vault.articles / "Thing.md"
    assert page.read_text(encoding="utf-8") == normalize(THING, stem="Thing")
    assert page.read_text(encoding="utf-8").startswith("# Thing\n")
    sha = writer.commit("create Thing")
    assert sha is not None
    assert "Dreaming-Run: run1" in git(vault, "log", "-1", "--format=%B", sha)
    assert git(vault, "log", "-1", "--format=%an", sha) == "dreaming\n"
    assert git(vault, "show", "--name-only", "--format=", sha).split() == ["articles/Thing.md"]
    assert git(vault, "status", "--porcelain") == ""


def test_an_edit_made_from_the_text_on_disk_is_written(vault: Vault, writer: Writer) -> None:
    page = committed_thing(vault, writer)
    assert writer.write(improve(page)).status == "written"
    assert BETTER in page.read_text(encoding="utf-8")
    assert writer.commit("reconcile Thing") is not None
    assert BETTER in git(vault, "show", "HEAD:articles/Thing.md")


def test_an_edit_of_an_article_no_edit_can_pass_says_what_to_fix_and_records_no_rejection(
    vault: Vault, writer: Writer, ledger: Ledger
) -> None:
    page = committed_thing(vault, writer)
    # The person cites a footnote they never define: the gate refuses every edit now.
    broken = page.read_text(encoding="utf-8").replace("wood.[^2]", "wood.[^2] And more.[^9]")
    page.write_text(broken, encoding="utf-8")
    edit = Edit("Thing", broken.replace(HISTORY, BETTER), checksum(broken), ("History",), "link")
    outcome = writer.write(edit)
    assert outcome.status == "noop_stuck"
    assert "[^9] is cited but never defined" in outcome.detail
    assert "to fix:" in outcome.detail
    assert page.read_text(encoding="utf-8") == broken
    assert gate_rejections.of_run(ledger, RUN) == []


def test_own_writes_are_recorded_in_the_registry(
    vault: Vault, writer: Writer, own_writes: OwnWrites
) -> None:
    page = committed_thing(vault, writer)
    assert own_writes.is_own(page)


def test_a_gate_rejection_is_a_noop_recorded_with_its_code(
    vault: Vault, writer: Writer, ledger: Ledger
) -> None:
    page = committed_thing(vault, writer)
    text = page.read_text(encoding="utf-8")
    head = git(vault, "rev-parse", "HEAD")
    lost = text.replace(HISTORY, "It was made.[^2]")
    outcome = writer.write(Edit("Thing", lost, checksum(text), ("History",), "reconcile", "u7"))
    assert (outcome.status, outcome.codes) == ("noop_rejected", ("word_floor",))
    assert page.read_text(encoding="utf-8") == text
    recorded = gate_rejections.of_run(ledger, RUN)
    assert [(r.stage, r.unit, r.stem, r.code) for r in recorded] == [
        ("reconcile", "u7", "Thing", "word_floor")
    ]
    assert writer.commit("nothing") is None
    assert git(vault, "rev-parse", "HEAD") == head


def test_an_edit_of_a_part_it_did_not_name_is_rejected(vault: Vault, writer: Writer) -> None:
    page = committed_thing(vault, writer)
    text = page.read_text(encoding="utf-8")
    edit = Edit("Thing", text.replace(HISTORY, BETTER), checksum(text), (LEAD,))
    assert writer.write(edit).codes == ("part_changed",)


def test_a_persons_edit_between_read_and_write_wins(vault: Vault, writer: Writer) -> None:
    page = committed_thing(vault, writer)
    edit = improve(page)
    theirs = page.read_text(encoding="utf-8") + "\nMy own line.\n"
    page.write_text(theirs, encoding="utf-8")
    outcome = writer.write(edit)
    assert outcome.status == "noop_conflict"
    assert "kept your version" in outcome.detail
    assert page.read_text(encoding="utf-8") == theirs
    assert writer.commit("nothing") is None


def test_a_file_a_person_created_before_our_new_one_wins(vault: Vault, writer: Writer) -> None:
    page = vault.articles / "Thing.md"
    page.write_text("# Thing\n\nMine.\n", encoding="utf-8")
    assert writer.write(Edit("Thing", THING, None)).status == "noop_conflict"
    assert page.read_text(encoding="utf-8") == "# Thing\n\nMine.\n"


def test_a_persons_save_between_our_write_and_our_commit_is_theirs(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    assert writer.write(improve(page)).status == "written"
    ours = page.read_bytes()
    page.write_bytes(ours + b"\nSaved by the person meanwhile.\n")
    sha = writer.commit("reconcile Thing")
    assert sha is not None
    assert git(vault, "show", f"{sha}:articles/Thing.md").encode() == ours
    log = git(vault, "log", "-2", "--format=%an|%s").splitlines()
    assert log[0].split("|") == [person(vault), "Edit by you: articles/Thing.md"]
    assert log[1] == "dreaming|reconcile Thing"
    assert "meanwhile" in git(vault, "show", "HEAD:articles/Thing.md")
    assert git(vault, "status", "--porcelain") == ""


def test_a_persons_pending_edit_we_start_from_is_committed_as_theirs_first(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    page.write_text(THING.replace("every day.[^1]", "every day, mostly.[^1]"), encoding="utf-8")
    assert writer.write(improve(page)).status == "written"
    sha = writer.commit("reconcile Thing")
    assert sha is not None
    log = git(vault, "log", "-2", "--format=%an|%s").splitlines()
    assert log == ["dreaming|reconcile Thing", f"{person(vault)}|Edit by you: articles/Thing.md"]
    ours = [line for line in git(vault, "show", "--format=", sha).splitlines() if line[:1] in "+-"]
    assert not [line for line in ours if "mostly" in line]
    assert f"+{BETTER}" in ours


def test_a_persons_save_over_our_uncommitted_write_keeps_three_authors_apart(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    assert writer.write(improve(page)).status == "written"
    page.write_text(page.read_text(encoding="utf-8") + "\nMy line.\n", encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    linked = text.replace("tools and oak", "tools and [[Oak]]")
    assert writer.write(Edit("Thing", linked, checksum(text), ("History",))).status == "written"
    assert writer.commit("link Thing") is not None
    log = git(vault, "log", "-3", "--format=%an", "--", "articles/Thing.md").splitlines()
    assert log == ["dreaming", person(vault), "dreaming"]
    assert "My line." in git(vault, "show", "HEAD~1:articles/Thing.md")
    assert "[[Oak]]" not in git(vault, "show", "HEAD~1:articles/Thing.md")


def test_a_persons_uncommitted_deletion_is_theirs_before_we_recreate_the_file(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    page.unlink()
    assert writer.write(Edit("Thing", THING, None)).status == "written"
    assert writer.commit("create Thing again") is not None
    log = git(vault, "log", "-2", "--format=%an|%s", "--", "articles/Thing.md").splitlines()
    assert log == ["dreaming|create Thing again", f"{person(vault)}|Edit by you: articles/Thing.md"]
    assert git(vault, "ls-tree", "--name-only", "HEAD~1", "articles/") == "articles/.gitkeep\n"


@pytest.mark.parametrize(
    "target",
    [
        "../x",
        "../x.md",
        "/etc/x",
        "/etc/x.md",
        "Meta/x.md",
        "Raw/x.md",
        ".dreaming/ledger.sqlite",
        "a/b",
        "..",
        ".hidden",
        "Log/../Meta/x.md",
        "Log/.x.md",
        "Log/x.txt",
        "Talk/a\x07b.md",
        "articles/sub/x.md",
        "articles/../Meta/x.md",
        "articles\\..\\Meta\\x",
        "a\x07b",
        "a\tb",
        "a\u202eb",
        "x" * 300,
        "",
    ],
)
def test_an_unsafe_target_is_refused_and_nothing_is_written(
    vault: Vault, writer: Writer, target: str
) -> None:
    before = files(vault.root.parent)
    outcome = writer.write(Edit(target, "# X\n\nText.\n", None))
    assert (outcome.status, outcome.path) == ("refused", None)
    assert outcome.detail.isprintable()
    assert files(vault.root.parent) == before
    assert writer.commit("nothing") is None


def test_a_link_to_elsewhere_in_the_vault_is_refused(vault: Vault, writer: Writer) -> None:
    policy = vault.meta / "Policy.md"
    policy.write_text("policy\n", encoding="utf-8")
    (vault.articles / "Thing.md").symlink_to(policy)
    (vault.log / "meta").symlink_to(vault.meta, target_is_directory=True)
    base = checksum(policy.read_bytes())
    for target in ("Thing", "Log/meta/Policy.md"):
        outcome = writer.write(Edit(target, "# Thing\n\nText.\n", base))
        assert outcome.status == "refused"
        assert "link" in outcome.detail
    assert policy.read_text(encoding="utf-8") == "policy\n"


@pytest.mark.timeout(10)
@pytest.mark.parametrize("target", ["Thing", "Talk/Thing.md", "Log/2026-12-01.md"])
def test_a_named_pipe_where_the_edit_goes_is_refused_at_once(
    vault: Vault, writer: Writer, target: str
) -> None:
    pipe = vault.articles / "Thing.md" if target == "Thing" else vault.root / target
    os.mkfifo(pipe)
    outcome = writer.write(Edit(target, "# Thing\n\nText.\n", None))
    assert outcome.status == "refused"
    assert outcome.detail == f"{vault.rel(pipe)}: a named pipe, not a file; delete it"
    assert writer.commit("nothing") is None


def test_a_log_page_is_written_as_given(vault: Vault, writer: Writer) -> None:
    report = "# Night of 2026-12-01\n\n* 3 articles   \n"
    assert writer.write(Edit("Log/2026/2026-12-01.md", report, None)).status == "written"
    assert (vault.log / "2026" / "2026-12-01.md").read_text(encoding="utf-8") == report
    assert writer.write(Edit("Talk/Thing.md", "Merge with [[Other]]?\n", None)).status == "written"
    sha = writer.commit("night report")
    changed = git(vault, "show", "--name-only", "--format=", str(sha)).split()
    assert changed == ["Log/2026/2026-12-01.md", "Talk/Thing.md"]


def test_an_article_path_names_the_same_file_as_its_stem(vault: Vault, writer: Writer) -> None:
    outcome = writer.write(Edit("articles/Thing.md", THING, None))
    assert (outcome.status, outcome.path) == ("written", "articles/Thing.md")


def test_an_edit_that_changes_nothing_writes_and_commits_nothing(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    text = page.read_text(encoding="utf-8")
    assert writer.write(Edit("Thing", text, checksum(text))).status == "unchanged"
    assert writer.commit("nothing") is None


def test_a_failed_edit_does_not_stop_the_next(vault: Vault, writer: Writer) -> None:
    page = committed_thing(vault, writer)
    text = page.read_text(encoding="utf-8")
    edits = [
        Edit("../escape", "x", None),
        Edit("Thing", "# Thing\n\nGone.\n", checksum(text), (LEAD,)),
        Edit("Thing", text, "stale checksum"),
        Edit("Other", "# Other\n\nOther is a thing.[^1]\n\n[^1]: `conv:cccccccc`\n", None),
        improve(page),
    ]
    statuses = [writer.write(e).status for e in edits]
    assert statuses == ["refused", "noop_rejected", "noop_conflict", "noop_rejected", "written"]
    assert writer.commit("reconcile Thing") is not None
    assert BETTER in git(vault, "show", "HEAD:articles/Thing.md")


def test_a_full_disk_keeps_the_old_file_and_is_one_line(
    vault: Vault, writer: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = committed_thing(vault, writer)
    old = page.read_bytes()
    listed = sorted(vault.articles.iterdir())

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", full)
        outcome = writer.write(improve(page))
    assert outcome.status == "failed"
    assert "No space left on device" in outcome.detail
    assert "free some disk space" in outcome.detail
    assert "\n" not in outcome.detail
    assert page.read_bytes() == old
    assert sorted(vault.articles.iterdir()) == listed
    assert writer.write(improve(page)).status == "written"


def test_known_stems_resolve_links_and_grow_with_new_articles(
    vault: Vault, ledger: Ledger, writer: Writer, own_writes: OwnWrites
) -> None:
    strict = Writer(vault, ledger, own_writes, RUN, known_stems=["Thing"])
    see_oak = "# Bench\n\nBench is made of [[Oak]].[^1]\n\n## References\n\n[^1]: `conv:cccccccc`\n"
    assert strict.write(Edit("Bench", see_oak, None)).codes == ("wikilink_unresolved",)
    oak = "# Oak\n\nOak is a hard wood.[^1]\n\n## References\n\n[^1]: `conv:dddddddd`\n"
    assert strict.write(Edit("Oak", oak, None)).status == "written"
    assert strict.write(Edit("Bench", see_oak, None)).status == "written"


def test_an_edit_whose_bytes_an_interrupted_run_left_uncommitted_commits_them(
    vault: Vault, ledger: Ledger, writer: Writer, own_writes: OwnWrites
) -> None:
    assert writer.write(Edit("Thing", THING, None, stage="synthesize")).status == "written"
    # The run is killed here, before its commit; the next run makes the same edit.
    page = vault.articles / "Thing.md"
    again = Writer(vault, ledger, own_writes, RUN)
    outcome = again.write(Edit("Thing", THING, checksum(page.read_bytes()), stage="synthesize"))
    assert outcome.status == "written"
    assert again.commit("create Thing") is not None
    assert git(vault, "log", "-1", "--format=%an") == "dreaming\n"
    assert git(vault, "status", "--porcelain") == ""


def test_an_edit_that_changes_nothing_committed_is_unchanged_and_commits_nothing(
    vault: Vault, writer: Writer
) -> None:
    page = committed_thing(vault, writer)
    text = page.read_text(encoding="utf-8")
    assert writer.write(Edit("Thing", text, checksum(text))).status == "unchanged"
    assert writer.commit("nothing") is None
