"""`scripted:<file>` replays recorded answers; `record:<file>|<spec>` makes such files.

A file is JSON lines, one per answer::

    {"stage": "extract", "key": "<sha256(system + NUL + user)[:16]>",
     "system": "...", "user": "...", "text": "...",
     "usage": {"prompt_tokens": 812, "generated_tokens": 40}}   # usage: optional

Replay is exact: the same stage and the same prompt, byte for byte, or a loud
failure naming the stage, so a test cannot silently pass on a changed prompt.
Recording wraps a real model, so tests replay what a real model really said.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from dreaming.errors import ModelError
from dreaming.model.base import (
    Completion,
    HoldsNoWeights,
    TextModel,
    Usage,
    WrappedModel,
    constrained,
    finished_text,
    one_line,
    prompt_key,
)
from dreaming.model.constraint import Constraint


def _preview(user: str) -> str:
    # The user text, not the system: a stage's system is shared by all its calls.
    return " ".join(user.split())[:80]


class ScriptedModel(HoldsNoWeights):
    def __init__(self, spec: str, path: Path) -> None:
        self._spec = spec
        self.path = path
        self.answers: dict[tuple[str, str], dict[str, Any]] = {}
        self._load()

    @property
    def spec(self) -> str:
        return self._spec

    def _load(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise ModelError(
                f"scripted answers file {self.path} does not exist; "
                f"record one with model record:{self.path}|<spec>"
            ) from None
        except (OSError, UnicodeDecodeError) as e:
            raise ModelError(
                f"scripted answers file {self.path} is unreadable: {one_line(e)}"
            ) from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                stage, text = row["stage"], row["text"]
                key = row.get("key") or prompt_key(row.get("system"), row["user"])
                if not (isinstance(stage, str) and isinstance(text, str)):
                    raise TypeError("stage and text must be strings")
            except (ValueError, KeyError, TypeError) as e:
                raise ModelError(
                    f"{self.path}:{number}: not a scripted answer ({one_line(e)}); "
                    "each line needs stage, key or user, and text"
                ) from None
            # A prompt recorded twice: the later answer wins, as in a re-recording.
            self.answers[(stage, str(key))] = row

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        row = self.answers.get((stage, prompt_key(system, user)))
        if row is None:
            raise ModelError(
                f"no scripted answer for stage {stage} in {self.path} for prompt "
                f"{_preview(user)!r}; re-record with model record:{self.path}|<spec>"
            )
        given = row.get("usage")
        recorded: dict[str, Any] = given if isinstance(given, dict) else {}
        usage = Usage(
            prompt_tokens=int(recorded.get("prompt_tokens", 0)),
            generated_tokens=int(recorded.get("generated_tokens", 0)),
        )
        weighed = row.get("confidence")
        confidence = float(weighed) if isinstance(weighed, int | float) else None
        answer = finished_text(stage, row["text"], usage, stopped=True, confidence=confidence)
        return constrained(stage, answer, constraint)


class RecordingModel(WrappedModel):
    """Passes every call to `inner` and appends each successful answer to `path`."""

    def __init__(self, spec: str, inner: TextModel, path: Path) -> None:
        super().__init__(inner)
        self._spec = spec
        self.path = path
        self._lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self._spec

    def complete(
        self,
        stage: str,
        system: str | None,
        user: str,
        *,
        unit: str | None = None,
        constraint: Constraint | None = None,
    ) -> Completion:
        completion = self.inner.complete(stage, system, user, unit=unit, constraint=constraint)
        row: dict[str, object] = {
            "stage": stage,
            "key": prompt_key(system, user),
            "system": system,
            "user": user,
            "text": completion.text,
            "usage": {
                "prompt_tokens": completion.usage.prompt_tokens,
                "generated_tokens": completion.usage.generated_tokens,
            },
            "model": self.inner.spec,
        }
        if completion.confidence is not None:
            row["confidence"] = round(completion.confidence, 4)
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One write per line in append mode: a crash loses at most the last answer.
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line)
        return completion
