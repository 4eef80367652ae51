"""The ledger: SQLite, the only place SQL is written.

`connection` opens a vault's ledger and runs the ordered `migrations`; each
other module holds the queries of one concern and returns frozen dataclasses.
"""

from dreaming.ledger.connection import DERIVED_TABLES, MIGRATIONS, Ledger, messages_sha

__all__ = ["DERIVED_TABLES", "MIGRATIONS", "Ledger", "messages_sha"]
