"""`dreaming import`: a person's history (Claude Code, Codex and pi sessions, a ChatGPT
export, a folder) copied into Raw/ once, resumable, with a cursor in the ledger.

`sources` says what a SOURCE argument names and finds its files; `chatgpt_export` splits
an export into one file per conversation, streamed; `copier` copies, atomically and a
batch at a time, and keeps the cursor. INGEST is the caller's (`on_batch`): this package
sits below the stages.
"""

from __future__ import annotations

from dreaming.importing.copier import ImportReport, SourceReport, Watch, run_import, survey
from dreaming.importing.item import Item
from dreaming.importing.sources import NAMED_KINDS, Plan, Source, parse_source, plan

__all__ = [
    "NAMED_KINDS",
    "ImportReport",
    "Item",
    "Plan",
    "Source",
    "SourceReport",
    "Watch",
    "parse_source",
    "plan",
    "run_import",
    "survey",
]
