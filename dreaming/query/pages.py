"""`read` (TOC + lead, or the whole text on request) and `section` (the default read).

A section comes with the footnotes it cites (only those), so a reader sees the
`conv:HASH` behind each claim and can ask `source` for it. A heading matches
ignoring case and spacing, by its number in the TOC, or by a unique prefix; any
other heading gets the TOC back.
"""

from __future__ import annotations

from dreaming.article.markup import markers
from dreaming.article.titles import heading_key
from dreaming.ledger import Ledger, nav_index
from dreaming.ledger.nav_index import Entry, NavSection
from dreaming.query.budget import Result, clip, nbytes, paged, quoted, result
from dreaming.query.index import MAX_ARTICLE_BYTES, read_article_bytes
from dreaming.query.names import lookup
from dreaming.vault import Vault

TOC_BYTES = 700
"""The TOC shown with the lead stops here (the whole TOC is in `data`)."""


def toc(sections: list[NavSection]) -> list[dict[str, object]]:
    return [
        {"n": s.position, "heading": s.heading, "level": s.level, "bytes": nbytes(s.body)}
        for s in sections
        if s.position > 0
    ]


def toc_text(sections: list[NavSection], limit: int = TOC_BYTES) -> str:
    lines: list[str] = []
    body = [s for s in sections if s.position > 0]
    for i, s in enumerate(body):
        indent = "  " * max(s.level - 2, 0)
        line = f"{indent}{s.position}. {s.heading} ({nbytes(s.body)} B)"
        if nbytes("\n".join([*lines, line])) > limit:
            lines.append(f"… and {len(body) - i} more sections")
            break
        lines.append(line)
    return "\n".join(lines) if lines else "(no sections)"


def _title_line(entry: Entry) -> str:
    facts = [f"stem: {entry.stem}"]
    facts += [f"{k}: {v}" for k, v in (("kind", entry.kind), ("type", entry.type)) if v]
    return f"# {clip(entry.title, 200)}\n{' · '.join(facts)}"


def _not_an_article(entry: Entry, tool: str) -> Result | None:
    if entry.unreadable:
        text = f"articles/{entry.stem}.md is unreadable: {entry.unreadable}"
        return result(tool, text, {"stem": entry.stem, "unreadable": entry.unreadable})
    return None


def read(vault: Vault, ledger: Ledger, stem: str, *, full: bool, page: int) -> Result:
    entry = lookup(ledger, stem, "read")
    if isinstance(entry, Result):
        return entry
    if (bad := _not_an_article(entry, "read")) is not None:
        return bad
    data: dict[str, object] = {"stem": entry.stem, "title": entry.title, "kind": entry.kind}
    if full:
        text = _file_text(vault, entry.stem)
        return paged(
            "read",
            header=f"{_title_line(entry)}\n(full text)",
            body=text,
            page=page,
            next_read=lambda n: f"read {entry.stem} full page={n}",
            data={**data, "full": True},
        )
    sections = nav_index.sections(ledger, entry.stem)
    lead = sections[0].body if sections else ""
    header = _title_line(entry)
    if entry.redirect:
        header += f"\nA redirect to {quoted(entry.redirect)}: resolve {quoted(entry.redirect)}"
    header += f"\nContents:\n{toc_text(sections)}\nLead:"
    return paged(
        "read",
        header=header,
        body=lead,
        page=page,
        next_read=lambda n: f"read {entry.stem} page={n}",
        data={**data, "toc": toc(sections), "redirect": entry.redirect},
    )


def _file_text(vault: Vault, stem: str) -> str:
    try:
        data = read_article_bytes(vault, stem)
    except OSError as e:
        return f"(cannot read articles/{stem}.md now: {e.strerror or e})"
    return data[:MAX_ARTICLE_BYTES].decode("utf-8", "replace")


def find_section(sections: list[NavSection], heading: str) -> NavSection | None:
    """By heading (case and spacing ignored), by TOC number, else by a unique prefix;
    `lead` (or nothing) names the lead when no section is called that."""
    body = [s for s in sections if s.position > 0]
    key = heading_key(heading)
    for s in body:
        if heading_key(s.heading) == key:
            return s
    number = heading.strip().rstrip(".")
    if number.isdigit():
        return next((s for s in body if s.position == int(number)), None)
    if key in ("", "lead") and sections:
        return sections[0]
    starting = [s for s in body if heading_key(s.heading).startswith(key)]
    return starting[0] if len(starting) == 1 else None


def section(ledger: Ledger, stem: str, heading: str, *, page: int) -> Result:
    entry = lookup(ledger, stem, "section")
    if isinstance(entry, Result):
        return entry
    if (bad := _not_an_article(entry, "section")) is not None:
        return bad
    sections = nav_index.sections(ledger, entry.stem)
    found = find_section(sections, heading)
    if found is None:
        text = (
            f"{_title_line(entry)}\nNo section {quoted(clip(heading, 120))}. "
            f"Contents:\n{toc_text(sections, 1500)}"
        )
        data = {"stem": entry.stem, "heading": None, "toc": toc(sections)}
        return result("section", text, data)
    notes = nav_index.footnotes(ledger, entry.stem)

    def cited(part: str) -> list[str]:
        return [notes[label] for label in dict.fromkeys(markers(part)) if label in notes]

    name = found.heading or "lead"
    return paged(
        "section",
        header=f"## {clip(name, 200)} — {clip(entry.title, 200)} ({entry.stem})",
        body=found.body,
        page=page,
        next_read=lambda n: f"section {entry.stem} {quoted(name)} page={n}",
        data={"stem": entry.stem, "heading": found.heading, "n": found.position},
        extras=cited,
    )
