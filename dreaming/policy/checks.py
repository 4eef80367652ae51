"""Is a Meta policy page usable? Pure checks, one readable line a problem.

A page a stage reads must be something the code that reads it understands, and
must stay schematic (a small model copies a real example value into unrelated
answers). A page that fails is never put in force: dreaming/policy/pages.py keeps its
last good version instead and reports these lines. Every check is one pass over
the page (at most `MAX_BYTES`), whatever a person or a tool left in it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import yaml

from dreaming import frontmatter, languages
from dreaming.article.fences import FenceBlock, fence_blocks, line_content, split_lines
from dreaming.article.schematic import PLACEHOLDERS, SLOTS
from dreaming.policy import summary
from dreaming.policy.schemas import FIELD_TYPES
from dreaming.resources import data_dir

MAX_BYTES = 256 * 1024
"""A policy page is inlined into prompts: far smaller than this in practice."""
MAX_FRONTMATTER = 8 * 1024
"""Bounds the YAML parser's work: a page's frontmatter is a few short lines."""

REQUIRED_BLOCKS: dict[str, tuple[str, ...]] = {
    "Article_Conventions": (),
    "Bucketing": (),
    "Buckets": ("buckets",),
    "Category_Definitions": ("categories",),
    "Chunking": ("settings",),
    "Editorial_Guidelines": (),
    "Entities": ("aliases",),
    "Infobox_Schemas": ("schema",),
    "Summary_Style": (),
    "Topics_to_Ignore": ("ignore",),
}
"""The shipped pages and the fenced blocks code reads from each (a test keeps this
equal to meta_templates/). Any other page in Meta/ is the person's own, not policy."""

PAGES = tuple(REQUIRED_BLOCKS)

OPTIONAL_BLOCKS: dict[str, tuple[str, ...]] = {
    "Article_Conventions": (languages.BLOCK,),
    "Summary_Style": (summary.BLOCK,),
}
"""Blocks a page may hold and code reads when it does (a page from before the block
was shipped stays in force without it)."""

CHUNKING_SETTINGS = ("min_messages", "max_messages", "label_min_words", "label_max_words")
_NUMBER = re.compile(r"[0-9]{1,6}")
_FIELD = re.compile(r"[a-z][a-z0-9_]{0,63}")
_BUCKET = re.compile(r"_[a-z0-9_]{1,63}")
_SLOT = re.compile(r"<[^<>\n]{1,60}>")
_MIN_EXAMPLE_TEXT = 16
"""The fixed text an example line needs around its slots to be recognised in an edit."""


def check_page(name: str, data: bytes) -> list[str]:
    """The problems of `data` as `Meta/<name>.md`; empty when the page can be put in force.
    A page not shipped (the person's own) has none: it is not policy."""
    if name not in REQUIRED_BLOCKS:
        return []
    where = f"Meta/{name}.md"
    if len(data) > MAX_BYTES:
        return [
            # Only the first MAX_BYTES + 1 bytes may have been read: the size is unknown.
            f"{where}: larger than the {MAX_BYTES // 1024} KiB a policy page may hold; shorten it"
        ]
    if b"\0" in data:
        return [f"{where}: holds binary data (NUL bytes), not text; save it as plain text"]
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return [f"{where}: not UTF-8 text; save it as UTF-8"]
    if not text.strip():
        return [
            f"{where}: is empty; undo the edit, or delete the page and run "
            "`dreaming init` on the vault to restore the shipped one"
        ]
    lines = [line_content(line) for line in split_lines(text)]
    body_start, problems = _frontmatter(name, lines)
    body = lines[body_start:]
    fenced = _fenced_lines(body)
    if not any(line.startswith("# ") and i not in fenced for i, line in enumerate(body)):
        problems.append(f"{where}: has no H1 title line; add `# {name.replace('_', ' ')}`")
    problems += [f"{where}: {p}" for p in _blocks(name, body)]
    problems += [f"{where}: {p}" for p in _leaks(name, body, fenced, body_start)]
    return problems


def _frontmatter(name: str, lines: Sequence[str]) -> tuple[int, list[str]]:
    """(the first line after the frontmatter, its problems)."""
    where = f"Meta/{name}.md"
    restore = f"start the page with ---, `dreaming: policy`, `page: {name}`, ---"
    if not lines or lines[0].rstrip() != "---":
        return 0, [f"{where}: has no frontmatter; {restore}"]
    size = 0
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            break
        size += len(lines[end]) + 1
        if size > MAX_FRONTMATTER:
            return 0, [f"{where}: the frontmatter is unclosed or too long; {restore}"]
    else:
        return 0, [f"{where}: the frontmatter is unclosed; {restore}"]
    block = "\n".join(lines[1:end])
    try:
        data: Any = frontmatter.load(block)
    except frontmatter.TooDeep:
        return end + 1, [f"{where}: the frontmatter is nested too deeply; {restore}"]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 2}" if mark is not None else ""
        return end + 1, [f"{where}: the frontmatter is not valid YAML{at}; {restore}"]
    if not isinstance(data, dict):
        return end + 1, [f"{where}: the frontmatter is not a list of `key: value` lines; {restore}"]
    problems = []
    if data.get("dreaming") != "policy":
        problems.append(f"{where}: the frontmatter lacks `dreaming: policy`; add that line")
    if data.get("page") != name:
        problems.append(f"{where}: the frontmatter lacks `page: {name}`; add that line")
    return end + 1, problems


def _fenced_lines(lines: Sequence[str]) -> set[int]:
    return {i for b in fence_blocks(lines) for i in range(b.start, b.end)}


def _blocks(name: str, lines: Sequence[str]) -> list[str]:
    problems: list[str] = []
    blocks = fence_blocks(lines)
    for label in REQUIRED_BLOCKS[name]:
        found = [b for b in blocks if b.label == label]
        if not found:
            problems.append(
                f"the ```{label} block is missing; put it back as the shipped page has it"
            )
            continue
        for block in found:
            if lines[block.start].rstrip() != f"```{label}" or not block.closed:
                problems.append(
                    f"the ```{label} block must open with ```{label} at the start of a line "
                    "and close with ```; fix its fence lines"
                )
                continue
            content = [line.strip() for line in lines[block.start + 1 : block.end - 1]]
            problems += _CHECKS[label](content)
        if label == "schema":
            problems += _kinds(lines, found)
    for label in OPTIONAL_BLOCKS.get(name, ()):
        found = [b for b in blocks if b.label == label]
        if len(found) > 1:
            problems.append(f"the page has {len(found)} ```{label} blocks; keep one")
        for block in found[:1]:
            content = [line.strip() for line in lines[block.start + 1 : block.end - 1]]
            problems += _CHECKS[label](content)
    return problems


def _kinds(lines: Sequence[str], blocks: Sequence[FenceBlock]) -> list[str]:
    """One schema block a kind. The kinds are the page's to choose (the audit and
    SYNTHESIZE read them from it), so a renamed or added kind is fine."""
    declared = []
    for block in blocks:
        content = (line.strip() for line in lines[block.start + 1 : block.end - 1])
        key, _, kind = next((line for line in content if line), "").partition(":")
        if key.strip() == "kind":
            declared.append(kind.strip())
    return [
        f"the kind `{k}` has {n} schema blocks; keep one"
        for k, n in Counter(declared).items()
        if n > 1
    ]


def _entries(content: Sequence[str]) -> list[str]:
    """A block's lines without blanks and `#` comments."""
    return [line for line in content if line and not line.startswith("#")]


def _settings(content: Sequence[str]) -> list[str]:
    values = dict(zip(CHUNKING_SETTINGS, (2, 500, 4, 10), strict=True))
    problems = []
    for line in _entries(content):
        key, colon, value = (part.strip() for part in line.partition(":"))
        if not colon or key not in values or not _NUMBER.fullmatch(value):
            problems.append(
                f"the settings line {_shown(line)} is not `<name>: <whole number>` with a name "
                f"among {', '.join(CHUNKING_SETTINGS)}; correct it"
            )
            continue
        values[key] = int(value)
    for low, high in (("min_messages", "max_messages"), ("label_min_words", "label_max_words")):
        if values[low] < 1 or values[low] > values[high]:
            problems.append(
                f"{low} ({values[low]}) must be at least 1 and not above {high} "
                f"({values[high]}); correct the settings block"
            )
    return problems


def _language(content: Sequence[str]) -> list[str]:
    found = languages.from_block(content)
    return [found] if isinstance(found, str) else []


def _ignore(content: Sequence[str]) -> list[str]:
    return [
        f"the pattern {_shown(line)} matches every chunk, so nothing would reach the wiki; "
        "remove it or name a topic"
        for line in _entries(content)
        if not line.replace("*", "").strip()
    ]


def _pairs(separator: str, shape: str) -> Callable[[Sequence[str]], list[str]]:
    def check(content: Sequence[str]) -> list[str]:
        problems = []
        for line in _entries(content):
            left, sep, right = line.partition(separator)
            if not sep or not left.strip() or not right.strip():
                problems.append(f"the line {_shown(line)} is not `{shape}`; correct it")
        return problems

    return check


def _buckets(content: Sequence[str]) -> list[str]:
    names = _entries(content)
    problems = [
        f"the reserved bucket {_shown(n)} is not `_` and lower-case letters, digits or `_`; "
        "rename it"
        for n in names
        if not _BUCKET.fullmatch(n)
    ]
    if "_captured" not in names:
        problems.append("the ```buckets block lacks `_captured`; add it back on a line of its own")
    return problems


def _schema(content: Sequence[str]) -> list[str]:
    lines = [line for line in content if line]
    if not lines:
        return ["a ```schema block is empty; start it with `kind: <kind>`"]
    key, colon, kind = (part.strip() for part in lines[0].partition(":"))
    problems = []
    fields = Counter(line.partition(":")[0].strip() for line in lines[1:])
    problems += [
        f"the field `{f}` is listed {n} times in one schema block; keep one"
        for f, n in fields.items()
        if n > 1 and _FIELD.fullmatch(f)
    ]
    if key != "kind" or not colon or not kind:
        problems.append(
            f"a ```schema block starts with {_shown(lines[0])}; start it with `kind: <kind>`"
        )
    for line in lines[1:]:
        field, colon, kind_of = (part.strip() for part in line.partition(":"))
        if not colon or not _FIELD.fullmatch(field) or kind_of not in FIELD_TYPES:
            problems.append(
                f"the schema line {_shown(line)} is not `<field>: text`, `list` or `link` with a "
                "snake_case field; correct it"
            )
    return problems


_CHECKS: dict[str, Callable[[Sequence[str]], list[str]]] = {
    "settings": _settings,
    "ignore": _ignore,
    "aliases": _pairs("=>", "<Other name> => <Canonical Title>"),
    "categories": _pairs(":", "<Name>: <what belongs in it>"),
    "buckets": _buckets,
    "schema": _schema,
    languages.BLOCK: _language,
    summary.BLOCK: lambda content: summary.split_problems(list(content)),
}


@cache
def _examples(name: str) -> tuple[tuple[str, ...], ...]:
    """The shipped page's example lines (prose lines with slots) as the text around the
    slots: an edited line with the same text around something else filled a slot in."""
    path = data_dir("meta_templates") / f"{name}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    lines = [line_content(line) for line in split_lines(text)]
    fenced = _fenced_lines(lines)
    found = []
    for i, line in enumerate(lines):
        if i in fenced or not any(slot in line for slot in SLOTS):
            continue
        pieces = tuple(_SLOT.split(line))
        if all(pieces[1:-1]) and sum(len(p.strip()) for p in pieces) >= _MIN_EXAMPLE_TEXT:
            found.append(pieces)
    return tuple(found)


def _leaks(name: str, lines: Sequence[str], fenced: set[int], offset: int) -> list[str]:
    problems = []
    examples = _examples(name)
    for i, line in enumerate(lines):
        if i in fenced:
            continue
        for pieces in examples:
            value = _filled(pieces, line)
            if value is not None:
                problems.append(
                    f"line {offset + i + 1}: the example shows the real value {_shown(value)}; "
                    "examples stay placeholders like `<Thing A>` (a small model copies real "
                    "values), so put the placeholder back"
                )
                break
    return problems


def _filled(pieces: Sequence[str], line: str) -> str | None:
    """The first real value `line` has where the example `pieces` has a slot, if `line`
    is that example filled in (one left-to-right pass with str.find)."""
    first, last = pieces[0], pieces[-1]
    if len(line) < len(first) + len(last) or not line.startswith(first):
        return None
    if not line.endswith(last):
        return None
    at, end = len(first), len(line) - len(last)
    values = []
    for piece in pieces[1:-1]:
        found = line.find(piece, at, end)
        if found == -1:
            return None
        values.append(line[at:found])
        at = found + len(piece)
    values.append(line[at:end])
    for value in values:
        v = value.strip()
        if v and v not in PLACEHOLDERS and not _SLOT.fullmatch(v):
            return v
    return None


def _shown(text: str, limit: int = 60) -> str:
    """A line from the page, quoted and cut short for a one-line message."""
    flat = " ".join(text.split())
    return f"`{flat[:limit]}…`" if len(flat) > limit else f"`{flat}`"
