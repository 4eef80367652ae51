"""Candidate subjects of a text, proposed by code for the model to judge one by one.

A small model asked to list what a text is about answers one vague word; asked
"is it about X?" it is mostly right. So code proposes: names the wiki already
knows, capitalised names, backticked identifiers, installed and imported
packages, file names and web hosts; ranked by kind, then how often and how early
they occur. Every pattern is bounded, so a hostile text costs linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreaming.subjects import ARTICLES, AliasIndex, canonical

MAX_CANDIDATES = 12
_MAX_NGRAM = 4
"""Known names longer than this many words are not looked for."""

_WORD = re.compile(r"[\w+#][\w+#.'\u2019-]{0,63}")
_BACKTICKED = re.compile(r"`([^`\n]{2,60})`")
_INSTALL = re.compile(
    r"\b(?:pip3?|uv pip|uv|poetry|npm|pnpm|yarn|bun|brew|apt|apt-get|cargo|gem|conda|go)"
    r"[ \t]{1,4}(?:install|add|i|get)[ \t]{1,4}([^\n;&|`]{1,200})"
)
_IMPORT = re.compile(
    r"^[ \t]{0,12}(?:from[ \t]{1,4}([A-Za-z_][\w.]{0,80})[ \t]{1,4}import\b"
    r"|import[ \t]{1,4}([A-Za-z_][\w.]{0,80}))",
    re.MULTILINE,
)
_REQUIRE = re.compile(r"""\brequire\(['"]([@\w][\w@/.-]{0,80})['"]\)""")
_FILE = re.compile(
    r"\b([\w-]{1,64}\.(?:py|js|mjs|ts|tsx|jsx|rs|go|rb|java|kt|swift|c|cc|cpp|h|hpp|cs"
    r"|sh|sql|toml|yaml|yml|json|md|html|css|ipynb|lock|cfg|ini))\b"
)
_SPECIAL_FILE = re.compile(r"\b(Dockerfile|Makefile|Justfile|Procfile|Gemfile|Rakefile)\b")


def is_file_name(name: str) -> bool:
    """Whether `name` is a file's name (`renderer.py`, `Dockerfile`): what a file holds
    is filed under its subject, the file itself is no article."""
    return any(p.fullmatch(name.strip()) is not None for p in (_FILE, _SPECIAL_FILE))


_HOST = re.compile(r"\bhttps?://([A-Za-z0-9][A-Za-z0-9.-]{0,252})")
_CAPITALISED = re.compile(
    r"(?<![\w.$@/\\-])([A-Z][\w'\u2019+#-]{0,30}"
    r"(?:[ ](?:of[ ]|for[ ]|and[ ]|de[ ])?[A-Z][\w+#-]{0,30}){0,4})"
)
_SENTENCE_END = re.compile(r"(?:^|[.!?:;{}\n]\s{0,8}|[\"'(*>#/-]\s{0,8})$")
"""Where the next word starts a sentence, a list item, a heading or a code comment."""

# Kinds in the order they are trusted, with a weight each.
_WEIGHT = {"known": 8, "package": 5, "code": 3, "name": 3, "file": 2, "host": 2}

_STOP_TEXT = """a about above after again all also an and any are as at be because been before
    being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers him his how i i'd i'll
    i'm i've if in into is it it's its itself just let let's like me more most my no
    nor not now of off on once only or other our out over own same she should so some
    such than that that's the their them then there these they this those through to
    too under until up very was we we'll we're we've were what when where which while
    who whom why will with would yes you you'd you'll you're you've your okay ok sure
    thanks thank please hi hello great good well note here's there's what's however
    also first second next finally now then yes no maybe perhaps instead example
    step steps option options answer question user assistant conversation model
    thing things way ways idea ideas issue issues problem problems solution solutions
    platform system systems tool tools code file files data function functions value
    values error errors output input result results test tests type types list lists
    item items name names part parts version update change changes use using used
    monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december today tomorrow
    yesterday true false none null self src lib main init index readme todo fixme"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""Words that are never a subject on their own, however they are capitalised."""


@dataclass(frozen=True, slots=True)
class Candidate:
    key: str
    """Canonical key of the subject it would be (after the alias index)."""
    surface: str
    """The name as the text first wrote it."""
    display: str
    kind: str
    count: int
    first: int
    """Offset of its first occurrence."""

    @property
    def score(self) -> int:
        return _WEIGHT[self.kind] + min(self.count, 10)


def propose(text: str, index: AliasIndex, limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """The `limit` best candidate subjects of `text`, best first."""
    found: dict[str, Candidate] = {}
    for kind, surface, at in _occurrences(text, index):
        key, shown = index.resolve(surface)
        if not _worth_judging(key, surface):
            continue
        old = found.get(key)
        if old is None:
            found[key] = Candidate(key, surface, shown, kind, 1, at)
            continue
        stronger = kind if _WEIGHT[kind] > _WEIGHT[old.kind] else old.kind
        # A name written in capitals somewhere is shown that way ("Thing", not "thing"),
        # unless the alias index already names it.
        capitalised = (
            old.display == old.surface and old.display.islower() and shown != shown.lower()
        )
        found[key] = Candidate(
            key,
            old.surface,
            shown if capitalised else old.display,
            stronger,
            old.count + 1,
            min(old.first, at),
        )
    ranked = sorted(found.values(), key=lambda c: (-c.score, c.first, c.key))
    return ranked[:limit]


def _worth_judging(key: str, surface: str) -> bool:
    if surface.casefold().replace("\u2019", "'") in STOP_WORDS:
        return False
    words = key.split()
    if not words or len(key) < 2 or all(w in STOP_WORDS for w in words):
        return False
    return not all(w.replace(".", "").isdigit() for w in words)


def _occurrences(text: str, index: AliasIndex) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = list(_known(text, index))
    for m in _BACKTICKED.finditer(text):
        out.extend(("code", s, m.start()) for s in _identifier(m.group(1)))
    for m in _INSTALL.finditer(text):
        for word in m.group(1).split()[:8]:
            if not word.startswith("-") and (name := _package(word)):
                out.append(("package", name, m.start(1)))
    for m in _IMPORT.finditer(text):
        module = m.group(1) or m.group(2)
        out.append(("package", module.split(".")[0], m.start()))
    for m in _REQUIRE.finditer(text):
        out.append(("package", m.group(1), m.start(1)))
    for pattern in (_FILE, _SPECIAL_FILE):
        out.extend(("file", m.group(1), m.start(1)) for m in pattern.finditer(text))
    for m in _HOST.finditer(text):
        host = m.group(1).rstrip(".").lower().removeprefix("www.")
        if "." in host:
            out.append(("host", host, m.start(1)))
    out.extend(_capitalised(text))
    return out


def _known(text: str, index: AliasIndex) -> list[tuple[str, str, int]]:
    """Every run of up to `_MAX_NGRAM` words whose key is a known name: linear in
    the text, whatever the size of the index."""
    known = index.known()
    if not known:
        return []
    words = [(m.group().rstrip(".'\u2019-"), m.start(), m.end()) for m in _WORD.finditer(text)]
    hits: list[tuple[str, str, int]] = []
    for i in range(len(words)):
        if words[i][0].casefold() in ARTICLES:
            continue
        for n in range(min(_MAX_NGRAM, len(words) - i), 0, -1):
            last = words[i + n - 1]
            surface = text[words[i][1] : last[1] + len(last[0])]
            if canonical(surface) in known:
                hits.append(("known", surface, words[i][1]))
                break
    return hits


def _identifier(inner: str) -> list[str]:
    """What a backticked span names: an identifier or a file's name, or the program
    a command line runs; nothing for flags, variables, placeholders and expressions."""
    words = inner.strip().removesuffix("()").split()
    if not words or words[0].startswith(("-", "$", "<", "~")):
        return []
    name = words[0].rsplit("/", 1)[-1]
    if len(words) > 1 and not name.isidentifier():
        return []
    if not name or any(ch in name for ch in "=(){}[]\"',;:<>*%"):
        return []
    return [name] if any(ch.isalpha() for ch in name) else []


def _package(word: str) -> str:
    name = re.split(r"[=<>~!\[@;]", word.strip("'\""), maxsplit=1)[0] if word[:1] != "@" else word
    return name if name and any(ch.isalpha() for ch in name) else ""


def _capitalised(text: str) -> list[tuple[str, str, int]]:
    """Capitalised names: several capitalised words in a row anywhere, one word only
    where a sentence does not start (a sentence's first word is capitalised anyway),
    and mixed-case words (`SQLite`-like) anywhere."""
    out: list[tuple[str, str, int]] = []
    for m in _CAPITALISED.finditer(text):
        phrase = m.group(1).rstrip("'\u2019-")
        words = phrase.split(" ")
        starts_sentence = _SENTENCE_END.search(text, max(0, m.start() - 12), m.start()) is not None
        if starts_sentence and words[0].casefold() in STOP_WORDS:
            words = words[1:]
            phrase = " ".join(words)
            starts_sentence = False
        if not words:
            continue
        mixed = any(ch.isupper() for ch in words[0][1:])
        if len(words) > 1 or mixed or not starts_sentence:
            out.append(("name", phrase, m.start()))
    return out
