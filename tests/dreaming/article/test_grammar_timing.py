"""Every grammar regex and scanner runs in time linear in its input.

Articles are untrusted text (a model's output, a person's paste), so a
pattern that backtracks quadratically is a way to hang the nightly run. Each
case feeds the worst input we know for one pattern at sizes N, 4N and 16N and
checks that time grows about linearly: 16N may take at most 64 times what N
took (quadratic would be 256), and anything under the floor passes, so timer
noise on a busy machine cannot fail it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from dreaming.article.document import parse, render
from dreaming.article.fences import fence_blocks, mask_code, repair_fences, split_lines
from dreaming.article.markup import (
    Definition,
    atx_heading,
    conv_hashes,
    definitions,
    markers,
    parse_footnote,
    text_units,
    wikilinks,
    words,
)
from dreaming.article.normalize import normalize
from dreaming.article.queries import see_also
from dreaming.article.sections import replace_section
from dreaming.article.titles import heading_key
from dreaming.article.validate import problems
from tests.support import best_seconds

N = 2000
FLOOR_S = 0.05
"""Below this, 16N is fast enough whatever its ratio: noise, not growth."""
MAX_RATIO = 64.0


# Slow: real timing against input size.
pytestmark = pytest.mark.slow


def _retitled(text: str) -> str:
    return render(replace(parse("# T\n"), title=text))


def _normalized(text: str) -> str:
    return normalize(text, stem="T")


def _replaced(text: str) -> str:
    return replace_section("# T\n\n## A\n\nx\n", "A", text)


SP = " "
CASES: dict[str, tuple[Callable[[str], object], Callable[[int], str]]] = {
    "heading with spaces before text": (atx_heading, lambda n: "# x" + SP * n + "y"),
    "heading of spaces": (atx_heading, lambda n: "#" + SP * n),
    "heading with hash runs": (atx_heading, lambda n: "# " + "# " * n + "x"),
    "footnote source of spaces, unclosed": (
        lambda t: parse_footnote(Definition("1", t)),
        lambda n: "`conv:0123abcd` (2020-01-01, " + SP * n + "x",
    ),
    "footnote description of spaces": (
        lambda t: parse_footnote(Definition("1", t)),
        lambda n: "`conv:0123abcd` (2020-01-01, a) - x" + SP * n + "x",
    ),
    "footnote with many dashes": (
        lambda t: parse_footnote(Definition("1", t)),
        lambda n: "`conv:0123abcd` (2020-01-01, a)" + " -" * n,
    ),
    "category link of spaces": (wikilinks, lambda n: "[[Category:" + SP * n + "x]]"),
    "category words": (words, lambda n: "[[Category:" + SP * n + "x]] y"),
    "unclosed links": (wikilinks, lambda n: "[[" * n),
    "markers": (markers, lambda n: "[^" * n + "[^1]"),
    "a token of punctuation ending in a letter": (text_units, lambda n: "-" * n + "a"),
    "tokens of punctuation": (text_units, lambda n: "- _ * " * n),
    "definition lines": (definitions, lambda n: "[^1]:" + SP * n + "\n" + "[^" * n),
    "conv refs": (conv_hashes, lambda n: "conv:" * n),
    "inline code runs of rising width": (
        mask_code,
        lambda n: "".join("`" * k + "x" for k in range(1, int((2 * n) ** 0.5))),
    ),
    "inline code openers never closed": (mask_code, lambda n: "``x" * n + "`"),
    "fences never closed": (lambda t: fence_blocks(split_lines(t)), lambda n: "````\n```\n" * n),
    "fence repair": (repair_fences, lambda n: "```" + "`" * n + "\n"),
    "one-line title of spaces": (_retitled, lambda n: "x" + SP * n + "\ny" + SP * n),
    "template line": (words, lambda n: "*Main article:" + "* " * n + "x"),
    "see also item of spaces": (
        lambda t: see_also(parse(t)),
        lambda n: "# T\n\n## See also\n\n-" + SP * n + "[[x" + SP * n,
    ),
    "redirect of spaces": (
        lambda t: problems(parse(t)),
        lambda n: "# T\n\n*Redirects to [[X]]" + SP * n + "x*\n",
    ),
    "stub of spaces, not closed": (_normalized, lambda n: "# T\n\nx" + SP * n + "{{stub" + "\n"),
    "many stubs inline": (_normalized, lambda n: "# T\n\nx" + " {{stub}}" * n + "\n"),
    "definition continuation of spaces": (
        _normalized,
        lambda n: "# T\n\nx[^1]\n\n## References\n\n[^1]: a\n" + ("    " + SP * n + "\n") * 4,
    ),
    "heading key of marker openers": (heading_key, lambda n: "[^" * n + "x" * n),
    "comment openers never closed": (mask_code, lambda n: "<!--" * n + "%% " * n),
    "table row of pipes": (_normalized, lambda n: "# T\n\n| a |\n| - |\n" + "|" * n + "[[t]]\n"),
    "section replace of a long heading": (_replaced, lambda n: "## A" + SP * n + "#" * n),
}


@pytest.mark.parametrize("name", list(CASES))
def test_grammar_runs_in_linear_time(name: str) -> None:
    fn, make = CASES[name]
    times = [best_seconds(fn, make(n)) for n in (N, 4 * N, 16 * N)]
    ratio = times[2] / max(times[0], 1e-6)
    assert times[2] < FLOOR_S or ratio < MAX_RATIO, f"{name}: 16N took {ratio:.0f}x N ({times})"
