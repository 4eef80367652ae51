"""One constrained yes/no question: the way BUCKET and RESOLVE let the model judge."""

from __future__ import annotations

from dreaming.model import Choice, ModelCallError, TextModel
from stages.runner.contract import StageName

YES_NO = Choice(("yes", "no"))


def says_yes(model: TextModel, stage: StageName, system: str, user: str, unit: str) -> bool:
    """Whether the model answers yes. The answer is held to the choice here too, so a
    backend that let another shape through fails the unit instead of the run."""
    answer = model.complete(stage, system, user, unit=unit, constraint=YES_NO).text
    try:
        return YES_NO.accept(answer) == "yes"
    except ValueError as e:
        raise ModelCallError(f"answer breaks its yes/no constraint: {e}") from None
