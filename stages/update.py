"""UPDATE: an existing article revised with a bucket's delta (placeholder seam).

The SYNTHESIZE stage calls `revise` for an article that exists; the real
revision (a yes/no per section, one replacement section per section the delta
touches) replaces this module. Until then no existing article is revised: the
unit fails and is retried next run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreaming.model import TextModel
from stages.sources import Source


@dataclass(frozen=True)
class Revision:
    text: str
    """The whole article as revised."""
    touched: tuple[str, ...]
    """The section headings the revision rewrote (LEAD for the lead)."""
    allow_dropped: tuple[str, ...] = ()
    """Conversation hashes the revision stops citing on purpose (corrected errors)."""


def revise(
    model: TextModel, text: str, title: str, sources: Sequence[Source], *, unit: str
) -> Revision | None:
    """The article `text` revised with `sources`, or None when nothing usable came back."""
    return None
