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

from dreaming.subjects.names import ARTICLES, AliasIndex, canonical
from dreaming.subjects.stopwords import GENERIC, NEVER_ALONE, STOP_WORDS

MAX_CANDIDATES = 12
VERSION = "5"
"""Bumped when what is proposed changes, so EXTRACT judges its chunks again."""
EARLY = 600
"""Characters of the text that hold its opening request."""
EARLY_BONUS = 2
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
_UPPER = "A-ZÀ-ÖØ-ÞА-ЯЁ"
"""Capitals of the Latin and Cyrillic alphabets the corpus is written in."""
_CAPITALISED = re.compile(
    rf"(?<![\w.$@/\\-])([{_UPPER}][\w'\u2019+#-]{{0,30}}"
    rf"(?:[ ](?:of[ ]|for[ ]|de[ ])?[{_UPPER}][\w+#-]{{0,30}}){{0,4}})"
)
_SENTENCE_END = re.compile(r"(?:^|[.!?:;{}\n]\s{0,8}|[\"'(*>#/-]\s{0,8})$")
"""Where the next word starts a sentence, a list item, a heading or a code comment."""

# Kinds in the order they are trusted, with a weight each.
_WEIGHT = {
    "known": 8,
    "project": 6,
    "title": 5,
    "package": 5,
    "code": 3,
    "name": 3,
    "phrase": 3,
    "file": 2,
    "host": 2,
}


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


PASSING = 2
"""A name the person never wrote and the assistant wrote at most this often is named
in passing: on the gold set's tune half, 36 of 115 names the model judged yes were
such, and one of them was a gold subject."""
_EVIDENT_KINDS = frozenset({"known", "title", "project", "package"})
"""Kinds that are evidence enough however often they occur."""


def propose(
    text: str,
    index: AliasIndex,
    limit: int = MAX_CANDIDATES,
    title: str = "",
    person: str | None = None,
) -> list[Candidate]:
    """The `limit` best candidate subjects of `text`, best first. `title` is the
    conversation's own title, whose subject is proposed when the text names it.
    `person` is what the person wrote in `text`: given, a name only the assistant
    wrote in passing is not proposed (the small model says yes to nearly anything
    it is asked about, so a name not worth asking about must not be asked)."""
    found: dict[str, Candidate] = {}
    for kind, surface, at in _occurrences(text, index, title):
        key, shown = index.resolve(surface)
        if kind != "known" and not _worth_judging(key, surface):
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
    # A file named in passing is where the work happened, not what it was about.
    kept = [c for c in found.values() if c.kind != "file" or c.count >= FILE_RECURS]
    if person is not None:
        said = f" {canonical(person)} "
        kept = [
            c
            for c in kept
            if c.kind in _EVIDENT_KINDS
            or c.count > PASSING
            or f" {c.key} " in said
            or f" {canonical(c.surface)} " in said
        ]
    ranked = sorted(kept, key=lambda c: (-c.score, c.first, c.key))
    return ranked[:limit]


def _worth_judging(key: str, surface: str) -> bool:
    if surface.casefold().replace("\u2019", "'") in NEVER_ALONE:
        return False
    words = key.split()
    if not words or len(key) < 2 or all(w in NEVER_ALONE for w in words):
        return False
    if _HEX_ID.fullmatch(key.replace(" ", "")):
        return False
    return not all(w.replace(".", "").isdigit() for w in words)


_HEX_ID = re.compile(r"(?=[0-9a-f]*\d)[0-9a-f]{6,64}")
"""A commit, hash or id (`ad2d134`): a pointer, not a subject."""


def _occurrences(text: str, index: AliasIndex, title: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = list(_known(text, index))
    prose = prose_only(text)
    out.extend(_title_phrases(title, prose))
    out.extend(_projects(text))
    out.extend(_phrases(prose))
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
    out.extend(_capitalised(prose))
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


_PAIR = re.compile(r"(?=(?<![\w'-])([^\W\d_]{3,30}) ([^\W\d_]{3,30})(?![\w'-]))")
PHRASE_RECURS = 3
"""A lower-case phrase named this often is something the conversation keeps returning to."""


def _phrases(prose: str) -> list[tuple[str, str, int]]:
    """Two-word lower-case phrases the text keeps returning to ("token usage",
    "plan mode"): concepts are written in lower case, so no capital finds them."""
    seen: dict[str, list[int]] = {}
    for m in _PAIR.finditer(prose):
        first, second = m.group(1), m.group(2)
        if not (first.islower() and second.islower()):
            continue
        # A generic head names a kind of the first word ("browser tests"); a generic
        # first word says which one ("proper styling", "new feature") and is no name.
        if first in NEVER_ALONE or second in NEVER_ALONE - GENERIC:
            continue
        seen.setdefault(f"{first} {second}", []).append(m.start())
    return _recurring("phrase", seen, PHRASE_RECURS)


_TITLE_WORD = re.compile(r"[\w'\u2019+#.-]{1,64}|[^\w\s]")
_TITLE_MAX_WORDS = 8
"""A longer title is the first message cut short, not a title someone gave."""


def _title_phrases(title: str, prose: str) -> list[tuple[str, str, int]]:
    """The subjects a conversation's own title names, where its text names them too:
    each run of the title's words between function words and punctuation, cut where
    capitals start or stop ("Research | Claude Code | plan mode")."""
    if not title or title.rstrip().endswith(("…", "...")) or len(title.split()) > _TITLE_MAX_WORDS:
        return []
    haystack = f" {canonical(prose)} "
    out: list[tuple[str, str, int]] = []
    for run in _title_runs(title):
        # "plan mode" as written, else without a generic end ("Research", "comparison").
        for words in (run, _trimmed(run)):
            phrase = " ".join(words)
            times = haystack.count(f" {canonical(phrase)} ") if 0 < len(words) <= _MAX_NGRAM else 0
            if times >= (1 if len(words) > 1 else 2):
                out.extend(("title", phrase, 0) for _ in range(min(times, 10)))
                break
    return out


def _trimmed(run: list[str]) -> list[str]:
    start, end = 0, len(run)
    while start < end and run[start].casefold() in NEVER_ALONE:
        start += 1
    while end > start and run[end - 1].casefold() in NEVER_ALONE:
        end -= 1
    return run[start:end]


def _title_runs(title: str) -> list[list[str]]:
    tokens = [t.rstrip(".") for t in _TITLE_WORD.findall(title)]
    runs: list[list[str]] = [[]]
    previous: bool | None = None
    for i, token in enumerate(tokens):
        if not token or not token[0].isalnum() or token.casefold() in STOP_WORDS:
            runs.append([])
            previous = None
            continue
        capital = token[0].isupper()
        if i == 0 and capital and len(tokens) > 1 and tokens[1][:1].islower():
            capital = False  # a sentence's first word is capitalised anyway
        if previous is not None and capital != previous:
            runs.append([])
        runs[-1].append(token)
        previous = capital
    return [r for r in runs if r]


_PATH = re.compile(
    r"(?<![\w.:/\\-])(?:~|/(?:Users|home)/[\w.-]{1,64})?/((?:[\w.@+-]{1,100}/){1,3})"
)
"""An absolute path's first folders: under the person's home (`/Users/me/…`, `~/…`) or
under a root (`/workspace/…`, `/src/…`). Never inside a URL or a relative path."""
_SYSTEM_ROOTS = frozenset(
    {
        *("usr", "etc", "var", "opt", "proc", "sys", "dev", "bin", "sbin", "lib", "lib64"),
        *("tmp", "mnt", "media", "private", "root", "nix", "snap", "run", "boot", "srv"),
        *("library", "system", "applications", "volumes", "cores", "api", "v1", "v2"),
    }
)
"""Roots that hold the system, not a person's projects."""
_NOT_PROJECT_DIRS = frozenset(
    {
        *("workspace", "workspaces", "projects", "project", "code", "dev", "development"),
        *("src", "source", "sources", "repos", "repo", "git", "github", "gitlab", "work"),
        *("documents", "desktop", "downloads", "tmp", "temp", "sandbox", "lib", "library"),
        *("go", "python", "node_modules", "venv", "env", "bin", "opt", "var", "usr", "local"),
        *("user", "home", "app", "apps", "public", "static", "test", "tests", "docs"),
    }
)
"""Folders that hold projects, not projects."""
PROJECT_RECURS = 3
FILE_RECURS = 3
"""A file's name proposed only when named this often (or by the title)."""


def _projects(text: str) -> list[tuple[str, str, int]]:
    """The folder that the paths of the text keep naming: the project a coding session
    works in (`/Users/me/workspace/<project>/…`, `/workspace/<project>/…`)."""
    seen: dict[str, list[int]] = {}
    for m in _PATH.finditer(text):
        folders = m.group(1).split("/")
        if m.start(1) - m.start() == 1 and folders[0].casefold() in _SYSTEM_ROOTS:
            continue
        for folder in folders:
            if folder and folder[0] != "." and folder.casefold() not in _NOT_PROJECT_DIRS:
                seen.setdefault(folder, []).append(m.start(1))
                break
    return _recurring("project", seen, PROJECT_RECURS)


def _recurring(kind: str, seen: dict[str, list[int]], times: int) -> list[tuple[str, str, int]]:
    """Every occurrence of the names in `seen` found at least `times` times."""
    return [(kind, name, at) for name, ats in seen.items() if len(ats) >= times for at in ats]


_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def prose_only(text: str) -> str:
    """`text` with fenced code and the agent's tool-call lines blanked (same length, so
    offsets still point into `text`): a capital or a phrase there is syntax or a log,
    not a name the conversation uses."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        blank = fence is not None or m is not None or line.lstrip().startswith("[tool")
        if m is not None:
            fence = None if fence == m.group(1) else (fence or m.group(1))
        out.append("".join(ch if ch == "\n" else " " for ch in line) if blank else line)
    return "".join(out)
