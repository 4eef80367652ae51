"""The ledger: SQLite, the only place SQL is written.

`connection` opens a vault's ledger and runs the ordered `migrations`; every
other module holds the queries of one concern and returns frozen dataclasses.
"""

from dreaming.ledger.connection import Ledger
from dreaming.ledger.migrations import MIGRATIONS

__all__ = ["MIGRATIONS", "Ledger"]
