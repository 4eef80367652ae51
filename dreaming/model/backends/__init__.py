"""Where a model runs: one module per spec kind, each a `TextModel` (see `..base`).

Backends know nothing of the install store: the loader hands them a way to find their
weights (`..base.Locate`), and the store words what to do when they are missing.
`blas` prepares mlx's matrix maths and is the only way dreaming imports mlx.
"""
