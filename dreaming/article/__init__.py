"""The article grammar: pure functions over Markdown text, standard library only."""
