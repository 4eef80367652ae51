"""Capture hooks: a host (Claude Code, Codex, pi) hands each session it ends or compacts to
`hook.py`, which copies it into the vault's Raw/ tree; the other modules install that
command into each host's settings and take it out again (`dreaming hook`, docs/capture.md).
"""
