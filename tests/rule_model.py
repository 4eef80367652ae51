"""A model that answers every question by rule, and a CLI child process that uses it.

`RuleModel` answers any stage's constrained question the way a careful model
would (yes to a yes/no, a few words to a line, the smallest object that fits a
JSON schema, a short sentence otherwise), deterministically and instantly, so a
whole night runs with the real stages whatever questions they ask.

Run as `python -m tests.rule_model [--kill EVENT:N] [--count FILE] -- ARGS...` it
is `dreaming ARGS...` with every model spec answered by a `RuleModel`;
`--kill call:3` SIGKILLs the process at the third model call, `--count` writes how
often each event happened. Events: `call`; `temp`, an edit's temp file written, not
yet renamed into place; `write`, an edit reached disk; `git`,
inside a commit, holding git's index lock; `lock`, git's index lock just taken; `ref`,
HEAD moved to a new commit, the index not yet updated; `index`, the index installed, its
lock not yet removed; `commit`, a commit made; `record`, a unit
about to be recorded; `store`, a ledger transaction about to commit.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dreaming.model import Choice, Completion, Constraint, Json, Lines, TextModel, Usage


def json_answer(schema: Mapping[str, Any]) -> str:
    """The smallest object that fits `schema` (the Json constraint's subset)."""
    value: dict[str, object] = {}
    for name, spec in schema["properties"].items():
        kind = spec.get("type")
        if kind == "string":
            value[name] = spec["enum"][0] if "enum" in spec else "a schematic value"
        elif kind == "integer":
            value[name] = 1
        elif kind == "boolean":
            value[name] = True
        else:
            value[name] = ["a schematic value"]
    return json.dumps(value)


PROSE_CHARS = 200
"""A Lines answer with room for this many characters is prose, not a heading or label."""


def answer(constraint: Constraint | None, user: str = "") -> str:
    if isinstance(constraint, Choice):
        return "yes" if "yes" in constraint.options else constraint.options[0]
    if isinstance(constraint, Lines):
        said = _said(user) if constraint.max_chars >= PROSE_CHARS else None
        return said or "keeping bread fresh and request timeouts"
    if isinstance(constraint, Json):
        return json_answer(constraint.schema)
    return "The person chose the simpler option after trying both."


def _said(user: str) -> str | None:
    """What a careful model drafts: a sentence the prompt's excerpt (between `<<<` and
    `>>>`) or its first note (`- ` line) already holds, so every check of support passes."""
    start, end = user.find("<<<\n"), user.find("\n>>>")
    lines = user[start + 4 : end].splitlines() if 0 <= start < end else []
    if not lines:
        lines = [x[2:] for x in user.splitlines() if x.startswith("- ")][:1]
    for line in reversed(lines):
        text = line.partition(": ")[2] if line.startswith(("assistant: ", "user: ")) else line
        first = text.split(". ")[0].strip().rstrip(".")
        if len(first.split()) >= 3:
            return f"{first[:150]}."
    return None


class RuleModel:
    """Answers by rule; counts its calls."""

    spec = "rule"
    load_seconds = None

    def __init__(self, on_call: Callable[[], None] | None = None) -> None:
        self.calls = 0
        self._on_call = on_call

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        self.calls += 1
        if self._on_call is not None:
            self._on_call()
        return Completion(
            answer(constraint, user), Usage(prompt_tokens=len(user) // 4, generated_tokens=3)
        )

    def unload(self) -> None:
        pass


def install_hooks(hit: Callable[[str], None]) -> RuleModel:
    """Route every model load to one RuleModel and report each event to `hit`."""
    import dreaming.model
    from dreaming.ledger import Ledger, work
    from dreaming.vault import index_lock, writes
    from dreaming.vault.repo import VaultRepo
    from stages.runner.write import Writer

    model = RuleModel(on_call=lambda: hit("call"))

    def load(spec: str, **_: object) -> TextModel:
        return model

    dreaming.model.load = load
    commit_tree, run_git, durable_temp = VaultRepo._commit_tree, VaultRepo._git, writes.durable_temp
    make_lock, install_index = index_lock._make, index_lock._install
    write, commit, record, transaction = (
        Writer.write,
        Writer.commit,
        work.record,
        Ledger.transaction,
    )

    def writing(self: Writer, *args: Any, **kwargs: Any) -> Any:
        outcome = write(self, *args, **kwargs)
        hit("write")
        return outcome

    def committing(self: Writer, *args: Any, **kwargs: Any) -> Any:
        sha = commit(self, *args, **kwargs)
        if sha is not None:
            hit("commit")
        return sha

    def recording(*args: Any, **kwargs: Any) -> None:
        hit("record")
        record(*args, **kwargs)

    def half_written(*args: Any, **kwargs: Any) -> Path:
        temp = durable_temp(*args, **kwargs)
        hit("temp")
        return temp

    def committing_tree(self: VaultRepo, *args: Any, **kwargs: Any) -> Any:
        hit("git")
        return commit_tree(self, *args, **kwargs)

    def moving_head(self: VaultRepo, *args: str, **kwargs: Any) -> str:
        said = run_git(self, *args, **kwargs)
        if args[0] == "update-ref":
            hit("ref")
        return said

    def locking(lock: Path, content: bytes) -> int | None:
        made = make_lock(lock, content)
        if made is not None:
            hit("lock")
        return made

    def installing(real: Path, new: Path) -> None:
        install_index(real, new)
        hit("index")

    @contextmanager
    def in_transaction(self: Ledger) -> Iterator[Any]:
        with transaction(self) as db:
            yield db
            hit("store")

    VaultRepo._commit_tree = committing_tree  # type: ignore[method-assign]
    VaultRepo._git = moving_head  # type: ignore[method-assign]
    writes.durable_temp = half_written
    index_lock._make = locking
    index_lock._install = installing
    Writer.write = writing  # type: ignore[method-assign]
    Writer.commit = committing  # type: ignore[method-assign]
    work.record = recording
    Ledger.transaction = in_transaction  # type: ignore[method-assign]
    return model


def main(argv: list[str]) -> None:
    split = argv.index("--")
    options, args = argv[:split], argv[split + 1 :]
    seen: Counter[str] = Counter()
    kill: tuple[str, int] | None = None
    count: Path | None = None
    for option, value in zip(options[::2], options[1::2], strict=True):
        if option == "--kill":
            event, _, n = value.partition(":")
            kill = (event, int(n))
        elif option == "--count":
            count = Path(value)

    def hit(event: str) -> None:
        seen[event] += 1
        if kill is not None and kill == (event, seen[event]):
            os.kill(os.getpid(), signal.SIGKILL)

    install_hooks(hit)
    if count is not None:
        atexit.register(lambda: count.write_text(json.dumps(dict(seen))))
    from watcher import cli

    sys.argv = ["dreaming", *args]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
