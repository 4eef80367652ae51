"""Work on Raw/ that is not a night stage of its own: INGEST (also the night's first step)
and RECLAIM.
"""
