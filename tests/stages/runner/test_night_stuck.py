"""Articles a person edited into shapes the gate refuses: over nights with the real
stages, the night edits the rest of such an article, or, where no edit can pass the gate
on it, says once what to fix and asks the model nothing about it until the person does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from dreaming.article import parse
from dreaming.config import Settings
from dreaming.vault import Vault
from stages.runner.pipeline import run_night
from stages.runner.report import NightReport
from tests.rule_model import RuleModel
from tests.support import drop, raw_note
from watcher.app import App

FIRST = raw_note(
    ("user", "How do I keep Sourdough Bread fresh for a week?"),
    ("assistant", "Wrap Sourdough Bread in a cotton cloth, or slice it and freeze it."),
)
NEWS = (
    raw_note(
        ("user", "Can I bake Sourdough Bread in a cast iron pot?"),
        ("assistant", "Bake Sourdough Bread in a preheated cast iron pot with the lid on."),
        title="Baking",
        date="2026-01-05",
    ),
    raw_note(
        ("user", "How long should Sourdough Bread cool after baking?"),
        ("assistant", "Let Sourdough Bread cool on a rack for an hour before slicing it."),
        title="Cooling",
        date="2026-01-09",
    ),
)
SAID = ("preheated cast iron pot", "cool on a rack for an hour")
"""What each of NEWS adds to the article once woven in."""
GROWN = "It keeps well. " * 60
STUCK = "dreaming cannot edit it"


def night(vault: Vault) -> NightReport:
    with App(vault, replace(Settings(vault=vault.root), model="rule")) as app:
        return run_night(app)


def article(vault: Vault) -> Path:
    return vault.root / "articles" / "Sourdough_Bread.md"


def person_edits(vault: Vault, edit: Callable[[str], str]) -> None:
    path = article(vault)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")


def synthesize_calls(report: NightReport) -> int:
    usage = report.usage.get("synthesize")
    return usage["calls"] if usage else 0


def logs(vault: Vault) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted((vault.root / "Log").glob("2*")))


def nights_after(vault: Vault, edit: Callable[[str], str]) -> list[NightReport]:
    """The article made, edited by the person, then a night for each of NEWS."""
    drop(vault, "first.md", FIRST)
    night(vault)
    person_edits(vault, edit)
    reports = []
    for i, talk in enumerate(NEWS):
        drop(vault, f"news-{i}.md", talk)
        reports.append(night(vault))
    return reports


# ---------------------------------------------------------------- left as written, edited


def stub_in_prose(text: str) -> str:
    grown = text.replace("{{stub}}\n\n", "").replace("freeze it.[^1]", f"freeze it.[^1] {GROWN}")
    return grown.replace(
        "## References", "## Storage\n\nA {{stub}} word in prose.\n\n## References"
    )


def frontmatter_without_title(text: str) -> str:
    return "---\ntags: [bread]\n---\n" + text.replace("# Sourdough Bread\n\n", "")


def comment_marks_around_the_last_headings(text: str) -> str:
    tails = "-->\n\n## See also\n\n<!--\n\n- [[Rye]]\n\n## Notes\n\nA note.\n\n## References"
    return text.replace("## References", tails)


@pytest.mark.parametrize(
    "edit", [stub_in_prose, frontmatter_without_title, comment_marks_around_the_last_headings]
)
def test_each_later_night_edits_an_article_normalize_cannot_make_canonical(
    vault: Vault, model: RuleModel, edit: Callable[[str], str]
) -> None:
    reports = nights_after(vault, edit)
    text = article(vault).read_text(encoding="utf-8")
    assert all(said in text for said in SAID)
    assert [r.noops for r in reports] == [[], []]
    assert [r.failures for r in reports] == [0, 0]
    assert STUCK not in logs(vault)


def test_text_normalize_leaves_as_written_is_kept_by_the_edits(
    vault: Vault, model: RuleModel
) -> None:
    nights_after(vault, comment_marks_around_the_last_headings)
    text = article(vault).read_text(encoding="utf-8")
    assert "{{stub}}\n\n-->\n\n## " in text
    assert "## See also\n\n<!--\n\n- [[Rye]]\n\n## Notes" in text
    assert [s.heading for s in parse(text).sections][-3:] == ["See also", "Notes", "References"]


# ---------------------------------------------------------------- no edit can pass


def marker_never_defined(text: str) -> str:
    return text.replace("freeze it.[^1]", "freeze it.[^1] Or bake it again.[^9]")


def marker_defined_twice(text: str) -> str:
    return text.replace("## References\n\n", "## References\n\n[^1]: my own note\n")


def definitions_without_references(text: str) -> str:
    return text.replace("## References\n\n", "")


def title_under_a_stub_line(text: str) -> str:
    # In a grown article NORMALIZE would drop the stub and add a title, which would turn
    # the info block into the infobox: it leaves the article without one.
    grown = text.replace("freeze it.[^1]", f"freeze it.[^1] {GROWN}").replace("{{stub}}\n\n", "")
    return grown.replace("# Sourdough Bread\n\n", "{{stub}}\n\n")


DEFECTS = [
    marker_never_defined,
    marker_defined_twice,
    definitions_without_references,
    title_under_a_stub_line,
]


@pytest.mark.parametrize("edit", DEFECTS)
def test_an_article_no_edit_can_pass_is_reported_once_and_costs_no_model_call(
    vault: Vault, model: RuleModel, edit: Callable[[str], str]
) -> None:
    reports = nights_after(vault, edit)
    assert [synthesize_calls(r) for r in reports] == [0, 0]
    assert [r.noops for r in reports] == [[], []]
    assert [r.failures for r in reports] == [0, 0]
    assert logs(vault).count(STUCK) == 1
    assert "Sourdough\\_Bread.md" in logs(vault).split("Needs your attention")[1]


def test_the_report_says_what_to_fix(vault: Vault, model: RuleModel) -> None:
    nights_after(vault, marker_never_defined)
    said = next(line for line in logs(vault).splitlines() if STUCK in line)
    assert "\\[^9\\] is cited but never defined" in said
    assert "under '\\#\\# References'" in said


def test_a_stuck_article_is_never_given_up_and_is_edited_once_the_person_fixes_it(
    vault: Vault, model: RuleModel
) -> None:
    nights_after(vault, marker_never_defined)
    for _ in range(3):
        assert synthesize_calls(night(vault)) == 0
    person_edits(vault, lambda text: text.replace(" Or bake it again.[^9]", ""))
    fixed = night(vault)
    assert synthesize_calls(fixed) > 0
    text = article(vault).read_text(encoding="utf-8")
    assert all(said in text for said in SAID)
    assert logs(vault).count(STUCK) == 1


def test_an_article_stuck_again_after_the_person_s_edit_is_reported_again(
    vault: Vault, model: RuleModel
) -> None:
    nights_after(vault, marker_never_defined)
    person_edits(vault, lambda text: text.replace("[^9]", "[^8]"))
    night(vault)
    assert logs(vault).count(STUCK) == 2
    assert "\\[^8\\] is cited but never defined" in logs(vault)


def test_link_leaves_a_stuck_article_without_a_refusal_or_a_unit_given_up(
    vault: Vault, model: RuleModel
) -> None:
    nights_after(vault, marker_never_defined)
    cloth = vault.root / "articles" / "Cotton_Cloth.md"
    cloth.write_text("# Cotton Cloth\n\nA woven cloth that keeps bread.\n", encoding="utf-8")
    reports = [night(vault) for _ in range(4)]
    assert [r.noops for r in reports] == [[]] * 4
    assert [r.failures for r in reports] == [0] * 4
    assert all(s.given_up == [] for r in reports for s in r.stages)
    assert "[[Cotton_Cloth" not in article(vault).read_text(encoding="utf-8")
