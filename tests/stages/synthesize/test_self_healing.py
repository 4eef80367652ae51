"""The self-healing pair, through SYNTHESIZE and the write door: a later conversation
contradicts an earlier one. A position the person changed keeps the earlier sentence,
scoped to when it held, before the newer one; an earlier mistake is corrected silently.

The model answers by rule (`Editor` of tests/stages/synthesize/test_update.py): it
routes the delta to one section, says the delta disagrees with it, and calls the change
a changed position or a mistake.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dreaming.article import build, parse
from dreaming.article.markup import Footnote
from dreaming.ledger import Ledger, woven
from dreaming.vault import Vault
from stages.runner.pipeline import run_stage
from stages.synthesize.stage import SynthesizeStage
from tests.stages.synthesize.test_update import Editor
from tests.synth_support import Talk, article_subject, context, seed, story

FLOUR = Talk(
    "aaaaaaaa",
    "feeding the starter with white flour",
    (
        ("user", "I feed my starter white flour."),
        ("assistant", "White flour works; it is slower."),
    ),
    "2026-01-05T09:00:00+00:00",
)
SWITCH = Talk(
    "bbbbbbbb",
    "switching the starter to whole rye flour",
    (
        ("user", "I switched my starter to whole rye flour; it is livelier."),
        ("assistant", "Rye carries more wild yeast, so that fits."),
    ),
    "2026-02-07T09:00:00+00:00",
)
FEEDING = "The person feeds the starter white flour.[^1]"


def earlier_article(vault: Vault, ledger: Ledger) -> tuple[Path, str]:
    """The article the first conversation made, woven and on disk."""
    first = seed(ledger, FLOUR)
    text = build(
        "Sourdough Starter",
        lead="A sourdough starter is a culture of flour and water.[^1]",
        sections=[("Feeding", FEEDING)],
        infobox={"kind": "thing"},
        footnotes=[Footnote(1, FLOUR.hash8, "2026-01-05", "claude", FLOUR.label)],
    )
    path = vault.articles / "Sourdough_Starter.md"
    path.write_text(text, encoding="utf-8")
    with ledger.transaction():
        woven.record(ledger, "Sourdough_Starter", [first], "earlier", "2026-01-05T10:00:00+00:00")
    return path, first


def later_delta(ledger: Ledger) -> str:
    later = seed(ledger, SWITCH)
    story(ledger, "changing the starter's flour", [later])
    article_subject(ledger, "sourdough starter", "Sourdough_Starter", [later])
    return later


def night(vault: Vault, ledger: Ledger, editor: Editor) -> None:
    report = run_stage(SynthesizeStage(), context(vault, ledger, editor))
    assert (report.done, report.failed, report.rejected) == (1, 0, 0), report.failures


def test_a_changed_position_dates_the_earlier_sentence_and_adds_the_newer(
    vault: Vault, ledger: Ledger
) -> None:
    path, _ = earlier_article(vault, ledger)
    later_delta(ledger)
    editor = Editor(
        route={"Feeding"},
        drafts={"Feeding": "The person feeds the starter whole rye flour now."},
        conflict="yes",
        kind="changed",
    )
    night(vault, ledger, editor)
    feeding = parse(path.read_text(encoding="utf-8")).section("Feeding")
    assert feeding is not None
    assert feeding.body == (
        "As of January 2026, the person feeds the starter white flour.[^1]\n\n"
        "The person feeds the starter whole rye flour now.[^2]"
    )
    text = path.read_text(encoding="utf-8")
    assert "`conv:aaaaaaaa`" in text
    assert "`conv:bbbbbbbb`" in text


def test_an_earlier_mistake_is_corrected_silently_with_no_history_line(
    vault: Vault, ledger: Ledger
) -> None:
    path, _ = earlier_article(vault, ledger)
    later_delta(ledger)
    editor = Editor(
        route={"Feeding"},
        corrections={"Feeding": "The person feeds the starter whole rye flour.[2]"},
        conflict="yes",
        kind="mistake",
    )
    night(vault, ledger, editor)
    article = parse(path.read_text(encoding="utf-8"))
    feeding = article.section("Feeding")
    assert feeding is not None
    assert "whole rye flour" in feeding.body
    assert "white flour" not in feeding.body
    assert article.section("History") is None


@pytest.mark.parametrize("kind", ["changed", "mistake"])
def test_an_older_position_arriving_after_a_newer_one_is_dated_and_the_newer_stands(
    vault: Vault, ledger: Ledger, kind: str
) -> None:
    """A history taken newest first: the article was made from February's conversation,
    and January's arrives after it. January's position is the one that no longer holds:
    it is dated and goes before the section's text, which stays as it was; an older
    conversation never corrects a newer one as a mistake."""
    first = seed(ledger, SWITCH)
    text = build(
        "Sourdough Starter",
        lead="A sourdough starter is a culture of flour and water.[^1]",
        sections=[("Feeding", "The person feeds the starter whole rye flour.[^1]")],
        infobox={"kind": "thing"},
        footnotes=[Footnote(1, SWITCH.hash8, "2026-02-07", "claude", SWITCH.label)],
    )
    path = vault.articles / "Sourdough_Starter.md"
    path.write_text(text, encoding="utf-8")
    with ledger.transaction():
        woven.record(ledger, "Sourdough_Starter", [first], "earlier", "2026-02-07T10:00:00+00:00")
    older = seed(ledger, FLOUR)
    story(ledger, "feeding the starter", [older])
    article_subject(ledger, "sourdough starter", "Sourdough_Starter", [older])
    editor = Editor(
        route={"Feeding"},
        drafts={"Feeding": "The person feeds the starter white flour."},
        corrections={"Feeding": "The person feeds the starter white flour.[2]"},
        conflict="yes",
        kind=kind,
    )
    night(vault, ledger, editor)
    feeding = parse(path.read_text(encoding="utf-8")).section("Feeding")
    assert feeding is not None
    assert feeding.body == (
        "As of January 2026, the person feeds the starter white flour.[^2]\n\n"
        "The person feeds the starter whole rye flour.[^1]"
    )


def test_a_delta_with_nothing_new_for_the_article_is_done_not_failed_and_not_asked_again(
    vault: Vault, ledger: Ledger
) -> None:
    path, _ = earlier_article(vault, ledger)
    later = later_delta(ledger)
    before = path.read_bytes()
    editor = Editor(substantive="no")  # no section takes it, and it says nothing new
    night(vault, ledger, editor)
    assert path.read_bytes() == before
    assert woven.into(ledger, [later]) == {(later, "Sourdough_Starter")}
    asked = len(editor.asked)
    again = run_stage(SynthesizeStage(), context(vault, ledger, editor))
    assert (again.done, again.failed, len(editor.asked)) == (0, 0, asked)
