"""`dreaming eval wiki`: what the nights wrote, scored; against a gold set when given.

Gold-free: articles, redirects, captured subjects, articles per conversation, stubs,
structural violations (`audit`), model calls and seconds per conversation by stage,
and the share of lead and body sentences their cited excerpt does not hold (the
write-time check of `dreaming.article.claims`, run again on what is on disk). The
excerpt of a footnote is the chunk its description names (its label) in the
conversation its `conv:HASH` names; where no chunk carries that label, the whole
conversation.

With a gold set (JSONL, one labelled conversation a line; docs/eval.md), per split:
subject coverage (a gold subject with an article, a redirect or a captured subject
under any of its names), the main subjects' coverage, subject precision (articles and
captured names from the split's conversations that some gold subject of theirs
names), key-fact recall (every term group of the fact found in the text of the
articles citing the conversation), not-fact hits (one sentence holding every term
group of a statement that must not become a fact), and kind accuracy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dreaming.article import parse, title_for_stem
from dreaming.article.claims import keep_supported
from dreaming.article.document import tail_rank
from dreaming.article.history import TRACE, undated
from dreaming.article.markup import category_name, markers
from dreaming.article.queries import (
    aliases,
    article_wikilinks,
    categories,
    footnote_defs,
    is_redirect,
    is_stub,
    redirect_target,
    see_also,
)
from dreaming.article.words import sentences
from dreaming.checks.audit import audit
from dreaming.checks.gold import Gold, names_key
from dreaming.checks.shape import Page, shape, shape_text
from dreaming.errors import RefusedFileError
from dreaming.ledger import Ledger, chunks, conversations, model_calls, subjects, work
from dreaming.vault import Vault
from dreaming.vault.files import MAX_PAGE_BYTES, read_bytes

SPLITS = ("tune", "heldout", "all")


@dataclass
class _Written:
    """One article as the scorecard reads it."""

    title: str
    redirect: bool
    kind: str | None
    convs: set[str]
    text: str
    """The lead and body, code included: where a key fact is looked for."""
    sentences: list[tuple[str, set[str]]]
    """(sentence, the conversations its markers cite) for each lead and body sentence."""
    stub: bool
    page: Page
    supported: list[bool] = field(default_factory=list)


@dataclass
class Share:
    hit: int = 0
    of: int = 0

    def add(self, ok: bool) -> None:
        self.hit += int(ok)
        self.of += 1

    def text(self) -> str:
        return f"{self.hit}/{self.of} = {100 * self.hit / self.of:.0f} %" if self.of else "n/a"

    def json(self) -> dict[str, Any]:
        return {"hit": self.hit, "of": self.of, "share": self.hit / self.of if self.of else None}


@dataclass
class Scorecard:
    free: dict[str, Any]
    per_split: dict[str, dict[str, Share]] = field(default_factory=dict)
    absent: int = 0
    """Gold conversations this vault's ledger does not hold."""

    def as_json(self) -> dict[str, Any]:
        return {
            "free": self.free,
            "gold": {k: {m: s.json() for m, s in v.items()} for k, v in self.per_split.items()},
            "gold_not_in_vault": self.absent,
        }

    def text(self) -> str:
        f = self.free
        lines = [
            self.free_text(),
            f"model: {f['calls_per_conversation']:.1f} calls and "
            f"{f['seconds_per_conversation']:.1f} s a conversation; "
            + ", ".join(
                f"{k} {v['calls']} calls {v['seconds']:.1f} s" for k, v in f["stages"].items()
            ),
        ]
        for split, metrics in self.per_split.items():
            lines.append(f"{split}: " + "; ".join(f"{m} {s.text()}" for m, s in metrics.items()))
        if self.absent:
            lines.append(f"{self.absent} gold conversations are not in this vault")
        return "\n".join(lines)

    def free_text(self) -> str:
        """The wiki's state in two lines (what a night's run report ends with)."""
        f = self.free
        return (
            f"articles {f['articles']}, redirects {f['redirects']}, captured {f['captured']}, "
            f"conversations {f['conversations']} ({f['articles_per_conversation']:.2f} "
            f"articles a conversation), stubs {f['stubs']}\n"
            f"unsupported sentences {f['unsupported']}/{f['sentences']} "
            f"({100 * f['unsupported'] / max(1, f['sentences']):.1f} %), "
            f"structural violations {f['violations']}\n"
            f"{shape_text(f['shape'])}\n"
            "through the write gate: "
            + ", ".join(f"{s} {d}/{d + r}" for s, (d, r) in f["gate"].items() if d + r)
        )


WRITING = ("synthesize", "reconcile", "link", "editorial")
"""The stages whose units write articles through the gate."""


def scorecard(vault: Vault, ledger: Ledger, gold: Sequence[Gold] = ()) -> Scorecard:
    written = _articles(vault, ledger)
    captured = [s for s in subjects.every(ledger) if s.status == "captured"]
    held = {c.id for c in conversations.by_updated(ledger)}
    convs = len(held)
    usage = model_calls.usage(ledger)
    real = [a for a in written.values() if not a.redirect]
    checked = [ok for a in real for ok in a.supported]
    free: dict[str, Any] = {
        "articles": len(real),
        "redirects": len(written) - len(real),
        "captured": len(captured),
        "conversations": convs,
        "articles_per_conversation": len(real) / max(1, convs),
        "stubs": sum(a.stub for a in real),
        "sentences": len(checked),
        "unsupported": checked.count(False),
        "violations": len(audit(vault, ledger).violations),
        "calls_per_conversation": sum(u["calls"] for u in usage.values()) / max(1, convs),
        "seconds_per_conversation": sum(u["seconds"] for u in usage.values()) / max(1, convs),
        "stages": {k: {"calls": u["calls"], "seconds": u["seconds"]} for k, u in usage.items()},
        "shape": shape({stem: a.page for stem, a in written.items()}, _talk_pages(vault)),
        "gate": work.outcomes(ledger, WRITING),
    }
    card = Scorecard(free)
    if gold:
        present = [g for g in gold if g.conv in held]
        card.absent = len(gold) - len(present)
        named = subjects.conversations_of(ledger)
        homes = _homes(written, captured, named)
        for split in SPLITS:
            rows = [g for g in present if split in ("all", g.split)]
            if rows:
                card.per_split[split] = _score(rows, real, homes)
    return card


def _articles(vault: Vault, ledger: Ledger) -> dict[str, _Written]:
    out: dict[str, _Written] = {}
    excerpts: dict[tuple[str, str], tuple[str, set[str]]] = {}
    for path in sorted(vault.articles.glob("*.md")):
        try:
            data = read_bytes(vault, path, cap=MAX_PAGE_BYTES, what="an article")
            article = parse(data.decode("utf-8"))
        except (OSError, RefusedFileError, UnicodeDecodeError, ValueError):
            # The audit counts an article that cannot be read; here it is no text.
            continue
        title = article.title or title_for_stem(path.stem)
        by_number: dict[str, tuple[str, set[str]]] = {}
        for f in footnote_defs(article):
            key = (f.hash, f.desc)
            if key not in excerpts:
                excerpts[key] = _excerpt(ledger, f.hash, f.desc)
            by_number[str(f.number)] = excerpts[key]
        blocks = [article.lead, *(x.body for x in article.sections if tail_rank(x) == 0)]
        written = _Written(
            title=title,
            redirect=is_redirect(article),
            kind=dict(article.infobox or ()).get("kind"),
            convs={c for _, convs in by_number.values() for c in convs},
            text="\n\n".join(blocks),
            sentences=[],
            stub=is_stub(article),
            page=Page(
                names=(path.stem, title, *aliases(article)),
                links=tuple(
                    link.target for link in article_wikilinks(article) if not category_name(link)
                ),
                see_also=len(see_also(article)),
                categories=len(categories(article)),
                convs=frozenset(f.hash for f in footnote_defs(article)),
                redirect_to=redirect_target(article),
            ),
        )
        by_excerpt: dict[str, list[str]] = {}
        for sentence, cited in _sentences(blocks):
            cites = [by_number[n] for n in cited if n in by_number]
            written.sentences.append((sentence, {c for _, cs in cites for c in cs}))
            if cites:
                excerpt = "\n\n".join(text for text, _ in cites)
                # "As of March 2026, " is the citation's own date, said by RECONCILE.
                by_excerpt.setdefault(excerpt, []).append(undated(sentence))
        for excerpt, said in by_excerpt.items():
            # The excerpt's words, options and speakers are read once for all it backs.
            dropped = {x for x, _ in keep_supported(said, excerpt, title).dropped}
            written.supported += [x not in dropped for x in said]
        out[path.stem] = written
    return out


def _talk_pages(vault: Vault) -> int:
    if not vault.talk.is_dir():
        return 0
    return sum(1 for p in vault.talk.glob("*.md") if p.name != "README.md")


def _sentences(blocks: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each lead and body sentence (markup kept) with the footnote numbers it carries;
    a sentence with none takes its paragraph's (code cites a paragraph at its end).
    RECONCILE's History trace lines are no sentences of the article's."""
    out: list[tuple[str, list[str]]] = []
    for block in blocks:
        for paragraph in block.split("\n\n"):
            text = paragraph.strip()
            if not text or text.startswith(("```", "~~~", "{{", "*", "|")):
                continue
            lines = [x for x in text.splitlines() if not TRACE.match(x.strip())]
            text = "\n".join(lines).strip()
            if not text:
                continue
            cited = [str(m) for m in markers(text)]
            said = sentences(" ".join(text.split()))
            for sentence in (x for x in said if any(c.isalpha() for c in x)):
                own = [str(m) for m in markers(sentence)] or cited
                out.append((sentence, own))
    return out


def _excerpt(ledger: Ledger, hash8: str, label: str) -> tuple[str, set[str]]:
    ids = conversations.with_hash8(ledger, hash8)
    for conv in ids:
        for c in chunks.of_conversation(ledger, conv):
            if " ".join(c.label.split()) == " ".join(label.split()):
                found = conversations.message_range(ledger, conv, c.first_message, c.last_message)
                return "\n\n".join(f"{m.role}: {m.text}" for m in found), {conv}
    whole = [f"{m.role}: {m.text}" for conv in ids for m in conversations.messages(ledger, conv)]
    return "\n\n".join(whole), set(ids)


def _homes(
    written: dict[str, _Written], captured: Iterable[subjects.Subject], named: dict[str, set[str]]
) -> dict[str, tuple[str, set[str]]]:
    """Every name a subject has a home under (names_key form) → (article title or
    "captured", the conversations behind it)."""
    out: dict[str, tuple[str, set[str]]] = {}
    for a in written.values():
        out[names_key(a.title)] = (a.title, a.convs)
    for s in captured:
        out.setdefault(names_key(s.display), ("captured", named.get(s.name, set())))
    return out


def _score(
    rows: Sequence[Gold], real: Sequence[_Written], homes: dict[str, tuple[str, set[str]]]
) -> dict[str, Share]:
    coverage, main, precision, recall, not_facts, kinds = (Share() for _ in range(6))
    convs = {g.conv for g in rows}
    gold_names = {g.conv: {names_key(n) for s in g.subjects for n in s.names} for g in rows}
    for g in rows:
        for s in g.subjects:
            home = next((homes[k] for k in map(names_key, s.names) if k in homes), None)
            coverage.add(home is not None)
            if s.main:
                main.add(home is not None)
            article = next((a for a in real if names_key(a.title) in map(names_key, s.names)), None)
            if article is not None and article.kind is not None:
                kinds.add(article.kind == s.kind)
        text = "\n".join(a.text for a in real if g.conv in a.convs).casefold()
        for fact in g.facts:
            recall.add(all(any(t in text for t in group) for group in fact.terms))
        sentences = [s.casefold() for a in real for s, c in a.sentences if g.conv in c]
        for nf in g.not_facts:
            hit = any(all(any(t in s for t in grp) for grp in nf.terms) for s in sentences)
            not_facts.add(not hit)
    for key, (_, behind) in homes.items():
        mine = behind & convs
        if mine:
            precision.add(any(key in gold_names[c] for c in mine))
    return {
        "coverage": coverage,
        "main coverage": main,
        "precision": precision,
        "key-fact recall": recall,
        "not-facts kept out": not_facts,
        "kind accuracy": kinds,
    }
