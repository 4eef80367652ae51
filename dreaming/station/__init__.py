"""STATION.md and NOTES.md: the ticket's heat and the notes index as text (`card`,
`notes`), settled on disk and in git (`settle`).
"""
