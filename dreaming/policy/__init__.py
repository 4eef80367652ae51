"""The Meta policy pages: which are in force (`pages`), whether one is usable (`checks`),
the infobox kinds and fields a schema page declares (`schemas`), the categories
(`categories`) and when a section has outgrown its article (`summary`).
"""
