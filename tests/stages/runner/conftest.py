"""The nights of these tests run on the rule model: every stage answered at once, by
rules (tests/rule_model.py), so a test is about the pipeline, not a model."""

from __future__ import annotations

import pytest

from tests.rule_model import RuleModel
from tests.support import every_load_gives


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> RuleModel:
    return every_load_gives(monkeypatch, RuleModel())
