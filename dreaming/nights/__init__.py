"""Nights that fit the machine: the night's window in local time, and what the backlog
will take at the pace recent nights measured (both pure)."""
