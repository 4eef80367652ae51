"""SYNTHESIZE: the stage, CREATE and UPDATE, and their pure halves."""
