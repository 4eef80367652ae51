"""`takeoff`: an agent's first minute on a topic, in one read of at most 2 KB.

What a fresh session needs to continue where the last one stopped (seed 003's
"takeoff baton"), made from what the vault already holds instead of a note an agent
curates: the article the topic resolves to (its lead), its latest changes (the last
lines of its `## History` and the newest conversation it cites, with its date), the
questions the person asked that the article leaves open, and the one section that
changed last. The reads that go deeper are named, never pasted.

Everything is decided by code, never by a model, and each part says where it came
from:

- **Latest change**: git, which the vault is. The article as it is now is compared
  with the version in the last commit that touched it, then each version with the one
  before, until some section other than See also and References differs (at most
  `LOOKBACK` versions); of the sections that differ there, the one whose changed span
  is longest. An edit not committed yet counts as the newest change.
- **Open questions**: an `## Open questions` section (or `## Questions`, `## Unanswered
  questions`) when the article has one, its lines as written. Otherwise the sentences
  ending in `?` in the person's own messages of the conversations the article cites
  (newest conversation first; only the messages the article was written from when the
  ledger knows them), each kept only when the article does not cover it: fewer than
  half of its content words occur anywhere in the article. A question the article
  does cover in other words is left out; one it answers without its words is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dreaming.article.document import parse
from dreaming.article.markup import MARKER, Definition, parse_footnote, unstubbed
from dreaming.article.titles import heading_key
from dreaming.article.words import content_words, sentences, stem, words
from dreaming.errors import GitError
from dreaming.ledger import Ledger, nav_index, woven
from dreaming.ledger.nav_index import Entry, NavSection
from dreaming.query.budget import Result, quoted, result, room, short, wire
from dreaming.query.index import MAX_ARTICLE_BYTES
from dreaming.query.names import find, lookup
from dreaming.query.names import resolve as resolve_name

if TYPE_CHECKING:
    # GitPython costs a tenth of a second to import: only a takeoff that finds its
    # article pays for it, never the other tools.
    from dreaming.vault.repo import VaultRepo

LOOKBACK = 10
"""Versions of an article compared, newest first, to find the section that changed."""
HISTORY_LINES = 3
"""The last lines of `## History` shown."""
QUESTIONS = 3
"""Open questions shown."""
FOUND = 20
"""Open questions looked for; the count says how many were found, up to this."""
CONVERSATIONS = 8
"""Cited conversations searched for questions, newest first."""
MESSAGES = 200
"""The person's messages of one conversation searched, newest first."""
MESSAGE_CHARS = 4000
"""A longer message is searched in its first and last this many characters."""
LEAD_BYTES = 360
"""The lead shown is clipped to this many bytes of JSON (it shrinks when room is short)."""
LINE_BYTES = 200
"""Any other line is clipped to this many bytes of JSON."""
OPEN_HEADINGS = frozenset({"open questions", "questions", "unanswered questions"})
"""Heading keys of a section holding the open questions, written by a person."""
_BOOKKEEPING = frozenset({"see also", "references"})
"""Sections a night rewrites for every new citation or neighbour: no change of subject."""
_MAX_QUESTION_WORDS = 40


@dataclass(frozen=True, slots=True)
class Cited:
    """A conversation the article cites, as its newest footnote for it says."""

    hash8: str
    date: str
    source: str
    desc: str
    conv_id: str | None
    """Its id in the ledger, None when the ledger does not hold it."""


@dataclass(frozen=True, slots=True)
class Change:
    """The section that changed last, or why none is named."""

    section: NavSection | None
    date: str
    """YYYY-MM-DD of the commit; "" for an edit not committed yet."""
    by: str
    """dreaming, you, or `not committed yet`."""
    excerpt: str = ""
    """The changed words' sentence, as it reads now."""
    others: int = 0
    """Other sections that changed in the same version."""
    note: str = ""
    """When no section is named: why."""


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    hash8: str | None
    """The conversation it was asked in; None for a line of the article's own section."""
    message: int | None


def takeoff(ledger: Ledger, repo: Callable[[], VaultRepo], topic: str) -> Result:
    """The takeoff of the article `topic` names (a stem, title, alias or redirect);
    `resolve`'s answer when it names none or several. `repo` opens the vault's git
    (only when an article is found)."""
    entry = _article(ledger, topic)
    if isinstance(entry, Result):
        return entry
    if entry.unreadable:
        text = f"articles/{entry.stem}.md is unreadable: {entry.unreadable}"
        return result("takeoff", text, {"stem": entry.stem, "unreadable": entry.unreadable})
    if entry.redirect:
        text = (
            f"{entry.stem} is a redirect to {quoted(short(entry.redirect))}, which has no article."
        )
        return result("takeoff", text, {"stem": entry.stem, "redirect": short(entry.redirect)})
    sections = nav_index.sections(ledger, entry.stem)
    footnotes = nav_index.footnotes(ledger, entry.stem)
    cited = citations(ledger, footnotes)
    history = _history(sections, footnotes)
    change = latest_change(repo, entry.stem, sections)
    origin, questions, found = open_questions(ledger, entry.stem, sections, cited)
    newest = cited[0] if cited else None
    return _render(entry, sections, history, newest, change, (origin, questions, found))


def _article(ledger: Ledger, topic: str) -> Entry | Result:
    """The article `topic` names, a redirect's target followed; else what `resolve`
    says (candidates, a discussed name, the nearest names) as this tool's answer."""
    entry = lookup(ledger, topic, "takeoff")
    if isinstance(entry, Result):
        # None or several: resolve's answer (the candidates; a name only conversations
        # held, captured or folded; the nearest names), as this tool's, measured again
        # under this tool's name.
        said = resolve_name(ledger, topic)
        return result("takeoff", said.text, said.data)
    if entry.redirect:
        found = find(ledger, entry.redirect).stems
        target = nav_index.entry(ledger, found[0]) if len(found) == 1 else None
        return target or entry
    return entry


def citations(ledger: Ledger, footnotes: dict[str, str]) -> list[Cited]:
    """The conversations the footnotes cite, newest first (by the footnote's date, then
    the footnote's number): each once, as its newest footnote has it."""
    best: dict[str, tuple[str, int, Cited]] = {}
    for label, line in footnotes.items():
        note = parse_footnote(Definition(label, line.partition(": ")[2]))
        if note is None:
            continue
        key = (note.date, note.number)
        if note.hash in best and best[note.hash][:2] >= key:
            continue
        best[note.hash] = (*key, Cited(note.hash, note.date, note.source, note.desc, None))
    known = nav_index.cited_conversations(ledger, list(best))
    ordered = sorted(best.values(), key=lambda b: (b[0], b[1]), reverse=True)
    return [Cited(c.hash8, c.date, c.source, c.desc, known.get(c.hash8)) for _, _, c in ordered]


def _history(sections: Sequence[NavSection], footnotes: dict[str, str]) -> list[str]:
    """The lines of `## History`, oldest first, each with the conversations its markers
    cite instead of the markers."""
    found = next((s for s in sections if s.position and heading_key(s.heading) == "history"), None)
    if found is None:
        return []
    lines = []
    for line in found.body.splitlines():
        said = line.strip()
        if not said or said.startswith("#"):
            continue
        hashes = [_hash_of(footnotes.get(m.group(1), "")) for m in MARKER.finditer(said)]
        convs = ", ".join(f"conv:{h}" for h in dict.fromkeys(h for h in hashes if h))
        plain = _item(said)
        lines.append(f"{plain} ({convs})" if convs else plain)
    return lines


def _hash_of(line: str) -> str | None:
    label, _, text = line.partition(": ")
    note = parse_footnote(Definition(label.removeprefix("[^").removesuffix("]"), text))
    return note.hash if note else None


# ---------------------------------------------------------------- the latest change


def latest_change(
    repo: Callable[[], VaultRepo], stem: str, sections: Sequence[NavSection]
) -> Change:
    """The section that changed last, by git (see the module's docstring)."""
    rel = f"articles/{stem}.md"
    try:
        git = repo()
        commits = git.log(rel, LOOKBACK + 1)
    except GitError as e:
        return Change(None, "", "", note=f"no git history to read ({short(str(e), 120)})")
    if not commits:
        return Change(None, "", "", note="not committed yet, so no change to show")
    more = len(commits) > LOOKBACK
    commits = commits[:LOOKBACK]
    now = newer = _keyed(sections)
    date, by = "", "not committed yet"
    for commit in commits:
        try:
            data = git.blob_at(commit.sha, rel, MAX_ARTICLE_BYTES)
        except GitError as e:
            return Change(None, "", "", note=f"git could not show it ({short(str(e), 120)})")
        older = _version(data)
        if older is None:
            break  # no earlier version: everything in `newer` was written then
        # Only a section the article still has can be named, and by its place now: one
        # removed since, or moved by a removal, would send the next read astray.
        changed = [c for c in _changed(newer, older) if c[1] in now]
        if changed:
            _, key, at = max(changed, key=lambda c: (c[0], -now[c[1]].position))
            excerpt = _excerpt(newer[key].body, at)
            return Change(now[key], date, by, excerpt, len(changed) - 1)
        newer = older
        date, by = commit.date[:10], _author(commit.email)
    else:
        if more:
            return Change(None, "", "", note=f"no section changed in its last {LOOKBACK} commits")
    when = f"on {date} by {by}" if date else "and not committed yet"
    return Change(None, date, by, note=f"written {when}; no section changed since")


def _keyed(sections: Sequence[NavSection]) -> dict[tuple[str, int], NavSection]:
    """Sections by heading key and which of the sections so headed each is (the lead's
    key is ""), so a version's section meets its namesake in another version."""
    seen: dict[str, int] = {}
    out: dict[tuple[str, int], NavSection] = {}
    for s in sections:
        key = heading_key(s.heading) if s.position else ""
        out[key, seen.get(key, 0)] = s
        seen[key] = seen.get(key, 0) + 1
    return out


def _version(data: bytes | None) -> dict[tuple[str, int], NavSection] | None:
    """An earlier version's sections by key, as the index keeps them; None for no file."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    article = parse(text)
    sections = [NavSection(0, "", 0, article.lead)]
    sections += [NavSection(i, s.heading, s.level, s.body)
                 for i, s in enumerate(article.sections, start=1)]  # fmt: skip
    return _keyed(sections)


def _changed(
    newer: dict[tuple[str, int], NavSection], older: dict[tuple[str, int], NavSection]
) -> list[tuple[int, tuple[str, int], int]]:
    """(size of the changed span, section's key, where in its body the change starts) of
    each section of `newer` that `older` lacks or holds otherwise; See also and
    References left out."""
    out = []
    for key, section in newer.items():
        if key[0] in _BOOKKEEPING:
            continue
        now = section.body.strip()
        was = older[key].body.strip() if key in older else None
        if was is None:
            out.append((len(now), key, 0))
        elif now != was:
            head = _common_prefix(now, was)
            tail = _common_prefix(now[head:][::-1], was[head:][::-1])
            at = section.body.find(now) + head
            out.append((max(len(now), len(was)) - head - tail, key, at))
    return out


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share: halving by slices compared in C,
    as a 4 MiB section compared a character at a time in Python would take a second."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _excerpt(body: str, at: int) -> str:
    """The sentence of `body` where a change starts, markers out, clipped."""
    start = body.rfind("\n", 0, at) + 1
    for stop in (". ", "? ", "! "):
        # Up to one past the change: a change that starts with a new sentence starts there.
        found = body.rfind(stop, start, at + 1)
        if found >= 0:
            start = max(start, found + 2)
    return short(" ".join(MARKER.sub("", body[start : start + 600]).split()), 160)


def _author(email: str) -> str:
    from dreaming.vault.repo import PIPELINE_AUTHOR

    return "dreaming" if email == PIPELINE_AUTHOR.email else "you"


# ---------------------------------------------------------------- open questions


def open_questions(
    ledger: Ledger, stem: str, sections: Sequence[NavSection], cited: Sequence[Cited]
) -> tuple[str | None, list[Question], int]:
    """(where they came from, the questions, how many were found, at most `FOUND`)."""
    own = next(
        (s for s in sections if s.position and heading_key(s.heading) in OPEN_HEADINGS), None
    )
    if own is not None:
        lines = [_item(line) for line in own.body.splitlines()]
        said = [Question(line, None, None) for line in lines if line]
        return "section", said[:FOUND], min(len(said), FOUND)
    article = " ".join(s.body for s in sections if heading_key(s.heading) not in _BOOKKEEPING)
    text = article.casefold()
    woven_in = woven.ranges(ledger, stem)
    found: list[Question] = []
    seen: set[str] = set()
    held = [(c.hash8, c.conv_id) for c in cited if c.conv_id is not None]
    for hash8, conv_id in held[:CONVERSATIONS]:
        ranges = woven_in.get(conv_id, [])
        for position, message in nav_index.user_messages(
            ledger, conv_id, ranges, MESSAGES, MESSAGE_CHARS
        ):
            for question in reversed(questions_in(message)):
                key = " ".join(words(question))
                if key in seen or covered(question, text):
                    continue
                seen.add(key)
                found.append(Question(question, hash8, position))
                if len(found) == FOUND:
                    return "conversations", found, FOUND
    return ("conversations" if found else None), found, len(found)


def _item(line: str) -> str:
    """A list line (of History, of Open questions) without its list mark and markers."""
    said = line.strip()
    for mark in ("- [ ] ", "- [x] ", "- ", "* ", "+ "):
        if said.startswith(mark):
            said = said[len(mark) :]
            break
    return " ".join(MARKER.sub("", said).split())


def questions_in(message: str) -> list[str]:
    """The sentences of a message that end in `?`, in order: 3 to 40 words, outside
    code blocks, quotes, tables and indented code (linear time)."""
    out: list[str] = []
    fenced = False
    for line in message.splitlines():
        said = line.strip()
        if said.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not said or said.startswith((">", "|")) or line.startswith(("    ", "\t")):
            continue
        for sentence in sentences(said):
            asked = sentence.strip(" *_\"'")
            if asked.endswith("?") and 3 <= len(words(asked)) <= _MAX_QUESTION_WORDS:
                out.append(asked)
    return out


def covered(question: str, article: str) -> bool:
    """Whether `article` (casefolded) holds at least half of the question's content words
    (each by its stem: "pages" is found in "page"); a question with none is never open."""
    asked = {stem(w) for w in content_words(question)}
    if not asked:
        return True
    return sum(1 for w in asked if w in article) * 2 >= len(asked)


# ---------------------------------------------------------------- the result


def _render(
    entry: Entry,
    sections: Sequence[NavSection],
    history: list[str],
    newest: Cited | None,
    change: Change,
    asked: tuple[str | None, list[Question], int],
) -> Result:
    origin, questions, found = asked
    stem_ = entry.stem
    kind = f" · {short(entry.kind, 40)}" if entry.kind else ""
    head = f"# Takeoff: {short(entry.title)} ({stem_}{kind})"
    lead = " ".join(unstubbed(MARKER.sub("", sections[0].body if sections else "")).split())
    reads: list[str] = []
    if newest is None:
        newest_line = "Newest conversation: none cited"
    else:
        desc = f" — {short(newest.desc, 100)}" if newest.desc else ""
        held = "" if newest.conv_id else " (not in the ledger)"
        newest_line = (
            f"Newest conversation: conv:{newest.hash8}, {newest.date} "
            f"({short(newest.source, 30)}){desc}{held}"
        )
    if change.section is None:
        change_line = f"Last changed: {change.note}"
    else:
        name = change.section.heading or "lead"
        ref = quoted(name) if wire(quoted(name)) <= 120 else str(change.section.position)
        when = f"{change.date} by {change.by}" if change.date else change.by
        more = ""
        if change.others:
            more = f" (and {change.others} more section{'s' if change.others > 1 else ''})"
        said = f": {quoted(change.excerpt)}" if change.excerpt else ""
        where = f"section {change.section.position} " if change.section.position else ""
        change_line = f"Last changed: {where}{quoted(short(name))}, {when}{more}{said}"
        reads.append(f"section {stem_} {ref}")
    if newest is not None and newest.conv_id is not None:
        reads.append(f"source conv:{newest.hash8}")
    reads.append(f"read {stem_}")
    next_line = "Next: " + " · ".join(reads)
    data: dict[str, object] = {
        "stem": stem_,
        "title": short(entry.title),
        "kind": short(entry.kind, 40) if entry.kind else None,
        "newest": {"conv": newest.hash8, "date": newest.date} if newest else None,
        "changed": None
        if change.section is None
        else {
            "heading": short(change.section.heading) or None,
            "n": change.section.position,
            "date": change.date or None,
            "by": change.by,
        },
    }

    def open_at(shown: Sequence[Question]) -> list[list[object]]:
        return [[q.hash8, q.message] for q in shown if q.hash8 is not None]

    # The room is measured with every question's place in the data: what is dropped
    # below only makes the data smaller.
    widest = {
        **data,
        "history": {"shown": 99, "lines": len(history)},
        "open": {"from": origin, "shown": 99, "found": found, "at": open_at(questions[:QUESTIONS])},
    }
    left = room("takeoff", widest)

    def render(n_history: int, n_questions: int, lead_bytes: int) -> str:
        lines = [head]
        if lead_bytes:
            lines.append(f"Lead: {short(lead, lead_bytes)}" if lead else "Lead: (none)")
        if history:
            shown = history[len(history) - n_history :] if n_history else []
            lines.append(f"History (last {len(shown)} of {len(history)}):")
            lines += [f"- {short(line, LINE_BYTES)}" for line in shown]
        else:
            lines.append("History: none (no ## History section)")
        lines.append(short(newest_line, LINE_BYTES + 40))
        lines.append(short(change_line, LINE_BYTES + 80))
        if origin == "section":
            lines.append(f"Open questions (the article's own list, {found}):")
        elif origin == "conversations":
            lines.append(f"Open questions ({_open_count(found)}asked in the cited "
                         "conversations, not covered by the article):")  # fmt: skip
        else:
            lines.append("Open questions: none found in the cited conversations")
        for q in questions[:n_questions]:
            where = f" (conv:{q.hash8} #{q.message})" if q.hash8 else ""
            lines.append(f"- {short(q.text, LINE_BYTES - wire(where))}{where}")
        lines.append(next_line)
        return "\n".join(lines)

    n_history, n_questions = min(len(history), HISTORY_LINES), min(len(questions), QUESTIONS)
    lead_bytes = LEAD_BYTES
    text = render(n_history, n_questions, lead_bytes)
    # Shrink until it fits: questions and history down to one each, then the lead, then
    # neither; the head, the change and the next reads stay.
    while wire(text) > left:
        if n_questions > 1:
            n_questions -= 1
        elif n_history > 1:
            n_history -= 1
        elif lead_bytes > 120:
            lead_bytes -= 80
        elif n_questions:
            n_questions = 0
        elif n_history:
            n_history = 0
        elif lead_bytes:
            lead_bytes = 0
        else:
            break
        text = render(n_history, n_questions, lead_bytes)
    shown = questions[:n_questions]
    data["history"] = {"shown": n_history, "lines": len(history)}
    data["open"] = {"from": origin, "shown": len(shown), "found": found, "at": open_at(shown)}
    return result("takeoff", text, data)


def _open_count(found: int) -> str:
    return f"{found}{'+' if found == FOUND else ''} " if found else ""
