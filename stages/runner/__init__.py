"""The night runner: the stage contract, the runner, the one door to disk and the run
report.
"""
