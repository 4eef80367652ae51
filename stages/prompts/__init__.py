"""The prompts of the model stages: one module a stage, schematic text only, each with
its version."""


def page_body(page: str) -> str:
    """A Meta page without its front matter (the model needs the rules, not the keys)."""
    if page.startswith("---\n"):
        end = page.find("\n---", 4)
        if end != -1:
            return page[end + 4 :].strip()
    return page.strip()
