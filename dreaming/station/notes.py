"""The notes index: NOTES.md's `- ` lines, kept in `.dreaming/session-notes.json`.

Pure functions. One entry a note line. A line seen again is seen later; a new line is
added; a line replaced by another (same place between the same neighbours, or mostly
the same words) stays, marked superseded by the new one, and is kept for good; a line
that simply left NOTES.md stays current (the index outlives a wiped page) until it has
been unseen for 90 days, unless it ever replaced another. The JSON is deterministic
(sorted keys, ids from the text) so the committed file changes only where notes did.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from dreaming.article.fences import line_content, split_lines
from dreaming.errors import DreamingError

NOTES = "NOTES.md"
INDEX = "session-notes.json"
VERSION = 1
MAX_NOTES_BYTES = 1024 * 1024
MAX_NOTE_CHARS = 1000
KEEP_UNSEEN = timedelta(days=90)
MAX_SIMILAR = 200
"""Changed lines compared word by word at most, each way: beyond, only the neighbours rule."""
MAX_LOOK = 10
_WORD = re.compile(r"\w+")
# Words too common to say what a note or an article is about.
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    ]
)


class NotesProblem(DreamingError):
    """NOTES.md or the index cannot be read: one line naming the file and the fix."""


@dataclass(slots=True)
class Note:
    text: str
    first_seen: str
    last_seen: str
    superseded_by: str | None = None
    """The id of the note that replaced this one."""


@dataclass(slots=True)
class NotesIndex:
    notes: dict[str, Note] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    """The ids of NOTES.md's lines at the last refresh, in order."""

    def current(self) -> list[Note]:
        """The notes not superseded: NOTES.md's order, then the most recently seen."""
        rest = sorted(
            self.notes, key=lambda k: (_desc(self.notes[k].last_seen), self.notes[k].text)
        )
        out: list[Note] = []
        for key in dict.fromkeys([*self.lines, *rest]):
            note = self.notes.get(key)
            if note is not None and note.superseded_by is None:
                out.append(note)
        return out


def _desc(day: str) -> tuple[int, ...]:
    """A sort key putting later ISO days first."""
    return tuple(-ord(c) for c in day)


def note_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def note_lines(data: bytes) -> list[str]:
    """The note lines of NOTES.md: each `- ` line's text. Raises NotesProblem."""
    if len(data) > MAX_NOTES_BYTES:
        raise NotesProblem(
            f"{NOTES}: {len(data)} bytes, over the {MAX_NOTES_BYTES // 1024 // 1024} MiB "
            "the notes index reads; split the old notes into another page"
        )
    if b"\0" in data:
        raise NotesProblem(f"{NOTES}: binary, not text; restore it (git checkout {NOTES})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotesProblem(f"{NOTES}: not UTF-8 (byte {e.start}); save it as UTF-8") from None
    found: list[str] = []
    for line in split_lines(text):
        bare = line_content(line).strip()
        if bare.startswith("- "):
            note = " ".join(bare[2:].split())
            if note:
                found.append(note[:MAX_NOTE_CHARS])
    return found


def refresh(index: NotesIndex, lines: Sequence[str], today: date) -> NotesIndex:
    """The index after NOTES.md was seen holding `lines` on `today`; `index` is unchanged."""
    day = today.isoformat()
    notes = {
        k: Note(n.text, n.first_seen, n.last_seen, n.superseded_by) for k, n in index.notes.items()
    }
    ids = [note_id(t) for t in lines]
    for key, text in zip(ids, lines, strict=True):
        note = notes.get(key)
        if note is None:
            notes[key] = Note(text, day, day)
        else:
            note.last_seen = day
            note.superseded_by = None
    now_in, was_in = set(ids), set(index.lines)
    gone = [k for k in dict.fromkeys(index.lines) if k not in now_in and k in notes]
    came = [k for k in dict.fromkeys(ids) if k not in was_in]
    for old, new in _replacements(index.lines, ids, gone, came, notes):
        notes[old].superseded_by = new
    targets = {n.superseded_by for n in notes.values()}
    cutoff = (today - KEEP_UNSEEN).isoformat()
    for key in [k for k, n in notes.items() if n.last_seen < cutoff]:
        note = notes[key]
        if note.superseded_by is None and key not in targets and key not in now_in:
            del notes[key]
    return NotesIndex(notes, ids)


def _replacements(
    before: Sequence[str],
    after: Sequence[str],
    gone: Sequence[str],
    came: Sequence[str],
    notes: dict[str, Note],
) -> list[tuple[str, str]]:
    """(old, new) pairs: a line that left and the line that took its place."""
    pairs: list[tuple[str, str]] = []
    free = set(came)
    # Same place: the same neighbours on both sides (None at an end of the page).
    slots: dict[tuple[str | None, str | None], deque[str]] = {}
    for n, key in enumerate(after):
        if key in free:
            slot = (after[n - 1] if n else None, after[n + 1] if n + 1 < len(after) else None)
            slots.setdefault(slot, deque()).append(key)
    left: list[str] = []
    gone_set = set(gone)
    placed: set[str] = set()
    for n, key in enumerate(before):
        if key not in gone_set or key in placed:
            continue
        placed.add(key)
        slot = (before[n - 1] if n else None, before[n + 1] if n + 1 < len(before) else None)
        options = slots.get(slot, deque())
        while options and options[0] not in free:
            options.popleft()
        if options:
            new = options.popleft()
            pairs.append((key, new))
            free.discard(new)
        else:
            left.append(key)
    rest = [k for k in came if k in free]
    if len(left) > MAX_SIMILAR or len(rest) > MAX_SIMILAR:
        return pairs
    words = {k: _words(notes[k].text) for k in [*left, *rest]}
    for key in left:
        best: tuple[float, str] | None = None
        for new in rest:
            if new not in free:
                continue
            score = _similar(words[key], words[new])
            if score is not None and (best is None or score > best[0]):
                best = (score, new)
        if best is not None:
            pairs.append((key, best[1]))
            free.discard(best[1])
    return pairs


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold())}


def _similar(a: set[str], b: set[str]) -> float | None:
    """How alike two notes' words are, when more than half of the longer's are shared."""
    common = len(a & b)
    most = max(len(a), len(b))
    return common / most if most and 2 * common > most else None


def query_words(query: str) -> set[str]:
    return {w for w in _WORD.findall(query.casefold()) if w not in STOP}


def matching(index: NotesIndex, query: str, limit: int = MAX_LOOK) -> list[str]:
    """The current note lines sharing words with `query`, most shared words first."""
    wanted = query_words(query)
    if not wanted:
        return []
    scored = []
    for order, note in enumerate(index.current()):
        hits = len(wanted & _words(note.text))
        if hits:
            scored.append((-hits, order, note.text))
    return [text for _, _, text in sorted(scored)[:limit]]


def dumps(index: NotesIndex) -> str:
    notes: dict[str, Any] = {}
    for key, note in index.notes.items():
        entry: dict[str, Any] = {
            "text": note.text,
            "first_seen": note.first_seen,
            "last_seen": note.last_seen,
        }
        if note.superseded_by is not None:
            entry["superseded_by"] = note.superseded_by
        notes[key] = entry
    doc = {"version": VERSION, "lines": index.lines, "notes": notes}
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def loads(data: bytes, where: str) -> NotesIndex:
    """The index in `data` (the file at `where`). Raises NotesProblem."""
    fix = "restore it (git checkout) or delete it to rebuild it from NOTES.md"
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise NotesProblem(f"{where}: not a notes index ({type(e).__name__}); {fix}") from None
    try:
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            raise TypeError("version")
        lines = [_str(k) for k in doc["lines"]]
        notes = {
            _str(k): Note(
                _str(v["text"]),
                _str(v["first_seen"]),
                _str(v["last_seen"]),
                None if v.get("superseded_by") is None else _str(v["superseded_by"]),
            )
            for k, v in _dict(doc["notes"]).items()
        }
    except (KeyError, TypeError, AttributeError) as e:
        raise NotesProblem(f"{where}: not a notes index (bad {e}); {fix}") from None
    return NotesIndex(notes, lines)


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(type(value).__name__)
    return value


def _dict(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(type(value).__name__)
    return value


def from_lines(lines: Iterable[str], today: date) -> NotesIndex:
    """A first index of `lines`, as a refresh of an empty one makes it."""
    return refresh(NotesIndex(), list(lines), today)
