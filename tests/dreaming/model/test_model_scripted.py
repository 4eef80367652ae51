"""Replay of recorded answers, and recording a model's answers into such a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreaming.errors import ModelError
from dreaming.model import Completion, ModelCallError, Usage, load, prompt_key
from dreaming.model.backends.scripted import RecordingModel, ScriptedModel
from dreaming.model.base import constrained
from dreaming.model.constraint import Choice, Constraint


class EchoModel:
    """A stand-in real model: answers deterministically from the prompt."""

    spec = "echo"
    load_seconds = None

    def __init__(self) -> None:
        self.calls = 0
        self.constraints: list[Constraint | None] = []
        self.unloaded = False

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
        self.constraints.append(constraint)
        answer = Completion(
            f"{stage}: {user.upper()}", Usage(prompt_tokens=len(user), generated_tokens=3)
        )
        return constrained(stage, answer, constraint)

    def unload(self) -> None:
        self.unloaded = True


def write_lines(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_key_is_sha256_of_system_nul_user() -> None:
    import hashlib

    assert prompt_key("sys", "user") == hashlib.sha256(b"sys\x00user").hexdigest()[:16]
    assert prompt_key(None, "user") == prompt_key("", "user")
    assert prompt_key("a", "b") != prompt_key("a\x00b", "")


def test_replays_by_stage_and_exact_prompt(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_lines(
        path,
        [
            {
                "stage": "extract",
                "key": prompt_key("S", "hello"),
                "system": "S",
                "user": "hello",
                "text": "A",
            },
            {
                "stage": "judge",
                "key": prompt_key("S", "hello"),
                "system": "S",
                "user": "hello",
                "text": "yes",
            },
        ],
    )
    model = load(f"scripted:{path}")
    assert model.complete("extract", "S", "hello").text == "A"
    assert model.complete("judge", "S", "hello").text == "yes"


def test_unknown_prompt_fails_naming_the_stage_and_prompt(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_lines(
        path, [{"stage": "extract", "key": prompt_key(None, "a"), "user": "a", "text": "A"}]
    )
    model = ScriptedModel(f"scripted:{path}", path)
    with pytest.raises(ModelError, match=r"stage extract .*'a changed prompt'"):
        model.complete("extract", None, "a changed prompt")
    with pytest.raises(ModelError, match="stage other"):
        model.complete("other", None, "a")


def test_a_recorded_empty_answer_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_lines(path, [{"stage": "s", "user": "u", "text": "  "}])
    with pytest.raises(ModelError, match="returned nothing for stage s"):
        ScriptedModel("x", path).complete("s", None, "u")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("not json\n", "line 1|:1:"),
        ('{"stage": "s"}\n', ":1:"),
        ('{"stage": 1, "user": "u", "text": "t"}\n', ":1:"),
    ],
)
def test_bad_files_fail_with_the_line(tmp_path: Path, content: str, why: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ModelError, match=why):
        ScriptedModel("x", path)


def test_missing_file_says_how_to_record(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="record:"):
        load(f"scripted:{tmp_path / 'none.jsonl'}")


def test_record_then_replay_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "rec" / "answers.jsonl"
    inner = EchoModel()
    recorder = RecordingModel("record", inner, path)
    prompts = [
        ("extract", "SYS", "first chunk"),
        ("extract", "SYS", "second chunk"),
        ("judge", None, "x?"),
    ]
    live = [recorder.complete(*p).text for p in prompts]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["stage"] for r in rows] == ["extract", "extract", "judge"]
    assert rows[0]["key"] == prompt_key("SYS", "first chunk")
    assert rows[0]["usage"] == {"prompt_tokens": len("first chunk"), "generated_tokens": 3}

    replay = ScriptedModel("replay", path)
    assert [replay.complete(*p).text for p in prompts] == live
    assert replay.complete("extract", "SYS", "first chunk").usage.generated_tokens == 3
    recorder.unload()
    assert inner.unloaded


def test_record_spec_appends_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_lines(path, [{"stage": "old", "user": "kept", "text": "K"}])
    inner_path = tmp_path / "inner.jsonl"
    write_lines(inner_path, [{"stage": "s", "user": "u", "text": "T"}])
    model = RecordingModel("r", ScriptedModel("s", inner_path), path)
    model.complete("s", None, "u")
    replay = ScriptedModel("x", path)
    assert replay.complete("old", None, "kept").text == "K"
    assert replay.complete("s", None, "u").text == "T"


def test_replays_and_recordings_take_the_unit_and_report_no_load_time(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    write_lines(answers, [{"stage": "s", "user": "u", "text": "said"}])
    scripted = load(f"scripted:{answers}")
    assert scripted.complete("s", None, "u", unit="chunk:1").text == "said"
    assert scripted.load_seconds is None
    recorder = RecordingModel("record", scripted, tmp_path / "again.jsonl")
    assert recorder.complete("s", None, "u", unit="chunk:1").text == "said"
    assert recorder.load_seconds is None


def test_a_replayed_answer_that_breaks_the_constraint_fails_the_call(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_lines(
        path,
        [
            {"stage": "judge", "key": prompt_key(None, "q1"), "user": "q1", "text": "yes\n"},
            {"stage": "judge", "key": prompt_key(None, "q2"), "user": "q2", "text": "Maybe."},
        ],
    )
    model = ScriptedModel(f"scripted:{path}", path)
    yes_no = Choice(("yes", "no"))
    assert model.complete("judge", None, "q1", constraint=yes_no).text == "yes"
    assert model.complete("judge", None, "q2").text == "Maybe."  # unconstrained: as recorded
    with pytest.raises(
        ModelCallError, match=r"stage judge breaks its Choice constraint \(not one of yes/no"
    ):
        model.complete("judge", None, "q2", constraint=yes_no)


def test_recording_passes_the_constraint_to_the_model_it_wraps(tmp_path: Path) -> None:
    inner = EchoModel()
    recorder = RecordingModel("record", inner, tmp_path / "a.jsonl")
    with pytest.raises(ModelCallError, match="breaks its Choice constraint"):
        recorder.complete("judge", None, "q", constraint=Choice(("yes", "no")))
    assert inner.constraints == [Choice(("yes", "no"))]
