"""Read-only reports over a vault: `audit`, `status` and the evals (wiki, retrieval, gold,
propose).
"""
