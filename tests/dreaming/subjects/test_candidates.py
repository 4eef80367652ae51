"""The candidate proposer: what code offers the model to judge, from a chunk's text."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dreaming.subjects.candidates import MAX_CANDIDATES, propose
from dreaming.subjects.names import AliasIndex
from tests.support import best_seconds

NO_INDEX = AliasIndex()


def keys(text: str, index: AliasIndex = NO_INDEX, limit: int = 50, title: str = "") -> list[str]:
    return [c.key for c in propose(text, index, limit, title=title)]


def test_backticked_identifiers_are_candidates() -> None:
    found = keys("Call `frobnicate_widget()` and then `widgetlib.render`.")
    assert "frobnicate widget" in found
    assert "widgetlib render" in found


def test_flags_variables_and_expressions_in_backticks_are_not() -> None:
    assert keys("Pass `--verbose`, set `$HOME_DIR`, write `x = y + 1`.") == []


def test_installed_packages_are_candidates_without_versions_or_flags() -> None:
    found = keys("Run:\npip install -U widgetlib==2.1 gadgetkit[extra]\nnpm i @scope/thinger")
    assert {"widgetlib", "gadgetkit", "scope thinger"} <= set(found)
    assert not any(k.startswith("u") and len(k) == 1 for k in found)


def test_imported_modules_are_candidates_by_their_top_package() -> None:
    found = keys("import widgetlib.core as w\nfrom gadgetkit.sub import part\n")
    assert {"widgetlib", "gadgetkit"} <= set(found)


def test_capitalised_phrases_are_candidates() -> None:
    assert "thing alpha server" in keys("We tried the Thing Alpha Server yesterday.")


def test_a_capitalised_word_mid_sentence_is_a_candidate_a_sentence_start_is_not() -> None:
    found = keys("Mostly we used Gizmo for this.")
    assert "gizmo" in found
    assert "mostly" not in found


def test_mixed_case_words_are_candidates_even_at_a_sentence_start() -> None:
    assert "gizmoDB".casefold() in keys("GizmoDB stores it.")


def test_stop_words_and_generic_nouns_are_not_candidates() -> None:
    text = "The Platform. This Function is The Problem. `data` and `file`. Monday."
    assert keys(text) == []


def test_file_names_named_often_and_web_hosts_are_candidates() -> None:
    found = keys(
        "Edit settings.toml and see https://www.example.org/docs for more. "
        "Then settings.toml again, and settings.toml once more."
    )
    assert "settings toml" in found
    assert "example org" in found


def test_a_file_named_in_passing_is_not_a_candidate() -> None:
    assert "settings toml" not in keys("I edited settings.toml and it worked.")


def test_two_names_joined_by_and_are_two_candidates_not_one() -> None:
    found = keys("We compared Thing Alpha and Gizmo Beta all week.")
    assert {"thing alpha", "gizmo beta"} <= set(found)
    assert "thing alpha and gizmo beta" not in found


ASSISTANT_ONCE = "Here are the Key Findings about Gizmo and Gizmo and Gizmo."


def proposed_with(person: str) -> list[str]:
    return [c.key for c in propose(ASSISTANT_ONCE, NO_INDEX, 50, person=person)]


def test_a_name_the_assistant_wrote_in_passing_and_the_person_never_did_is_no_candidate() -> None:
    assert "key findings" not in proposed_with(person="Tell me about this.")


def test_a_name_the_person_wrote_is_a_candidate_however_rarely_it_occurs() -> None:
    assert "key findings" in proposed_with(person="What are the key findings?")


def test_a_name_the_assistant_keeps_returning_to_is_a_candidate() -> None:
    assert "gizmo" in proposed_with(person="Tell me about this.")


def test_the_agents_own_tools_named_in_prose_are_not_candidates() -> None:
    assert keys("I will use TodoWrite, then ExitPlanMode, then SendMessage to the Agent.") == []


def test_commit_hashes_are_not_candidates() -> None:
    assert keys("Merged in `ad2d134` and then `9f3c2b1e`.") == []


def test_a_recurring_phrase_with_an_adjective_is_not_a_candidate() -> None:
    text = "We need proper styling. Add proper styling. Keep proper styling."
    assert "proper styling" not in keys(text)


def test_known_names_are_found_in_any_spelling_and_ranked_first() -> None:
    index = AliasIndex.build([("tapp", "Thing Alpha")])
    found = propose("we like the tapp, Gizmo and Gadget Works do too", index)
    assert found[0].key == "thing alpha"
    assert found[0].display == "Thing Alpha"
    assert found[0].surface == "tapp"


def test_spellings_of_one_subject_are_one_candidate_counted_together() -> None:
    found = propose("Use `gizmo`. Then Gizmo again, and gizmo's docs.", NO_INDEX)
    gizmo = [c for c in found if c.key == "gizmo"]
    assert len(gizmo) == 1
    assert gizmo[0].count == 2


def test_frequent_candidates_rank_above_rare_ones() -> None:
    text = "We used Gadget once. " + "Then Gizmo. " * 5
    assert keys(text)[0] == "gizmo"


def test_candidates_are_capped() -> None:
    text = " ".join(f"use `widget_{i}`" for i in range(40))
    assert len(propose(text, NO_INDEX)) == MAX_CANDIDATES


@pytest.mark.parametrize(
    "text",
    [
        "Het is een goed plan. De Vraag blijft.",
        "Die Frage ist gut. Der Plan steht.",
        "Les options sont claires. Une Idée suffit.",
        "Los pasos son claros. Una Opción basta.",
        "Это хороший план. Для Работы.",
    ],
)
def test_sentence_initial_function_words_of_five_languages_are_not_candidates(text: str) -> None:
    assert not {"het", "de vraag", "die", "der", "les", "une", "los", "una", "это", "для"} & set(
        keys(text)
    )


def test_diagram_keywords_in_a_fenced_block_are_not_candidates() -> None:
    text = "Here is the chart:\n```mermaid\ngraph TD\n  Start --> End\n  A[Load] --> B\n```\n"
    assert keys(text) == []


def test_syntax_keywords_written_in_prose_are_not_candidates() -> None:
    assert keys("Then we wrote SELECT and GROUP, then End, with TD.") == []


def test_generic_nouns_in_capitals_are_not_candidates() -> None:
    assert keys("Now the Explanation. Then Science, Order and Generate a URL.") == []


def test_the_agents_tool_call_lines_name_no_candidate() -> None:
    text = "Let me look.\n[tool: TodoWrite — 5 items]\n[tool: MultiEdit — a.txt]\nDone."
    assert keys(text) == []


def test_a_lower_case_phrase_the_text_keeps_returning_to_is_a_candidate() -> None:
    text = (
        "I want token usage per project. Sum the token usage of each session, "
        "then show the token usage on the index."
    )
    assert "token usage" in keys(text)


def test_a_lower_case_phrase_named_twice_is_not() -> None:
    assert "token usage" not in keys("Show token usage. Also token usage totals.")


def test_a_phrase_whose_head_is_a_generic_word_is_a_candidate() -> None:
    text = "The browser tests fail. Run the browser tests. All browser tests pass."
    assert "browser tests" in keys(text)


def test_the_titles_subject_is_a_candidate_when_the_text_names_it() -> None:
    text = "How does plan mode work? In plan mode the agent only reads."
    assert "plan mode" in keys(text, title="Research Claude Code plan mode")


def test_a_title_the_text_never_names_proposes_nothing() -> None:
    assert keys("Hello there, how are you?", title="Quantum chromodynamics") == []


def test_a_title_cut_from_the_first_message_is_not_read_as_a_title() -> None:
    text = "please fix the dashed line. The dashed line is red."
    assert "dashed line" not in keys(text, title="please fix the dashed line. The dash…")


def test_the_project_folder_the_paths_keep_naming_is_a_candidate() -> None:
    text = "\n".join(
        f"[tool: Read — /Users/dain/workspace/claude-code-log/src/{name}.py]"
        for name in ("parser", "renderer", "cli")
    )
    found = propose(text, NO_INDEX)
    project = [c for c in found if c.key == "claude code log"]
    assert project
    assert project[0].kind == "project"


@pytest.mark.parametrize(
    "root", ["/workspace/", "/src/", "~/", "/home/user/project/", "/Users/me/"]
)
def test_a_project_folder_under_any_usual_root_is_a_candidate(root: str) -> None:
    text = "\n".join(
        f"[tool: Read — {root}deep-manifest/deep_manifest/{name}.py]"
        for name in ("parser", "renderer", "cli")
    )
    assert "deep manifest" in keys(text)


def test_system_folders_are_not_projects() -> None:
    text = "\n".join(f"/usr/lib/python3/site-packages/x{i}.py /etc/nginx/a{i}" for i in range(5))
    assert keys(text) == []


def test_a_folder_named_once_is_not_a_project() -> None:
    assert "scratch" not in keys("See /home/me/scratch/notes.txt for it.")


N = 2000
FLOOR_S = 0.05
MAX_RATIO = 64.0
INDEX = AliasIndex.build([(f"alias {i}", f"Title {i}") for i in range(200)])
CASES: dict[str, Callable[[int], str]] = {
    "capitalised run": lambda n: "Aa " * n,
    "capitalised words no spaces": lambda n: "A" * n,
    "backticks unclosed": lambda n: "`a" * n,
    "install line": lambda n: "pip install " + "a " * n,
    "install repeated": lambda n: "pip install " * n,
    "imports": lambda n: "import a.b\n" * n,
    "url host": lambda n: "https://" + "a." * n,
    "file-ish": lambda n: "a-" * n + ".py",
    "apostrophes": lambda n: "A'" * n,
    "known words": lambda n: "alias 1 " * n,
    "sentence ends": lambda n: ". A" * n,
    "lower-case pairs": lambda n: "plan mode " * n,
    "home paths": lambda n: "/Users/me/" + "a/" * n,
    "fences": lambda n: "```\n" * n,
    "tool lines": lambda n: "[tool: X]\n" * n,
}


@pytest.mark.slow  # real timing against input size
@pytest.mark.parametrize("name", list(CASES))
def test_the_proposer_runs_in_linear_time(name: str) -> None:
    make = CASES[name]
    times = [best_seconds(lambda t: propose(t, INDEX), make(n)) for n in (N, 4 * N, 16 * N)]
    assert times[2] < FLOOR_S or times[2] < MAX_RATIO * max(times[0], 1e-4), times
