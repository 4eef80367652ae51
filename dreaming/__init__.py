"""dreaming: your AI conversations, turned into a personal wiki in your vault."""

__version__ = "0.1.0"
