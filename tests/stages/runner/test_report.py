"""The run report, rendered from a NightReport: a pure function, tested without a run."""

from __future__ import annotations

from dreaming.ledger.gate_rejections import GateRejection
from dreaming.ledger.model_calls import StageUsage
from stages.jobs.ingest import IngestReport
from stages.runner.contract import UnitResult
from stages.runner.report import NightReport, StageReport, WrittenArticle, render, report_path

STARTED = "2026-03-04T02:05:06+00:00"


def a_night() -> NightReport:
    stage = StageReport("segment", skipped=4)
    stage.count("conversation one", UnitResult("done"))
    stage.count("conversation two", UnitResult("failed", "the model answered no line"))
    report = NightReport("r1", STARTED, "gguf:a-model", status="ok", wall_seconds=12.34)
    report.ingest = IngestReport(files=3, ingested=1, unchanged=2, conversations_new=1)
    report.stages = [stage]
    report.articles = [WrittenArticle("New_Thing", True), WrittenArticle("Old_Thing", False)]
    report.noops = [GateRejection("r1", "synthesize", "b1", "Old_Thing", "E_CITE", "cite", "t")]
    report.captured = ["A passing name"]
    report.usage = {
        "segment": StageUsage(
            calls=2, prompt_tokens=100, cached_tokens=0, generated_tokens=20, seconds=1.5, errors=0
        )
    }
    return report


def test_the_day_s_page_is_named_by_the_run_s_utc_date() -> None:
    assert report_path(STARTED) == "Log/2026-03-04.md"


def test_a_report_names_articles_by_their_path_noops_with_codes_and_failures_with_reasons() -> None:
    text = render(a_night(), None)
    assert text.startswith("# Dreaming 2026-03-04\n\n## Run r1 at 02:05:06 UTC\n")
    assert "Model: gguf:a-model. Wall time: 12.3 s. Model calls: 2." in text
    # A path: `[[New_Thing]]` from Log/ would open `Talk/New_Thing.md`, Obsidian's
    # shortest path of that name, once the article has a Talk page.
    created = "- [[articles/New_Thing|New Thing]] (written by gguf:a-model)\n"
    assert f"### Articles created\n\n{created}" in text
    updated = "- [[articles/Old_Thing|Old Thing]] (written by gguf:a-model)\n"
    assert f"### Articles updated\n\n{updated}" in text
    assert "- [[articles/Old_Thing|Old Thing]]: `E_CITE` cite (synthesize)" in text
    assert "### Captured subjects\n\n- A passing name\n" in text
    assert "- segment conversation two: the model answered no line" in text
    assert "| segment | 1 | 1 | 0 | 4 | 0 | 2 | 100 | 20 | 1.5 |" in text
    assert "3 Raw files: 1 read, 2 unchanged" in text


def test_an_article_written_by_several_stages_is_listed_once() -> None:
    report = a_night()
    report.articles += [
        WrittenArticle("Old_Thing", False),
        WrittenArticle("New_Thing", False),  # created, then linked: created
    ]
    text = render(report, None)
    assert text.count("[[articles/Old_Thing|Old Thing]] (written by") == 1
    assert text.count("[[articles/New_Thing|New Thing]] (written by") == 1
    assert "### Articles created\n\n- [[articles/New_Thing|" in text
    assert (report.summary()["articles_created"], report.summary()["articles_updated"]) == (1, 1)


def test_a_report_links_the_talk_pages_given_a_proposal() -> None:
    report = a_night()
    report.talk = ["Claude_Code"]
    text = render(report, None)
    assert (
        "### Proposed on Talk pages (yours to act on)\n\n- [[Talk/Claude_Code|Talk: Claude Code]]\n"
        in text
    )


def test_a_later_run_adds_its_section_below_the_page_as_it_stands() -> None:
    first = render(a_night(), None)
    later = a_night()
    later.run_id = "r2"
    text = render(later, first + "\nA note a person added.\n")
    assert text.count("# Dreaming ") == 1
    assert text.index("## Run r1") < text.index("A note a person added.") < text.index("## Run r2")


def test_names_and_reasons_from_transcripts_cannot_make_links_tables_or_headings() -> None:
    report = a_night()
    report.captured = ["[[Elsewhere]] | cell\n# Heading"]
    report.stages[0].failures = [("unit", "bad <b>html</b> and `code`")]
    text = render(report, None)
    assert "- \\[\\[Elsewhere\\]\\] \\| cell \\# Heading\n" in text
    assert "bad \\<b\\>html\\</b\\> and \\`code\\`" in text
    assert "[[Elsewhere" not in text


def test_a_spent_budget_says_how_many_units_wait_for_the_next_run() -> None:
    report = a_night()
    report.stages[0].left = 7
    report.stages[0].budget_spent = "model budget spent: 2 of 2 calls this run"
    assert "Budget spent, 7 units left for the next run: model budget spent" in render(report, None)


def test_a_backlog_left_after_the_run_is_said_and_kept_in_the_summary() -> None:
    report = a_night()
    assert "Backlog" not in render(report, None)
    report.backlog = 480
    assert "Backlog: 480 conversations not yet synthesized." in render(report, None)
    report.backlog_said = "480 conversations not yet synthesized (9,600 messages), newest first."
    assert (
        "Backlog: 480 conversations not yet synthesized (9,600 messages), newest first.\n"
        in render(report, None)
    )
    assert report.summary()["backlog"] == 480


def test_a_night_stopped_at_its_end_says_when_and_what_it_left() -> None:
    report = a_night()
    report.night_end = "2026-03-04T07:00:00"
    report.stages[0].left = 3
    report.ended_at_end = True
    assert "Stopped at the night's end (07:00): 3 units left; the next night resumes there." in (
        render(report, None)
    )
    assert report.summary()["stopped_at_end"] is True
    assert report.summary()["night_end"] == "2026-03-04T07:00:00"


def test_a_night_begun_after_its_end_says_why_nothing_ran_and_what_to_do() -> None:
    report = a_night()
    report.night_end = "2026-03-04T07:00:00"
    report.started_late = True
    text = render(report, None)
    assert "This night started after its end (07:00)" in text
    assert "set schedule to an hour the machine is on" in text


def test_an_edit_refused_for_two_reasons_is_one_noop() -> None:
    report = a_night()
    report.noops.append(GateRejection("r1", "synthesize", "b1", "Old_Thing", "E_LINK", "x", "t"))
    report.conflicts = [("Other", "changed on disk")]
    assert report.summary()["noops"] == 2


def test_what_needs_the_person_stands_first_in_the_run_s_section_as_a_callout() -> None:
    report = a_night()
    report.notices = ["Meta/Chunking.md: is empty; undo the edit", "a [[link]] | cell"]
    text = render(report, None)
    section = text.split("## Run r1 at 02:05:06 UTC\n\n", 1)[1]
    assert section.startswith(
        "> [!warning] Needs your attention\n"
        "> - Meta/Chunking.md: is empty; undo the edit\n"
        "> - a \\[\\[link\\]\\] \\| cell\n\nStatus: ok."
    )


def test_a_run_with_nothing_to_fix_has_no_callout() -> None:
    assert "[!warning]" not in render(a_night(), None)


def test_a_subject_with_no_article_yet_is_listed_with_why() -> None:
    report = a_night()
    stage = StageReport("synthesize")
    held = "every drafted sentence was about the assistant, not the subject"
    stage.count("create Beads", UnitResult("done", "no article yet", held=held))
    report.stages.append(stage)
    text = render(report, None)
    assert "### No article yet" in text
    assert f"- create Beads: {held}\n" in text
    assert stage.done == 1
