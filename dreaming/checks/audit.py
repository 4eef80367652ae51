"""`dreaming audit`: the wiki's invariants, checked over a whole vault without changing it.

The write gate judges one draft as it is written; the audit reads every
article as it stands (a person may have edited any of them) and, when the
ledger is there, checks citations and coverage against it. It reads the
vault and the ledger and writes neither: with the ledger gone it still
checks every article and says what it could not check.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypedDict, get_args

from dreaming.article.document import REFERENCES, Article, infobox_malformed, parse, tail_rank
from dreaming.article.fences import fence_blocks, split_lines
from dreaming.article.markup import Footnote, category_name, markers, parse_footnote
from dreaming.article.queries import (
    aliases,
    article_definitions,
    article_wikilinks,
    footnote_balance,
    is_redirect,
)
from dreaming.article.schematic import leaks
from dreaming.article.titles import heading_key, nfc, title_for_stem
from dreaming.article.validate import KINDS
from dreaming.errors import PolicyError, RefusedFileError
from dreaming.ledger import Ledger, conversations, subjects, woven
from dreaming.policy.pages import Policy
from dreaming.policy.schemas import SCHEMAS_PAGE, schema_kinds
from dreaming.vault import Vault
from dreaming.vault.files import MAX_PAGE_BYTES, read_bytes

Check = Literal[
    "file",
    "h1",
    "footnotes",
    "citation",
    "section",
    "infobox",
    "wikilink",
    "references",
    "schematic",
    "coverage",
]
"""file: not a readable UTF-8 article; h1: title ≠ file name; footnotes: markers and
definitions not one-to-one; citation: a definition cites no known conversation; section:
a body section without a citation; infobox: malformed or of an unknown kind; wikilink:
names no article or redirect; references: not the last section; schematic: a placeholder
or example line copied in; coverage: an extracted subject with no home."""
CHECKS: tuple[Check, ...] = get_args(Check)

LEDGER_ABSENT = "ledger absent: cannot check citations' conversations or coverage"


@dataclass(frozen=True, slots=True)
class Violation:
    file: str
    """Vault-relative path of the article (or `ledger` for a coverage finding)."""
    check: Check
    detail: str


@dataclass
class AuditReport:
    articles: int = 0
    violations: list[Violation] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    """What could not be checked, and why."""

    @property
    def clean(self) -> bool:
        return not self.violations


class ViolationDoc(TypedDict):
    file: str
    check: str
    detail: str


class AuditDoc(TypedDict):
    """`dreaming audit --json`: these keys, always."""

    vault: str
    articles: int
    clean: bool
    violations: list[ViolationDoc]
    unchecked: list[str]


def audit_doc(report: AuditReport, vault: Vault) -> AuditDoc:
    return {
        "vault": str(vault.root),
        "articles": report.articles,
        "clean": report.clean,
        "violations": [
            {"file": v.file, "check": v.check, "detail": v.detail} for v in report.violations
        ],
        "unchecked": list(report.unchecked),
    }


@dataclass(frozen=True)
class _Read:
    rel: str
    stem: str
    article: Article
    text: str


def audit(vault: Vault, ledger: Ledger | None) -> AuditReport:
    """Every violation of the wiki's invariants in `vault`; reads, never writes."""
    report = AuditReport()
    kinds = _kinds(vault, report)
    read = _read_articles(vault, report)
    report.articles = len(read)
    names = _names(read)
    known: set[str] | None = None
    if ledger is None:
        report.unchecked.append(LEDGER_ABSENT)
    else:
        cited = {f.hash for r in read for f in _citations(r.article)}
        known = conversations.known_hash8s(ledger, cited)
        names |= {heading_key(name) for name in subjects.redirects(ledger)}
    for r in read:
        report.violations += [
            Violation(r.rel, check, detail) for check, detail in _article(r, kinds, names, known)
        ]
    if ledger is not None:
        stems = {heading_key(r.stem) for r in read}
        report.violations += _coverage(ledger, stems, report)
    return report


def _kinds(vault: Vault, report: AuditReport) -> tuple[str, ...]:
    """The closed set of infobox kinds: the `kind:` line of each schema block in Meta."""
    policy = Policy(vault)
    try:
        text = policy.text(SCHEMAS_PAGE)
    except PolicyError as e:
        report.unchecked.append(f"{e}; infobox kinds checked against {', '.join(KINDS)}")
        return KINDS
    report.unchecked += [f"{p}; infobox kinds checked against it" for p in policy.problems]
    kinds = schema_kinds(text)
    if not kinds:
        report.unchecked.append(
            f"Meta/{SCHEMAS_PAGE}.md has no ```schema block with a 'kind:' line; "
            f"infobox kinds checked against {', '.join(KINDS)}"
        )
        return KINDS
    return kinds


def _read_articles(vault: Vault, report: AuditReport) -> list[_Read]:
    read: list[_Read] = []
    if not vault.articles.is_dir():
        return read
    for path in sorted(vault.articles.iterdir(), key=lambda p: p.name):
        # Dotfiles are the file manager's (.DS_Store), not the wiki's.
        if path.name.startswith(".") or path.is_dir():
            continue
        rel = vault.rel(path)
        if path.suffix != ".md":
            report.violations.append(
                Violation(rel, "file", "not a Markdown article: move it out of articles/")
            )
            continue
        text, why = _text(vault, path)
        if text is None:
            report.violations.append(Violation(rel, "file", why))
            continue
        read.append(_Read(rel, path.stem, parse(text), text))
    return read


def _text(vault: Vault, path: Path) -> tuple[str | None, str]:
    """The file's text, or None and why it is not a readable article (a link is never
    followed, a named pipe never waited on)."""
    try:
        data = read_bytes(vault, path, cap=MAX_PAGE_BYTES, what="an article")
    except RefusedFileError as e:
        return None, e.reason
    except OSError as e:
        return None, f"cannot be read ({e.strerror}); check its permissions"
    if b"\0" in data:
        return None, "binary content, not text: move it out of articles/"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8 text: save it as UTF-8"


def _names(read: Iterable[_Read]) -> set[str]:
    """Every name a wikilink may resolve to: articles, redirect pages, declared aliases."""
    names: set[str] = set()
    for r in read:
        names.add(heading_key(r.stem))
        names |= {heading_key(a) for a in aliases(r.article)}
    return names


def _citations(article: Article) -> list[Footnote]:
    found = (parse_footnote(d) for d in article_definitions(article))
    return [f for f in found if f is not None]


def _article(
    r: _Read, kinds: tuple[str, ...], names: set[str], known: set[str] | None
) -> list[tuple[Check, str]]:
    a = r.article
    out: list[tuple[Check, str]] = []
    want = title_for_stem(r.stem)
    if a.title is None:
        out.append(("h1", f"no '# Title' line: expected '# {want}'"))
    elif nfc(a.title) != want:
        out.append(("h1", f"H1 {a.title!r} does not match the file name: expected '# {want}'"))
    out += _links(a, names)
    out += [("schematic", f"schematic placeholder {p!r} copied in") for p in leaks("", r.text)]
    if is_redirect(a):
        return out
    out += _footnote_checks(a, known)
    out += _infobox_checks(a, kinds)
    body = [s for s in a.sections if tail_rank(s) == 0]
    out += [
        ("section", f"section {s.heading!r} carries no citation")
        for s in body
        if not markers(s.heading) and not markers(s.body)
    ]
    refs = [i for i, s in enumerate(a.sections) if tail_rank(s) == 3]
    if refs and refs[0] != len(a.sections) - 1:
        after = a.sections[refs[0] + 1].heading
        out.append(("references", f"section {after!r} follows '## {REFERENCES}'"))
    return out


def _footnote_checks(a: Article, known: set[str] | None) -> list[tuple[Check, str]]:
    balance = footnote_balance(a)
    out: list[tuple[Check, str]] = [
        ("footnotes", f"[^{label}] is cited but never defined") for label in balance.undefined
    ]
    out += [("footnotes", f"[^{d.label}] is defined but never cited") for d in balance.orphans]
    out += [("footnotes", f"[^{lb}] is defined {n} times") for lb, n in balance.repeated.items()]
    for d in article_definitions(a):
        f = parse_footnote(d)
        if f is None:
            out.append(("citation", f"[^{d.label}] is not a '`conv:HASH` (date, source)' line"))
        elif known is not None and f.hash not in known:
            unknown = f"[^{d.label}] cites conv:{f.hash}, a conversation the ledger does not hold"
            out.append(("citation", unknown))
    return out


def _infobox_checks(a: Article, kinds: tuple[str, ...]) -> list[tuple[Check, str]]:
    """The infobox is optional; one that is there parses, and its kind is a declared one."""
    out: list[tuple[Check, str]] = [
        ("infobox", f"line {line!r} is not 'key: value'") for line in infobox_malformed(a)
    ]
    if any(b.label.casefold() == "info" for b in fence_blocks(split_lines(a.lead))):
        out.append(("infobox", "an ```info block below other lead text is not read: move it up"))
    kind = dict(a.infobox or ()).get("kind")
    if kind is not None and kind not in kinds:
        out.append(("infobox", f"kind {kind!r} is not one of {', '.join(kinds)}"))
    return out


def _links(a: Article, names: set[str]) -> list[tuple[Check, str]]:
    out: list[tuple[Check, str]] = []
    for link in article_wikilinks(a):
        target = link.target.strip()
        # `[[#Heading]]` stays in the article; a category is a page Obsidian makes on its own.
        if not target or category_name(link) is not None:
            continue
        if heading_key(target) not in names:
            out.append(("wikilink", f"[[{target}]] names no article or redirect"))
    return list(dict.fromkeys(out))


def _coverage(ledger: Ledger, stems: set[str], report: AuditReport) -> list[Violation]:
    out: list[Violation] = []
    redirects = subjects.redirects(ledger)
    # A filed article the night has not managed to write yet is a state, not a fault.
    waiting = {s for s in woven.waiting(ledger) if heading_key(s) not in stems}
    report.unchecked += [
        f"articles/{stem}.md is not written yet: a night writes it once a conversation "
        "gives something true to say about it"
        for stem in sorted(waiting)
    ]
    for s in subjects.every(ledger):
        where: str | None
        if s.status == "captured":
            continue
        if s.status == "article":
            where = s.article_stem
        elif s.status == "redirect":
            where = redirects.get(s.name)
        else:
            where = None
        if where is None:
            detail = f"subject {s.display!r} has no article, redirect or captured status"
        elif where in waiting:
            continue
        elif heading_key(where) not in stems:
            detail = f"subject {s.display!r} is filed under {where!r}, which is not in articles/"
        else:
            continue
        out.append(Violation("ledger", "coverage", detail))
    return out
