"""The nights of these tests run on the rule model: every stage answered at once, by
rules (tests/rule_model.py), so a test is about the pipeline, not a model."""

from __future__ import annotations

import pytest

import dreaming.model
from dreaming.model import TextModel
from tests.rule_model import RuleModel


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> RuleModel:
    rule = RuleModel()

    def load(spec: str) -> TextModel:
        return rule

    monkeypatch.setattr(dreaming.model, "load", load)
    return rule
