"""docs/policy.md's "Used by" column is what the stages declare and read: a person who
edits a Meta page is told truly which steps follow it."""

from __future__ import annotations

import inspect
import re
import sys

from stages.runner.pipeline import STAGES
from tests.support import REPO

_ROW = re.compile(r"^\| `([A-Z]\w+)` \| [^|]*\| ([^|]*) \|")
_READ = re.compile(r"\bpolicy\.(?:text|page)\((?:\"(\w+)\"|([A-Z_]+))\)")


def documented() -> dict[str, set[str]]:
    text = (REPO / "docs" / "policy.md").read_text(encoding="utf-8")
    rows = (_ROW.match(line) for line in text.splitlines())
    return {
        m.group(1): {s.strip() for s in m.group(2).split(",")} - {"none yet"} for m in rows if m
    }


def test_the_used_by_column_names_exactly_the_stages_that_declare_each_page() -> None:
    declared = {page: {s.name.upper() for s in STAGES if page in s.policy} for page in documented()}
    assert documented() == declared


def modules_of(stage: object) -> list[object]:
    """The stage's module, and every module beside it when it has a package of its own
    (`stages/synthesize/`)."""
    name = type(stage).__module__
    package = name.rpartition(".")[0]
    if package == "stages":
        return [sys.modules[name]]
    return [m for n, m in sys.modules.items() if n.startswith(f"{package}.")]


def test_every_page_a_stage_reads_is_one_it_declares() -> None:
    for stage in STAGES:
        read = set()
        for module in modules_of(stage):
            for m in _READ.finditer(inspect.getsource(module)):  # type: ignore[arg-type]
                read.add(m.group(1) or getattr(module, m.group(2)))
        assert read <= set(stage.policy), (stage.name, read - set(stage.policy))
