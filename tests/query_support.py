"""Vaults for the read path's tests: articles written by the grammar's renderer (and the
shipped examples), conversations in the ledger as INGEST leaves them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.wiki_gen import generate
from dreaming.article import build
from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger, conversations
from dreaming.ledger.conversations import NewConversation
from dreaming.query import BUDGET, Reader, Result
from dreaming.query.budget import ENVELOPE
from dreaming.transcript import Message
from dreaming.vault import Vault

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
NOW = "2026-03-02T03:00:00+00:00"


def note(n: int, hash8: str = "0a1b2c3d", desc: str = "a talk") -> Footnote:
    return Footnote(n, hash8, "2026-02-01", "claude-code", desc)


def write(vault: Vault, stem: str, text: str) -> Path:
    path = vault.articles / f"{stem}.md"
    path.write_text(text, encoding="utf-8")
    return path


def article(
    vault: Vault,
    title: str,
    *,
    lead: str = "",
    sections: tuple[tuple[str, str], ...] = (),
    infobox: dict[str, str] | None = None,
    see_also: tuple[str, ...] = (),
    footnotes: tuple[Footnote, ...] = (),
    categories: tuple[str, ...] = (),
) -> str:
    """Writes the article `build` renders; its stem."""
    stem = title.replace(" ", "_")
    lead = lead or f"{title} is a thing the person works with.[^1]"
    notes = footnotes or (note(1),)
    text = build(
        title,
        lead=lead,
        sections=sections,
        infobox=infobox if infobox is not None else {"kind": "tool"},
        see_also=see_also,
        footnotes=notes,
        categories=categories,
    )
    write(vault, stem, text)
    return stem


def examples(vault: Vault) -> list[str]:
    """The shipped example articles copied into the vault; their stems."""
    stems = []
    for path in sorted(EXAMPLES.glob("*.md")):
        if path.name in ("README.md",) or path.name.startswith("Log-"):
            continue
        shutil.copy(path, vault.articles / path.name)
        stems.append(path.stem)
    return stems


def conversation(
    ledger: Ledger, hash8: str, turns: list[tuple[str, str]], conv_id: str | None = None
) -> str:
    """A conversation with these (role, text) messages; its id."""
    conv_id = conv_id or f"session-{hash8}"
    msgs = [Message(role, text) for role, text in turns]  # type: ignore[arg-type]
    with ledger.transaction():
        conversations.put(
            ledger,
            NewConversation(conv_id, hash8, "claude-code", "Raw/a.jsonl", None, "A talk", None,
                            NOW, len(msgs), "sha"),
            NOW,
        )  # fmt: skip
        conversations.add_messages(ledger, conv_id, 0, msgs)
    return conv_id


def within_budget(result: Result) -> Result:
    """`result`, checked: its text and, as it travels (its JSON document in the
    transport's envelope), the whole of it within BUDGET."""
    assert result.size <= BUDGET, (result.size, result.text[-200:])
    assert result.data["bytes"] == result.size
    doc = json.dumps(result.document(), ensure_ascii=False, separators=(",", ":"))
    assert len(doc.encode("utf-8")) + ENVELOPE <= BUDGET, result.text[-200:]
    return result


def pages_of(read: object, **kwargs: object) -> list[Result]:
    """Every page of a paged read, following `next` until it ends."""
    assert callable(read)
    out: list[Result] = [within_budget(read(**kwargs))]
    while out[-1].next is not None:
        assert len(out) < 1000
        out.append(within_budget(read(**{**kwargs, "page": len(out) + 1})))
    return out


def reader(vault: Vault, ledger: Ledger) -> Reader:
    return Reader(vault, ledger)


HUGE = "Huge_Article"
"""The stem of `big_wiki`'s article that no single read holds."""


def big_wiki(vault: Vault, ledger: Ledger) -> str:
    """A wiki that no tool can answer in one piece: 150 generated articles (bench's), one of
    400 sections with a 9 KB lead, a link to every other article, 150 infobox fields and 40
    namesakes of one alias, and a conversation of 300 messages. The conversation's id."""
    generate(vault.articles, 150)
    titles = [p.stem.replace("_", " ") for p in sorted(vault.articles.glob("*.md"))]
    lead = " ".join(f"Sentence {i} of the lead about [[{t}]].[^1]" for i, t in enumerate(titles))
    sections = tuple(
        (f'Section {i} "quoted" ünïcode', f"Body {i} of the section.[^1]\n\nMore.[^1]")
        for i in range(400)
    )
    box = {"kind": "project", "type": "cli", "aliases": "Same"}
    box.update({f"field{i}": f'value {i} with \\ and " in it' for i in range(150)})
    article(
        vault,
        HUGE.replace("_", " "),
        lead=lead,
        sections=sections,
        infobox=box,
        see_also=tuple(titles[:60]),
        categories=("Everything",),
    )
    for i in range(40):
        article(vault, f"Namesake {i}", infobox={"kind": "project", "aliases": "Same"})
    turns = [("user" if i % 2 else "assistant", f"turn {i} " + "word " * 80) for i in range(300)]
    return conversation(ledger, "9e9e9e9e", turns)
