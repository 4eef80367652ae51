"""`dreaming audit`: each invariant fails on its own crafted article; a clean vault passes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dreaming.article import build
from dreaming.article.markup import Footnote
from dreaming.checks.audit import LEDGER_ABSENT, AuditDoc, AuditReport, audit
from dreaming.errors import LedgerError
from dreaming.ledger import Ledger, chunks, conversations, subjects
from dreaming.ledger.chunks import Chunk
from dreaming.ledger.conversations import NewConversation
from dreaming.ledger.subjects import Mention
from dreaming.policy.schemas import schema_kinds
from dreaming.vault import Vault
from tests.watcher.test_cli import dreaming

HASH = "0a1b2c3d"
NOW = "2026-01-01T00:00:00Z"
PROSE = "A plain sentence about the subject that says what it is and why it matters."


def remember(ledger: Ledger, hash8: str = HASH) -> None:
    conversations.put(
        ledger,
        NewConversation(f"conv-{hash8}", hash8, "raw", "Raw/t.md", None, "t", None, None, 2, "sha"),
        NOW,
    )


def cite(n: int = 1, hash8: str = HASH) -> Footnote:
    return Footnote(n, hash8, "2026-01-01", "raw", "what it says")


def clean_text(title: str = "Thing One", *, kind: str = "thing", hash8: str = HASH) -> str:
    return build(
        title,
        lead=f"{PROSE}[^1]",
        sections=[("Use", f"{PROSE}[^1]")],
        infobox={"kind": kind, "type": "tool"},
        footnotes=[cite(hash8=hash8)],
    )


def write(vault: Vault, stem: str, text: str) -> Path:
    path = vault.articles / f"{stem}.md"
    path.write_text(text, encoding="utf-8")
    return path


def checks(report: AuditReport) -> list[tuple[str, str]]:
    return [(v.file, v.check) for v in report.violations]


def only(report: AuditReport, check: str, file: str = "articles/Thing_One.md") -> str:
    assert checks(report) == [(file, check)], report.violations
    return report.violations[0].detail


# ---------------------------------------------------------------- clean


def test_a_vault_without_articles_is_clean(vault: Vault, ledger: Ledger) -> None:
    report = audit(vault, ledger)
    assert report.clean
    assert report.articles == 0
    assert report.unchecked == []


def test_a_cited_article_of_a_known_conversation_is_clean(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text())
    report = audit(vault, ledger)
    assert report.violations == []
    assert report.articles == 1


def test_a_redirect_page_is_an_article_links_may_name(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text().replace(PROSE + "[^1]\n", f"{PROSE} [[T1]][^1]\n", 1))
    write(vault, "T1", "# T1\n\n*Redirects to [[Thing One]]*\n")
    assert audit(vault, ledger).violations == []


def test_an_infobox_alias_is_a_name_links_may_use(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    text = clean_text().replace("type: tool", "type: tool\naliases: Thing 1")
    write(vault, "Thing_One", text.replace(PROSE + "[^1]\n", f"{PROSE} [[thing 1]][^1]\n", 1))
    assert audit(vault, ledger).violations == []


# ---------------------------------------------------------------- one check each


def test_an_h1_other_than_the_file_name_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text("Thing Two"))
    assert "expected '# Thing One'" in only(audit(vault, ledger), "h1")


def test_an_h1_in_decomposed_unicode_matches_its_composed_file_name(
    vault: Vault, ledger: Ledger
) -> None:
    remember(ledger)
    write(vault, "Caf\u00e9", clean_text("Cafe\u0301"))
    assert audit(vault, ledger).violations == []


def test_a_marker_without_definition_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text().replace(f"{PROSE}[^1]", f"{PROSE}[^1][^2]", 1))
    assert "[^2] is cited but never defined" in only(audit(vault, ledger), "footnotes")


def test_an_orphan_definition_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    text = clean_text().replace(cite().line(), f"{cite().line()}\n{cite(2).line()}")
    write(vault, "Thing_One", text)
    assert "[^2] is defined but never cited" in only(audit(vault, ledger), "footnotes")


def test_a_citation_of_an_unknown_conversation_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text(hash8="ffffffff"))
    assert "conv:ffffffff" in only(audit(vault, ledger), "citation")


def test_a_body_section_without_a_citation_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    text = build(
        "Thing One",
        lead=f"{PROSE}[^1]",
        sections=[("Use", f"{PROSE}[^1]"), ("History", PROSE)],
        infobox={"kind": "thing"},
        footnotes=[cite()],
    )
    write(vault, "Thing_One", text)
    assert "'History'" in only(audit(vault, ledger), "section")


def test_an_unknown_infobox_kind_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text(kind="gadget"))
    assert "'gadget'" in only(audit(vault, ledger), "infobox")


def test_a_malformed_infobox_line_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text().replace("type: tool", "just words"))
    assert "'just words'" in only(audit(vault, ledger), "infobox")


def test_an_info_block_below_lead_text_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    text = clean_text().replace("```info\n", "categories: x\n\n```info\n")
    write(vault, "Thing_One", text)
    assert "not read" in only(audit(vault, ledger), "infobox")


def test_an_unclosed_infobox_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    write(vault, "Thing_One", "# Thing One\n\n```info\nkind: thing\n")
    assert "(unclosed)" in only(audit(vault, None), "infobox")


def test_an_article_without_an_infobox_is_clean(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    text = clean_text().replace("```info\nkind: thing\ntype: tool\n```\n\n", "")
    assert "```info" not in text
    write(vault, "Thing_One", text)
    assert audit(vault, ledger).violations == []


def test_the_kinds_are_read_from_the_meta_page(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    page = vault.meta / "Infobox_Schemas.md"
    page.write_text(page.read_text().replace("kind: thing", "kind: gadget"))
    write(vault, "Thing_One", clean_text(kind="gadget"))
    write(vault, "Thing_Two", clean_text("Thing Two"))
    report = audit(vault, ledger)
    assert checks(report) == [("articles/Thing_Two.md", "infobox")]


def test_without_the_meta_page_the_seeded_kinds_apply_and_say_so(
    vault: Vault, ledger: Ledger
) -> None:
    remember(ledger)
    (vault.meta / "Infobox_Schemas.md").unlink()
    write(vault, "Thing_One", clean_text())
    report = audit(vault, ledger)
    assert report.violations == []
    assert any("Infobox_Schemas" in note for note in report.unchecked)


def test_schema_kinds_are_the_kind_lines_of_schema_blocks() -> None:
    page = "```schema\nkind: a\nx: text\n```\n```other\nkind: b\n```\n```schema\nkind: c\n```\n"
    assert schema_kinds(page) == ("a", "c")


def test_an_unresolved_wikilink_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text().replace("[^1]\n", " [[Nowhere]][^1]\n", 1))
    assert "[[Nowhere]]" in only(audit(vault, ledger), "wikilink")


def test_a_wikilink_to_a_redirected_subject_resolves(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    subjects.add(ledger, "Old Name", "Old Name", NOW)
    subjects.set_status(ledger, "Old Name", "redirect")
    subjects.redirect(ledger, "Old Name", "Thing_One", "folded", NOW)
    subjects.add(ledger, "Thing One", "Thing One", NOW)
    subjects.set_status(ledger, "Thing One", "article", "Thing_One")
    write(vault, "Thing_One", clean_text().replace("[^1]\n", " [[Old Name]][^1]\n", 1))
    assert audit(vault, ledger).violations == []


def test_a_section_after_references_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text() + "\n## Later\n\nMore text.[^1]\n")
    assert "'Later'" in only(audit(vault, ledger), "references")


def test_a_leaked_schematic_placeholder_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text().replace(PROSE, f"{PROSE} Like <Thing A>.", 1))
    assert "<Thing A>" in only(audit(vault, ledger), "schematic")


def test_a_subject_with_no_home_is_a_coverage_violation(vault: Vault, ledger: Ledger) -> None:
    subjects.add(ledger, "Loose End", "Loose End", NOW)
    assert "'Loose End'" in only(audit(vault, ledger), "coverage", "ledger")


def test_captured_and_housed_subjects_are_covered(vault: Vault, ledger: Ledger) -> None:
    remember(ledger)
    write(vault, "Thing_One", clean_text())
    subjects.add(ledger, "Thing One", "Thing One", NOW)
    subjects.set_status(ledger, "Thing One", "article", "Thing_One")
    subjects.add(ledger, "Minor", "Minor", NOW)
    subjects.set_status(ledger, "Minor", "captured")
    assert audit(vault, ledger).violations == []


def test_a_subject_filed_under_a_missing_article_is_a_violation(
    vault: Vault, ledger: Ledger
) -> None:
    subjects.add(ledger, "Gone", "Gone", NOW)
    subjects.set_status(ledger, "Gone", "article", "Gone")
    assert "'Gone'" in only(audit(vault, ledger), "coverage", "ledger")


def test_an_article_whose_writing_is_retried_is_waiting_not_a_violation(
    vault: Vault, ledger: Ledger
) -> None:
    remember(ledger)
    chunks.replace(ledger, "conv-" + HASH, [Chunk("conv-" + HASH, 0, 1, "x", "h", "1")], NOW)
    subjects.add(ledger, "Soon", "Soon", NOW)
    subjects.set_status(ledger, "Soon", "article", "Soon")
    subjects.mention(ledger, Mention(f"conv-{HASH}:0-1", "Soon", "Soon", is_main=True))
    report = audit(vault, ledger)
    assert report.violations == []
    assert any(
        "articles/Soon.md" in line and "not written yet" in line for line in report.unchecked
    )


@pytest.mark.parametrize(
    ("name", "data"),
    [("Bin.md", b"\x89PNG\r\n\x1a\n\0\0\0"), ("Latin.md", "caf\u00e9".encode("latin-1"))],
)
def test_an_unreadable_file_is_one_violation(
    vault: Vault, ledger: Ledger, name: str, data: bytes
) -> None:
    (vault.articles / name).write_bytes(data)
    assert only(audit(vault, ledger), "file", f"articles/{name}")


@pytest.mark.timeout(10)
def test_a_named_pipe_in_articles_is_one_violation_not_a_wait(vault: Vault, ledger: Ledger) -> None:
    os.mkfifo(vault.articles / "Pipe.md")
    assert only(audit(vault, ledger), "file", "articles/Pipe.md") == (
        "a named pipe, not a file; delete it"
    )


def test_a_link_in_articles_is_one_violation_and_never_read(
    vault: Vault, ledger: Ledger, tmp_path: Path
) -> None:
    (tmp_path / "passwd").write_text(clean_text("Passwd"))
    (vault.articles / "Passwd.md").symlink_to(tmp_path / "passwd")
    assert only(audit(vault, ledger), "file", "articles/Passwd.md").startswith("a link;")


def test_a_non_markdown_file_in_articles_is_a_violation(vault: Vault, ledger: Ledger) -> None:
    (vault.articles / "picture.png").write_bytes(b"\x89PNG\r\n")
    assert only(audit(vault, ledger), "file", "articles/picture.png")


def test_talk_and_log_pages_are_not_audited(vault: Vault, ledger: Ledger) -> None:
    (vault.talk / "Thing_One.md").write_text("# Something else\n\nno citations [[Nowhere]]\n")
    (vault.log / "2026-01-01.md").write_text("# Run\n\n<Thing A>\n")
    assert audit(vault, ledger).clean


# ---------------------------------------------------------------- without a ledger


def test_without_a_ledger_it_audits_articles_and_says_what_it_cannot_check(
    vault: Vault,
) -> None:
    vault.ledger_path.unlink()
    write(vault, "Thing_One", clean_text(hash8="ffffffff").replace("# Thing One", "# Other"))
    report = audit(vault, None)
    assert checks(report) == [("articles/Thing_One.md", "h1")]
    assert report.unchecked == [LEDGER_ABSENT]


def test_a_read_only_ledger_cannot_be_created_by_opening_it(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="cannot open the ledger"):
        Ledger(tmp_path / "none.sqlite", read_only=True)
    assert not (tmp_path / "none.sqlite").exists()


def test_a_read_only_ledger_refuses_writes(vault: Vault, ledger: Ledger) -> None:
    ledger.close()
    with Ledger(vault.ledger_path, read_only=True) as reader, pytest.raises(LedgerError):
        remember(reader)


# ---------------------------------------------------------------- the command


@pytest.mark.slow  # the console script in a child process
def test_the_command_exits_0_on_a_clean_vault(vault: Vault) -> None:
    result = dreaming("audit", "--vault", str(vault.root))
    assert result.returncode == 0, result.stderr
    assert "clean" in result.stdout


@pytest.mark.slow  # the console script in a child process
def test_the_command_names_each_violation_on_one_line_and_exits_1(vault: Vault) -> None:
    write(vault, "Bad\u001b[2J", clean_text("Bad"))
    result = dreaming("audit", "--vault", str(vault.root))
    assert result.returncode == 1
    assert "\u001b" not in result.stdout
    lines = [line for line in result.stdout.splitlines() if ": h1: " in line]
    assert len(lines) == 1
    assert "articles/Bad\\x1b[2J.md" in lines[0]


@pytest.mark.slow  # the console script in a child process
def test_the_command_without_a_ledger_does_not_create_one(vault: Vault) -> None:
    vault.ledger_path.unlink()
    result = dreaming("audit", "--vault", str(vault.root), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["unchecked"] == [LEDGER_ABSENT]
    assert not vault.ledger_path.exists()


@pytest.mark.slow  # the console script in a child process
def test_the_json_document_has_the_declared_keys(vault: Vault) -> None:
    write(vault, "Thing_One", clean_text("Other"))
    result = dreaming("audit", "--vault", str(vault.root), "--json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert set(doc) == set(AuditDoc.__annotations__)
    assert doc["violations"][0] == {"file": "articles/Thing_One.md", "check": "h1"} | {
        "detail": doc["violations"][0]["detail"]
    }
    assert doc["clean"] is False


@pytest.mark.slow  # the console script in a child process
def test_the_command_changes_neither_the_vault_nor_the_ledger(vault: Vault) -> None:
    with Ledger(vault.ledger_path) as led:
        remember(led)
        subjects.add(led, "Loose End", "Loose End", NOW)
    write(vault, "Thing_One", clean_text("Other"))
    before = {
        p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file() and ".git/" not in str(p)
    }
    assert dreaming("audit", "--vault", str(vault.root)).returncode == 1
    after = {
        p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file() and ".git/" not in str(p)
    }
    # SQLite's WAL index files beside the ledger are its reader's, not a change of the ledger.
    assert {p.name for p in after.keys() - before.keys()} <= {
        "ledger.sqlite-wal",
        "ledger.sqlite-shm",
    }
    assert {p: after[p] for p in before} == before
