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
from dreaming.query.budget import (
    SHOWN,
    Result,
    again,
    fitting,
    nbytes,
    page_room,
    paged,
    quoted,
    result,
    room,
    short,
    wire,
)
from dreaming.query.index import MAX_ARTICLE_BYTES, read_article_bytes
from dreaming.query.names import lookup
from dreaming.vault import Vault

TOC_BYTES = 900
"""The TOC shown with the lead stops here, its text and its data together (bytes of
JSON); a section past it is read by its number."""
LEAD_BYTES = 400
"""The first page of a read keeps at least this much room for the lead."""


def toc(sections: list[NavSection], limit: int = TOC_BYTES) -> tuple[str, list[dict[str, object]]]:
    """The TOC's text and data, as far as `limit` (bytes of JSON, both together) allows."""
    body = [s for s in sections if s.position > 0]
    rows = (
        (
            f"{'  ' * max(s.level - 2, 0)}{s.position}. {short(s.heading)} ({nbytes(s.body)} B)",
            {
                "n": s.position,
                "heading": short(s.heading),
                "level": s.level,
                "bytes": nbytes(s.body),
            },
        )
        for s in body
    )
    more = "… and {} more sections (read one by its number)"
    lines, shown = fitting(rows, limit - wire(more.format(len(body))) - 2)
    if len(shown) < len(body):
        lines.append(more.format(len(body) - len(shown)))
    return ("\n".join(lines) if lines else "(no sections)"), shown


def _title_line(entry: Entry) -> str:
    facts = [f"stem: {entry.stem}"]
    facts += [f"{k}: {short(v, 60)}" for k, v in (("kind", entry.kind), ("type", entry.type)) if v]
    return f"# {short(entry.title)}\n{' · '.join(facts)}"


def _about(entry: Entry) -> dict[str, object]:
    """What every read of an article says of it, clipped."""
    kind = short(entry.kind, 60) if entry.kind else None
    return {"stem": entry.stem, "title": short(entry.title), "kind": kind}


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
    data = _about(entry)
    if full:
        text = _file_text(vault, entry.stem)
        return paged(
            "read",
            header=f"{_title_line(entry)}\n(full text)",
            body=text,
            page=page,
            next_read=lambda n: again("read", f"{entry.stem} full", n),
            data={**data, "full": True},
        )
    sections = nav_index.sections(ledger, entry.stem)
    lead = sections[0].body if sections else ""
    head = _title_line(entry)
    redirect = short(entry.redirect) if entry.redirect else None
    if redirect:
        head += f"\nA redirect to {quoted(redirect)}: resolve {quoted(redirect)}"
    data["redirect"] = redirect

    def next_read(n: int) -> str:
        return again("read", entry.stem, n)

    # The TOC takes what the lead leaves (a long stem or title leaves it less).
    left = page_room("read", f"{head}\nContents:\n\nLead:", {**data, "toc": []}, next_read)
    contents, shown = toc(sections, min(TOC_BYTES, left - LEAD_BYTES))
    return paged(
        "read",
        header=f"{head}\nContents:\n{contents}\nLead:",
        body=lead,
        page=page,
        next_read=next_read,
        data={**data, "toc": shown},
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
    if number.isdecimal():  # "²" is a digit int() refuses
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
        head = f"{_title_line(entry)}\nNo section {quoted(short(heading))}. Contents:\n"
        data: dict[str, object] = {"stem": entry.stem, "heading": None, "toc": []}
        contents, data["toc"] = toc(sections, room("section", data) - wire(head))
        return result("section", head + contents, data)
    notes = nav_index.footnotes(ledger, entry.stem)

    def cited(part: str) -> list[str]:
        return [notes[label] for label in dict.fromkeys(markers(part)) if label in notes]

    name = found.heading or "lead"
    # A long heading is named by its number, so the next read fits where it is repeated.
    ref = quoted(name) if wire(quoted(name)) <= SHOWN else str(found.position)
    return paged(
        "section",
        header=f"## {short(name)} — {short(entry.title)} ({entry.stem})",
        body=found.body,
        page=page,
        next_read=lambda n: again("section", f"{entry.stem} {ref}", n),
        data={"stem": entry.stem, "heading": short(found.heading), "n": found.position},
        extras=cited,
    )
