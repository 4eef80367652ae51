"""LINK's text half: first mentions wrapped as wikilinks, words never changed."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article.linking import Target, link_article, link_first_mentions
from tests.support import best_seconds, draws

CODE = Target("Claude_Code", ("Claude Code CLI",))
CLAUDE = Target("Claude", ())
BEADS = Target("Beads", ("bd",))
TARGETS = (CODE, CLAUDE, BEADS)


PIECES = [
    "Beads", "bd", "Claude", "Claude Code", "code", "Code CLI", "`x`", "`", "```", "\n", " ",
    ".", "##", "[", "]", "(", ")", "|", "{{", "}}", "[^1]", "[^1]:", "<!--", "-->", "_",
    "beads", "CLAUDE", "\t", "~~~", "%%",
]  # fmt: skip


def link(text: str, own: str = "") -> str:
    return link_first_mentions(text, TARGETS, own)


def plain(text: str) -> str:
    """What a linked text says: each wikilink read as the words it shows."""
    return re.sub(
        r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]",
        lambda m: m.group(2) or m.group(1),
        text,
    )


def test_the_first_mention_of_another_article_becomes_a_link() -> None:
    assert link("We tried Beads. Beads worked.") == "We tried [[Beads]]. Beads worked."


def test_the_words_are_kept_as_written() -> None:
    assert link("claude code runs it.") == "[[Claude_Code|claude code]] runs it."
    assert link("The Claude Code CLI runs it.") == "The [[Claude_Code|Claude Code CLI]] runs it."


def test_the_longest_name_is_one_mention() -> None:
    assert link("Claude Code and Claude.") == "[[Claude_Code|Claude Code]] and [[Claude]]."


def test_an_article_never_links_to_itself() -> None:
    assert link("Beads tracks issues.", own="Beads") == "Beads tracks issues."
    assert link("Beads runs Claude.", own="Beads") == "Beads runs [[Claude]]."


def test_only_whole_words_are_mentions() -> None:
    assert (
        link("Beadsy bd-like abd tools, and bd.") == "Beadsy bd-like abd tools, and [[Beads|bd]]."
    )


def test_the_article_s_own_name_is_no_mention_of_a_shorter_one() -> None:
    own = (CODE, CLAUDE, Target("research-beads", ()))
    assert link_first_mentions("Claude Code runs.", own, "Claude_Code") == "Claude Code runs."
    assert link_first_mentions("research-beads says", own, "research-beads") == (
        "research-beads says"
    )


def test_code_links_markers_headings_and_templates_are_never_linked() -> None:
    text = (
        "## Beads\n\n"
        "Run `bd ready` first.[^1]\n\n"
        "```sh\nbd close\n```\n\n"
        "See [Beads](https://example.org) and [[Other|Beads]].\n\n"
        "{{Beads}}\n\n"
        "[^1]: `conv:0a1b2c3d` (2026-01-01, raw) — Beads talk\n"
    )
    assert link(text) == text


def test_a_target_the_text_already_links_is_not_linked_again() -> None:
    text = "Later [[Beads|the tracker]] grew; Beads is fine."
    assert link(text) == text


def test_a_name_two_articles_share_links_to_neither() -> None:
    twins = (Target("Bead_Tracker", ("bd",)), BEADS)
    assert link_first_mentions("Run bd now.", twins) == "Run bd now."


@given(st.lists(st.sampled_from(PIECES), max_size=40))
@settings(max_examples=draws(300), deadline=None)
def test_linking_changes_no_word_and_a_second_run_changes_nothing(pieces: list[str]) -> None:
    text = " ".join(pieces)
    once = link(text)
    assert link(once) == once
    if "[[" not in text and "]]" not in text:
        assert plain(once) == text


def test_linking_takes_time_in_proportion_to_its_input() -> None:
    targets = [Target(f"Article_{i}", (f"alias {i}",)) for i in range(1000)]
    text = "Some prose about article 7 and alias 42, nothing else. " * 400
    small = best_seconds(lambda t: link_first_mentions(t, targets), text[: len(text) // 10])
    large = best_seconds(lambda t: link_first_mentions(t, targets), text)
    assert large < 30 * max(small, 1e-4)


ARTICLE = """---
tags: Beads
---
# Claude

```info
kind: thing
aliases: Claude Code CLI
```

Claude works with Beads.[^1]

## Tracking

Beads again, and bd.[^1]

## See also

- Beads

## References

[^1]: `conv:0a1b2c3d` (2026-01-01, raw) — Beads talk
"""


def test_an_article_is_linked_section_by_section_and_its_lists_are_kept() -> None:
    linked, changed = link_article(ARTICLE, TARGETS, own="Claude")
    assert "Claude works with [[Beads]].[^1]" in linked
    assert "[[Beads]] again, and bd.[^1]" in linked
    assert linked.startswith("---\ntags: Beads\n---\n# Claude\n")
    references = "[^1]: `conv:0a1b2c3d` (2026-01-01, raw) — Beads talk\n"
    assert "- Beads\n\n## References\n\n" + references in linked
    assert changed == ["", "Tracking"]
    assert link_article(linked, TARGETS, own="Claude") == (linked, [])
