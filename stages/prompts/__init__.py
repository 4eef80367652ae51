"""The prompts of the model stages: one module a stage, each with its version."""
