"""Which drafted sentences may stand: each is checked against the excerpt it cites.

A small model writes fluent sentences the excerpt does not hold: a frame ("the user
chose …") the conversation never had, or one option of a quiz or of a list of ideas
stated as the answer. Code cannot repair such a sentence into something the source
said, so it drops it and counts the drop; what is left is what the excerpt holds.
Pure functions, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from dreaming.article.markup import MARKER, unlinked
from dreaming.article.words import STOPWORDS, content_words, sentences, stem, stems, words

_FRAME = re.compile(
    r"\b(?:the user|the person|they|he|she|we|i)\b[^.!?]{0,40}?"
    r"\b(chose|chosen|choose|chooses|decided|decides|opted|opts|selected|selects|preferred"
    r"|prefers|picked|picks|read|reads|wanted|wants)\b",
    re.IGNORECASE,
)
_ROOTS = {
    "chose": ("chos", "choos"),
    "choose": ("chos", "choos"),
    "decide": ("decid", "decis"),
    "opt": ("opt",),
    "select": ("select",),
    "prefer": ("prefer",),
    "pick": ("pick",),
    "read": ("read",),
    "want": ("want",),
}
_LETTERED = re.compile(r"^\s*(?:[-*]\s+)?\(?[A-Da-d][).:]\s+(\S.*)$")
_LISTED = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+(\S.*)$")
_OFFERS = re.compile(
    r"\b(?:ideas?|options?|alternatives?|suggestions?|possibilit(?:y|ies)|approaches"
    r"|could|might|consider|brainstorm\w*|which of the following)\b",
    re.IGNORECASE,
)
SUPPORT = 0.66
"""The share of a sentence's own content words (past the title's) its excerpt must hold,
as words or their stems (one word missing is always let). A small model paraphrases a
little and is let; a sentence of
what it knows of a word ("CSS is a language used to style web pages" cited to a talk
about one margin) holds few of the excerpt's words and goes."""
ATTRIBUTED = 0.5
"""A sentence saying what its subject is ("X is a …") must find this share of its own
content words within `PLACE` consecutive excerpt sentences that name X: the words of a
claim about Beads are not a claim about the Steve Yegge named two paragraphs away."""
PLACE = 3
_DEFINES = re.compile(r"^(.{1,200}?)\s(?:is|are|was|were)\s", re.IGNORECASE)
_KIND = re.compile(r"^(.{1,200}?)\s(?:is|are|was|were)\s(?:a|an|the)\s([^.,;:()\[\]]{1,200})", re.I)
_KIND_ENDS = frozenset((
    "that", "which", "who", "whose", "used", "for", "in", "of", "to", "with", "designed",
    "aimed", "by", "from", "on", "where", "when", "and", "or", "built", "made", "written",
    "allowing", "providing", "supporting", "enabling", "using", "based", "at", "as",
))  # fmt: skip
"""Words that end the noun phrase a definition puts its subject in ("a tool | for …")."""
_COLLECTIVE = frozenset((
    "set", "kind", "type", "sort", "form", "collection", "group", "list", "pair",
    "series", "family", "piece", "part", "number", "variety",
))  # fmt: skip
_TOOL_LINE = re.compile(r"\s*(?:\w+:\s*)?\[tool\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_FREE = frozenset((
    "user", "person", "assistant", "conversation", "excerpt", "after", "before", "then",
    "only", "more", "most", "very", "may", "might", "must", "should", "each", "every",
    "other", "such", "same", "both", "all", "any", "few", "many", "much", "well", "still",
    "even", "now", "new", "used", "uses", "make", "makes", "made", "way", "one", "first",
))  # fmt: skip
"""Words that say who spoke, or join a claim without making one: no excerpt need hold
them."""
OPTION_SHARE = 0.6
"""A sentence holding this share of one offered option's content words restates it
(the question's own words around the option do not make it a new claim)."""


@dataclass
class Kept:
    text: str
    """The sentences that stand, joined; empty when none does."""
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """(sentence, why) for each sentence taken out."""


def keep_supported(sentences: Sequence[str], excerpt: str, title: str = "") -> Kept:
    """The sentences the excerpt allows, in order, and why each other one went. The
    title's own words need no support: every sentence is about it. Footnote markers and
    links are read as the words they show (an article's sentences carry them)."""
    options = offered_options(excerpt)
    said = _person_lines(excerpt)
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    held = stems(excerpt)
    places = _places(excerpt)
    runs = _runs(excerpt)
    subject = _plainstems(title)
    numbers = set(_NUMBER.findall(excerpt))
    named = stems(title)
    skip = named | _FREE
    previous = ""
    for sentence in sentences:
        if not kept and title:
            sentence = _named(sentence, previous, title)
        previous = sentence
        # A link is the words the reader sees: `[[Tool_Storage_Shed|shed]]` says "shed".
        plain = unlinked(MARKER.sub("", sentence))
        why = (
            (None if kept else opens_mid_thought(plain))
            or about_the_source(plain)
            or invented_frame(plain, said)
            or restates_option(plain, options)
            or unsupported(plain, held, numbers, skip)
            or misattributed(plain, places, named, skip)
            or unstated_kind(plain, runs, subject)
        )
        if why is None:
            kept.append(sentence)
        else:
            dropped.append((sentence, why))
    return Kept(" ".join(kept), dropped)


_PRONOUNS = frozenset((
    "it", "its", "they", "them", "their", "this", "these", "those", "he", "she", "his",
    "her", "that", "such", "both",
))  # fmt: skip


_IT = re.compile(r"(It|Its)\b")


def _named(sentence: str, previous: str, title: str) -> str:
    """`sentence` with an opening "It"/"Its" replaced by the title, where the sentence
    before it (dropped) opened with the title: the pronoun named the article's subject,
    and the paragraph now opens here."""
    m = _IT.match(sentence)
    if m is None or not previous.casefold().startswith(title.casefold()):
        return sentence
    return (title if m.group(1) == "It" else f"{title}'s") + sentence[m.end() :]


def opens_mid_thought(sentence: str) -> str | None:
    """Why a paragraph cannot open with `sentence`: a pronoun first ("It supports …",
    "They also focus on …") points back to something the article never said, and
    under another title it names another thing."""
    first = sentence.split(maxsplit=1)[0].strip(",.:;").casefold() if sentence.split() else ""
    return f"opens mid-thought ({first!r} names nothing before it)" if first in _PRONOUNS else None


def unsupported(sentence: str, held: set[str], numbers: set[str], skip: set[str]) -> str | None:
    """Why the excerpt (its stems `held`, its `numbers`) does not hold `sentence`, or None."""
    missing_numbers = [n for n in _NUMBER.findall(sentence) if n not in numbers]
    if missing_numbers:
        return f"a number the excerpt does not hold ({missing_numbers[0]})"
    own = stems(sentence) - skip
    missing = sorted(own - held)
    if len(missing) > max(1.0, (1 - SUPPORT) * len(own)):
        return f"words the excerpt does not hold ({', '.join(missing[:4])})"
    return None


def misattributed(
    sentence: str, places: Sequence[set[str]], named: set[str], skip: set[str]
) -> str | None:
    """Why a sentence saying what the subject (its title's stems, `named`) is was never
    said of it: fewer than `ATTRIBUTED` of its own words stand within `PLACE`
    consecutive excerpt sentences (`places`) that name the subject."""
    subject = _DEFINES.match(sentence)
    if not named or subject is None or not named <= stems(subject.group(1)):
        return None
    own = stems(sentence) - skip
    if not own:
        return None
    best = -1
    for i in range(len(places)):
        window = set().union(*places[i : i + PLACE])
        if named <= window:
            best = max(best, len(own & window))
    if best < 0:
        return "says what the subject is, and the excerpt never names it"
    if best >= ATTRIBUTED * len(own):
        return None
    return f"says what the subject is with words the excerpt says elsewhere ({best} of {len(own)})"


def unstated_kind(sentence: str, runs: Sequence[list[str]], named: set[str]) -> str | None:
    """Why a sentence putting the subject in a kind ("X is a project management tool")
    says what the excerpt never did: that noun phrase, word for word, does not stand
    within `PLACE` consecutive excerpt sentences that name the subject. Words beside
    the name are not enough (the person's question "a tool to manage my project" makes
    no "project management tool" of it): the kind must be the excerpt's own."""
    found = kind_of(sentence)
    if not named or found is None or not named <= _plainstems(found[0]):
        return None
    kind = found.words
    stems = [stem(w) for w in kind]
    for i in range(len(runs)):
        window = [w for run in runs[i : i + PLACE] for w in (*run, "")]
        if named <= set(window) and _holds(window, stems):
            return None
    return f"calls the subject a {' '.join(kind)}, which the excerpt never does"


class Kind(NamedTuple):
    """What a sentence putting something in a kind says: "Beads is a git-backed issue
    tracker for agents" → ("Beads", ["git", "backed", "issue", "tracker"],
    "git-backed issue tracker")."""

    subject: str
    words: list[str]
    phrase: str
    """The kind as written."""


def kind_of(sentence: str) -> Kind | None:
    """The kind a sentence of the form "X is a …" puts X in, or None."""
    found = _KIND.match(sentence)
    if found is None:
        return None
    tokens = found.group(2).split()
    # "a set of workers" puts it among workers: the kind is what follows the "of".
    if len(tokens) > 2 and tokens[0].lower() in _COLLECTIVE and tokens[1].lower() == "of":
        tokens = tokens[2:]
    said: list[str] = []
    kept: list[str] = []
    for token in tokens:
        plain = _plain_words(token)
        if not plain or plain[0] in _KIND_ENDS:
            break
        said += plain
        kept.append(token.strip("\"'*_`"))
    return Kind(found.group(1), said, " ".join(kept)) if said else None


def _holds(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return any(list(words[i : i + n]) == list(phrase) for i in range(len(words) - n + 1))


def _runs(excerpt: str) -> list[list[str]]:
    """The stems of each sentence of the excerpt, in order, line by line (tool-call
    lines left out): where a phrase is looked for word by word."""
    return [
        [stem(w) for w in _plain_words(piece)]
        for line in excerpt.splitlines()
        if not _TOOL_LINE.match(line)
        for piece in sentences(line)
        if piece.strip()
    ]


def _plainstems(text: str) -> set[str]:
    """The content words of `text` as `_plain_words` reads them, stemmed."""
    return {stem(w) for w in _plain_words(text) if len(w) > 2 and w not in STOPWORDS}


def _plain_words(text: str) -> list[str]:
    """Lower-case words, hyphens and underscores read as spaces ("git-backed")."""
    return words(text.replace("-", " ").replace("_", " "))


def _places(excerpt: str) -> list[set[str]]:
    """The stems of each sentence of the excerpt, line by line, in order; a tool call's
    line (`[tool: Bash — ls /home/user/project]`) says nothing about anything."""
    return [
        stems(piece)
        for line in excerpt.splitlines()
        if not _TOOL_LINE.match(line)
        for piece in sentences(line)
        if piece.strip()
    ]


_SOURCE_NOUN = (
    r"(?:the|this)\s+(?:article|excerpt|document|conversation|text|passage|transcript|"
    r"snippet|notes?|summary|discussion)"
)
_SOURCE = re.compile(
    rf"^{_SOURCE_NOUN}\s+(?:provides|presents|gives|offers|discusses|covers|highlights|"
    r"focuses|is\s+about|deals|talks)\b",
    re.IGNORECASE,
)
"""What the source does, said of the source: "The document provides an overview …".
Verbs that carry what was shown ("The excerpt shows how to disable MD034") are left to
the other checks: the fact after them is the subject's."""


def about_the_source(sentence: str) -> str | None:
    """Why a sentence speaking of the source ("The article provides a balanced opinion
    …") is no fact about the subject: a reader of the wiki never saw that excerpt."""
    if _SOURCE.match(sentence.lstrip(" *_\"'")):
        return "speaks of the source, not of the subject"
    return None


def invented_frame(sentence: str, person_said: str) -> str | None:
    """Why `sentence` frames the person as choosing, deciding or reading when their
    own words never say so, or None."""
    for m in _FRAME.finditer(sentence):
        verb = m.group(1).casefold()
        root = next((r for key, r in _ROOTS.items() if verb.startswith(key[:4])), (verb,))
        if not any(re.search(rf"\b{re.escape(r)}", person_said) for r in root):
            return f"a frame the conversation does not state ({verb!r})"
    return None


def offered_options(excerpt: str) -> list[set[str]]:
    """The content words of each option the excerpt offers: the lines of a lettered
    choice (a quiz), and the items of a list introduced as ideas, options or
    possibilities. Steps of a how-to are a list too, but nothing offers them."""
    lines = excerpt.splitlines()
    out: list[set[str]] = []
    offering = False  # the current list was introduced as offers
    for i, line in enumerate(lines):
        lettered = _LETTERED.match(line)
        listed = _LISTED.match(line)
        if lettered is not None and _in_a_run(lines, i):
            out.append(content_words(lettered.group(1)))
        elif listed is not None:
            if i == 0 or _LISTED.match(lines[i - 1]) is None:
                offering = _OFFERS.search(" ".join(lines[max(0, i - 2) : i])) is not None
            if offering:
                out.append(content_words(listed.group(1)))
    return [o for o in out if len(o) >= 2]


def restates_option(sentence: str, options: Sequence[set[str]]) -> str | None:
    words = content_words(sentence)
    if not words:
        return None
    for option in options:
        if len(words & option) >= OPTION_SHARE * len(option):
            return "one of the options offered, stated as fact"
    return None


def _person_lines(excerpt: str) -> str:
    """What the person said in the excerpt, lower-cased: the lines of its `user:`
    turns (chunk_text's shape)."""
    out: list[str] = []
    theirs = False
    for line in excerpt.splitlines():
        role, colon, _ = line.partition(": ")
        if colon and role in ("user", "assistant", "tool", "system"):
            theirs = role == "user"
        if theirs:
            out.append(line)
    return "\n".join(out).casefold()


def _in_a_run(lines: Sequence[str], i: int) -> bool:
    """A lettered line beside another: one "a) …" alone is prose, not a choice."""
    return any(
        0 <= j < len(lines) and _LETTERED.match(lines[j]) is not None for j in (i - 1, i + 1)
    )
