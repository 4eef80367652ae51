"""EDITORIAL's tighten prompts: two yes/no questions a near-repeat, over two sentences.

Code has found a body sentence that shares most of its words with an earlier one of
the article; the model says whether it adds anything, then whether the earlier one
already says all of it. The two ask the same thing with opposite answers, so a model
that answers one word whatever it is asked (measured: the default model says "yes"
to both, qwen2.5-coder-0.5b "no" to both) never drops a sentence. The system prompt is the
person's `Meta/Editorial_Guidelines.md` (its bullets: what an edit may never drop),
then the question's rule, so the page they edit is the rule a tighten follows.
"""

from __future__ import annotations

from dreaming.article.layout import split_frontmatter

VERSION = "tighten-2"

ASK = (
    "You edit an encyclopedia article and remove repetition. A sentence adds something "
    "when it states any fact, name, number, date, condition, reason or detail that the "
    "earlier sentence does not. Answer with one word: yes or no."
)


def system(guidelines: str) -> str:
    """The guidelines page as a system prompt: its text without frontmatter and H1."""
    lines = [
        line
        for line in split_frontmatter(guidelines)[1].splitlines()
        if line.strip() and not line.startswith("# ")
    ]
    return "\n".join([*lines, "", ASK])


def adds(title: str, earlier: str, sentence: str) -> str:
    return _asked(
        title,
        earlier,
        sentence,
        "Does the later sentence add anything the earlier sentence does not say?",
    )


def covers(title: str, earlier: str, sentence: str) -> str:
    return _asked(
        title,
        earlier,
        sentence,
        "Does the earlier sentence already say everything the later sentence says?",
    )


def _asked(title: str, earlier: str, sentence: str, question: str) -> str:
    return (
        f"Article: {title}\n\n"
        f"Earlier sentence: {earlier}\n"
        f"Later sentence: {sentence}\n\n"
        f"Question: {question} Answer yes or no."
    )
