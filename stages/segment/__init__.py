"""SEGMENT: the stage (`stage`) and its pure half (`plan`)."""
