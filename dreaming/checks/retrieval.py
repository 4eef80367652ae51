"""`dreaming eval retrieval`: how well the read path finds the article a question needs.

A question set is JSONL, one row a question: `{"question": …, "gold": ["Stem", …],
"gold_sections": [...]?, "name": …?}`; `name` labels the row in the scorecard. Two
strategies answer each question through the same `Reader` an agent uses:
**resolve-first** (names picked from the question by code, resolved one by one, a
search only when none resolves) and **search-only**. Each then reads its top hit:
the TOC and lead, and the one body section whose heading shares most words with
the question (else the first). Scored: recall@1, recall@5, MRR, and the bytes a
reader took in (the sum of `Result.size` over every call made). Gold stems are
the oracle for which article answers, not for whether the article is right.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dreaming.article import Section
from dreaming.article.document import tail_rank
from dreaming.article.titles import heading_key
from dreaming.errors import DreamingError
from dreaming.query import Result
from dreaming.subjects.candidates import propose as propose_candidates
from dreaming.subjects.names import AliasIndex, canonical
from dreaming.subjects.stopwords import STOP_WORDS
from dreaming.vault import Vault

MAX_NAMES = 6
"""Names resolve-first tries before it falls back to a search (each try costs bytes)."""
RANKED = 10
"""Hits a strategy ranks (MRR counts a gold stem found down to here)."""
PENDING = "pending"
"""`"review": "pending"`: a drafted row (`dreaming eval propose`) no person has checked."""

_WORD = re.compile(r"[\w][\w'\u2019+#.-]{0,63}")


class EvalError(DreamingError):
    """A question set that cannot be evaluated at all."""


@dataclass(frozen=True, slots=True)
class Question:
    line: int
    question: str
    gold: tuple[str, ...]
    gold_sections: tuple[str, ...] = ()
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or f"line {self.line}"


@dataclass(frozen=True, slots=True)
class QuestionSet:
    questions: list[Question]
    problems: list[str]
    """One line a row that was not evaluated (file:line, what is wrong)."""


def load_questions(path: Path, *, include_pending: bool = False) -> QuestionSet:
    """The rows of `path` that can be evaluated, and one line for each that cannot."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise EvalError(f"{path}: no such file; pass a JSONL question set") from None
    except (OSError, UnicodeDecodeError) as e:
        raise EvalError(f"{path}: cannot read it as UTF-8 text ({e}); save it as UTF-8") from e
    questions: list[Question] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row, problem = _row(line, include_pending)
        if problem is not None:
            problems.append(f"{path}:{number}: {problem}")
        elif row is not None:
            questions.append(Question(number, *row))
    return QuestionSet(questions, problems)


_Row = tuple[str, tuple[str, ...], tuple[str, ...], str | None]


def _row(line: str, include_pending: bool) -> tuple[_Row | None, str | None]:
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as e:
        return None, f"not JSON ({e.msg}); write one JSON object a line"
    if not isinstance(doc, dict):
        return None, f"a JSON object is expected, not {type(doc).__name__}"
    question = doc.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, 'no "question": give the question as a non-empty string'
    gold = _strings(doc.get("gold"))
    if not gold:
        return None, '"gold" must be a non-empty list of article stems'
    sections = _strings(doc.get("gold_sections", []))
    if sections is None:
        return None, '"gold_sections" must be a list of section headings'
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        return None, '"name" must be a string'
    if doc.get("review") == PENDING and not include_pending:
        return None, (
            'still marked "review": "pending"; check the question and its gold, '
            "then remove the mark (or pass --include-pending)"
        )
    return (question.strip(), gold, sections, name), None


def _strings(value: object) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    return tuple(v.strip() for v in value)


# ---------------------------------------------------------------- strategies


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call a strategy made, as an agent would have made it."""

    tool: str
    arg: str
    bytes: int


@dataclass
class Trial:
    """What one strategy did for one question."""

    ranked: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    section: str | None = None
    """The heading of the top hit it read, if it read one."""

    @property
    def bytes(self) -> int:
        return sum(c.bytes for c in self.calls)

    def took(self, result: Result, arg: str) -> Result:
        self.calls.append(Call(result.tool, arg, result.size))
        return result


class Tools(Protocol):
    """What a strategy asks: the read tools (`dreaming.query.Reader` in process, or the
    same tools through an MCP session), plus the stems a name or a search ranks, which
    a reader takes from a result's data at no extra cost."""

    vault: Vault

    def resolve(self, name: str) -> Result: ...
    def resolve_stems(self, name: str) -> list[str]: ...
    def search(self, text: str, *, limit: int = 10) -> Result: ...
    def search_stems(self, text: str, *, limit: int = 10) -> list[str]: ...
    def read(self, stem: str, *, full: bool = False, page: int = 1) -> Result: ...
    def section(self, stem: str, heading: str, *, page: int = 1) -> Result: ...


Strategy = Callable[[Tools, str], Trial]


def resolve_first(reader: Tools, question: str) -> Trial:
    """Resolve the names the question holds, best first; search only when none resolves."""
    trial = Trial()
    for name in question_names(question)[:MAX_NAMES]:
        trial.took(reader.resolve(name), name)
        stems = reader.resolve_stems(name)
        if stems:
            trial.ranked = stems[:RANKED]
            break
    else:
        trial.took(reader.search(question), question)
        trial.ranked = reader.search_stems(question, limit=RANKED)
    _read_top(reader, question, trial)
    return trial


def search_only(reader: Tools, question: str) -> Trial:
    trial = Trial()
    trial.took(reader.search(question), question)
    trial.ranked = reader.search_stems(question, limit=RANKED)
    _read_top(reader, question, trial)
    return trial


STRATEGIES: dict[str, Strategy] = {"resolve-first": resolve_first, "search-only": search_only}


def question_names(question: str) -> list[str]:
    """Names worth resolving, best first: the candidate subjects code proposes for any
    text (capitalised names, identifiers, files, hosts), then the question's content
    word n-grams, longest first. One entry a canonical name."""
    names = [c.surface for c in propose_candidates(question, AliasIndex())]
    words = [w.strip(".'\u2019-") for w in _WORD.findall(question)]
    content = [w for w in words if len(w) > 2 and w.casefold() not in STOP_WORDS]
    for n in (3, 2, 1):
        names.extend(" ".join(content[i : i + n]) for i in range(len(content) - n + 1))
    seen: set[str] = set()
    unique: list[str] = []
    for name in names:
        key = canonical(name)
        if key and key not in seen:
            seen.add(key)
            unique.append(name)
    return unique


def _read_top(reader: Tools, question: str, trial: Trial) -> None:
    """The reads an agent makes next: the top hit's TOC and lead, then the one body
    section whose heading shares most words with the question (the first when none
    shares any: the answer is rarely in the lead alone)."""
    if not trial.ranked:
        return
    top = trial.ranked[0]
    toc = trial.took(reader.read(top), top).data.get("toc") or []
    headings = [
        str(entry["heading"])
        for entry in toc
        if entry.get("level") == 2 and not tail_rank(Section(str(entry["heading"])))
    ]
    if not headings:
        return
    asked = _content_words(question)
    heading = max(headings, key=lambda h: len(asked & _content_words(h)))
    trial.took(reader.section(top, heading), f"{top} / {heading}")
    trial.section = heading


def _content_words(text: str) -> set[str]:
    words = (w.strip(".'\u2019-").casefold() for w in _WORD.findall(text))
    return {w for w in words if len(w) > 2 and w not in STOP_WORDS}


# ---------------------------------------------------------------- scoring


@dataclass(frozen=True, slots=True)
class Outcome:
    """One strategy on one question."""

    rank: int | None
    """1-based rank of the first gold stem among the hits, None when missed."""
    recall1: float
    recall5: float
    trial: Trial
    section_hit: bool | None
    """Whether the section read was a gold section; None without gold sections."""

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


def score(question: Question, trial: Trial) -> Outcome:
    gold = {heading_key(g) for g in question.gold}
    ranked = [heading_key(s) for s in trial.ranked]
    rank = next((i for i, s in enumerate(ranked, start=1) if s in gold), None)
    section_hit = None
    if question.gold_sections:
        wanted = {heading_key(s) for s in question.gold_sections}
        section_hit = trial.section is not None and heading_key(trial.section) in wanted
    return Outcome(
        rank,
        len(gold & set(ranked[:1])) / len(gold),
        len(gold & set(ranked[:5])) / len(gold),
        trial,
        section_hit,
    )


@dataclass(frozen=True, slots=True)
class Summary:
    questions: int
    recall1: float
    recall5: float
    mrr: float
    bytes_mean: float
    largest_result: int
    calls_mean: float
    section_hits: int
    section_questions: int


def summarize(outcomes: list[Outcome]) -> Summary:
    n = len(outcomes) or 1
    judged = [o.section_hit for o in outcomes if o.section_hit is not None]
    return Summary(
        len(outcomes),
        sum(o.recall1 for o in outcomes) / n,
        sum(o.recall5 for o in outcomes) / n,
        sum(o.reciprocal_rank for o in outcomes) / n,
        sum(o.trial.bytes for o in outcomes) / n,
        max((c.bytes for o in outcomes for c in o.trial.calls), default=0),
        sum(len(o.trial.calls) for o in outcomes) / n,
        sum(judged),
        len(judged),
    )


@dataclass
class Evaluation:
    source: str
    vault: str
    questions: list[Question]
    problems: list[str]
    outcomes: dict[str, list[Outcome]]

    def summaries(self) -> dict[str, Summary]:
        return {name: summarize(rows) for name, rows in self.outcomes.items()}


def evaluate(reader: Tools, path: Path, *, include_pending: bool = False) -> Evaluation:
    """Every evaluable row of `path` through every strategy; a gold stem that is no
    article is said (file:line) and the row still counts, as a miss."""
    loaded = load_questions(path, include_pending=include_pending)
    if not loaded.questions:
        said = f" ({len(loaded.problems)} rows refused, each said above)" if loaded.problems else ""
        raise EvalError(f"{path}: no question to evaluate{said}; see docs/read-path.md")
    problems = list(loaded.problems)
    for q in loaded.questions:
        for stem in q.gold:
            if not _is_article(reader, stem):
                problems.append(f"{path}:{q.line}: gold {stem!r} is no article in the vault")
    outcomes = {
        name: [score(q, strategy(reader, q.question)) for q in loaded.questions]
        for name, strategy in STRATEGIES.items()
    }
    return Evaluation(str(path), str(reader.vault.root), loaded.questions, problems, outcomes)


def _is_article(reader: Tools, stem: str) -> bool:
    try:
        return reader.vault.article_path(stem).is_file()
    except DreamingError:
        return False


# ---------------------------------------------------------------- reports


def scorecard(evaluation: Evaluation) -> str:
    """The Markdown scorecard: one row a strategy, then one row a question."""
    summaries = evaluation.summaries()
    lines = [
        "# Retrieval eval",
        "",
        f"{len(evaluation.questions)} questions from `{evaluation.source}` "
        f"against `{evaluation.vault}`"
        + (f"; {len(evaluation.problems)} problems (listed below)" if evaluation.problems else ""),
        "",
        "| strategy | recall@1 | recall@5 | MRR | bytes/question | largest result "
        "| calls/question | sections |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, s in summaries.items():
        sections = f"{s.section_hits}/{s.section_questions}" if s.section_questions else "—"
        lines.append(
            f"| {name} | {s.recall1:.2f} | {s.recall5:.2f} | {s.mrr:.2f} | "
            f"{s.bytes_mean:,.0f} | {s.largest_result:,} | {s.calls_mean:.1f} | {sections} |"
        )
    names = list(evaluation.outcomes)
    lines += [
        "",
        "## Per question (rank of the first gold hit · bytes read)",
        "",
        "| question | gold | " + " | ".join(names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for i, q in enumerate(evaluation.questions):
        cells = []
        for name in names:
            o = evaluation.outcomes[name][i]
            cells.append(f"{o.rank or '—'} · {o.trial.bytes:,} B")
        lines.append(
            f"| {_cell(q.label)}: {_cell(q.question, 70)} | {_cell(', '.join(q.gold))} | "
            + " | ".join(cells)
            + " |"
        )
    if evaluation.problems:
        lines += ["", "## Problems", ""] + [f"- {_cell(p, 300)}" for p in evaluation.problems]
    return "\n".join(lines) + "\n"


def _cell(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def evaluation_doc(evaluation: Evaluation) -> dict[str, Any]:
    """The same as JSON (stable keys)."""
    strategies = {
        name: {
            "recall@1": s.recall1,
            "recall@5": s.recall5,
            "mrr": s.mrr,
            "bytes_mean": s.bytes_mean,
            "largest_result": s.largest_result,
            "calls_mean": s.calls_mean,
            "section_hits": s.section_hits,
            "section_questions": s.section_questions,
        }
        for name, s in evaluation.summaries().items()
    }
    per_question = []
    for i, q in enumerate(evaluation.questions):
        row: dict[str, Any] = {
            "line": q.line,
            "name": q.name,
            "question": q.question,
            "gold": list(q.gold),
        }
        for name, outcomes in evaluation.outcomes.items():
            o = outcomes[i]
            row[name] = {
                "rank": o.rank,
                "ranked": o.trial.ranked,
                "bytes": o.trial.bytes,
                "section": o.trial.section,
                "calls": [{"tool": c.tool, "arg": c.arg, "bytes": c.bytes} for c in o.trial.calls],
            }
        per_question.append(row)
    return {
        "file": evaluation.source,
        "vault": evaluation.vault,
        "questions": len(evaluation.questions),
        "problems": evaluation.problems,
        "strategies": strategies,
        "per_question": per_question,
    }
