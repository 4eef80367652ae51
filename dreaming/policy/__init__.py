"""The Meta policy pages: which are in force (`pages`), whether one is usable (`checks`),
the infobox kinds a schema page declares (`schemas`).
"""
