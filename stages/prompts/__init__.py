"""The prompts of the model stages: one module a stage, schematic text only, each with
its version."""
