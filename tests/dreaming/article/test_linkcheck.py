"""Link targets as a renderer reads them: escapes the gate must see, mistune as the referee."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from urllib.parse import unquote

import mistune
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mistune.renderers.html import HTMLRenderer

from dreaming.article.document import LEAD
from dreaming.article.gate import check
from dreaming.article.keep import text_key
from dreaming.article.linkcheck import decode, link_targets
from dreaming.article.markup import words
from dreaming.article.schematic import leaks
from tests.support import best_seconds, draws

BEFORE = """\
# Foo Bar

Foo Bar is a small thing that people use for many purposes every day.

## History

It was first made in a shed by two friends who liked tools and wood.
"""

_render = mistune.create_markdown(
    escape=False, renderer=HTMLRenderer(escape=False, allow_harmful_protocols=True)
)


class _Targets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [v for k, v in attrs if k in ("href", "src") and v is not None]


def rendered_targets(markdown: str) -> list[str]:
    """Every href and src in mistune's HTML for `markdown`, entities decoded."""
    parser = _Targets()
    parser.feed(str(_render(markdown)))
    return parser.found


def leaves_the_vault(url: str) -> bool:
    """The referee's judgment, as a browser's URL parser and a file opener would see it."""
    t = unquote("".join(c for c in url if c not in "\t\r\n").strip("".join(map(chr, range(33)))))
    scheme, colon, _ = t.partition(":")
    has_scheme = colon and scheme[:1].isascii() and scheme[:1].isalpha()
    if has_scheme and all(c.isascii() and (c.isalnum() or c in "+-.") for c in scheme):
        return scheme.lower() not in ("http", "https", "mailto")
    # A fragment or query names a place in this page, not a file: only the path can leave.
    path = t.split("#", 1)[0].split("?", 1)[0]
    return path.startswith(("/", "\\", "~")) or ".." in path.replace("\\", "/").split("/")


def _with(snippet: str) -> str:
    return BEFORE.replace("every day.", f"every day.\n\n{snippet}\n\nAnd")


@pytest.mark.parametrize(
    "snippet",
    [
        "[x](&#46;&#46;&#47;etc&#47;passwd)",
        "![i](&#47;etc&#47;passwd)",
        "[x](&#x2F;etc)",
        "[x](&sol;etc)",
        "[a][r]\n\n[r]:\n  ../x",
        '<a href=\n"/etc/passwd">x</a>',
        '<a\nhref="/etc/passwd">x</a>',
        '<a href="java&#10;script:alert(1)">y</a>',
        '<a href="&#106;avascript:alert(1)">y</a>',
        "[x](a(b)/../../x)",
        "[x](\\.\\./y)",
        "> [r]: /etc\n\n[z][r]",
        "[t](..#)",
        "[t](../x?y)",
        "[t](<C:\t\\<>)",
    ],
)
def test_an_escape_in_disguise_is_rejected(snippet: str) -> None:
    assert any(leaves_the_vault(u) for u in rendered_targets(snippet))
    assert check(BEFORE, _with(snippet), touched=[LEAD]).codes == ("path_escape",)


@pytest.mark.parametrize("snippet", ["[t](#/..)", "[t](#../../x)", "[t](x?a/../..)"])
def test_a_fragment_or_query_stays_on_the_page(snippet: str) -> None:
    assert not any(leaves_the_vault(u) for u in rendered_targets(snippet))
    assert check(BEFORE, _with(snippet), touched=[LEAD]).ok


@pytest.mark.parametrize(
    "snippet",
    [
        '<img srcset="ok.png 1x, /etc/passwd 2x">',
        '<form action="file:///etc">f</form>',
        '<button formaction="../x">b</button>',
        '<video poster="/etc/x.png"></video>',
    ],
)
def test_an_escape_in_other_url_attributes_is_rejected(snippet: str) -> None:
    # Neither the tag nor the attribute is on the HTML allow-list either.
    assert check(BEFORE, _with(snippet), touched=[LEAD]).codes == ("path_escape", "html_refused")


def test_decode_reads_a_target_as_a_renderer_does() -> None:
    assert decode("&#46;&#46;&#47;x") == "../x"
    assert decode("\\.\\./x") == "../x"
    assert decode("<%2e%2e/x>") == "../x"
    assert decode("java\nscript:x") == "javascript:x"


PIECES = (
    "..", ".", "/", "\\", "%2e", "%2F", "&#46;", "&#47;", "&#x2f;", "&period;", "&sol;",
    "file:", "javascript:", "http://h", "mailto:", "C:", "~", "#", "?", "x", "a b",
    "(", ")", "<", ">", "\n", "\t", " ", "&", ";", "\\.", "\\/", "'", '"',
)  # fmt: skip
FORMS = (
    "[t]({})",
    "![i]({})",
    "[t](<{}>)",
    "[t][r]\n\n[r]: {}",
    "[t][r]\n\n[r]:\n  {}",
    '<a href="{}">t</a>',
    "<a href='{}'>t</a>",
    "<a href=\n{}>t</a>",
    '<img src="{}">',
    "<{}>",
)


@settings(max_examples=draws(1000), deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join), st.sampled_from(FORMS)
)
def test_whatever_mistune_would_link_outside_the_vault_the_gate_rejects(
    target: str, form: str
) -> None:
    snippet = form.format(target)
    escaping = [u for u in rendered_targets(snippet) if leaves_the_vault(u)]
    if escaping:
        result = check(BEFORE, _with(snippet), touched=[LEAD])
        assert not result.ok, (snippet, escaping)


CASES = [
    *((link_targets, u) for u in ("](", "[", "](a(a(a(a", 'href="', "<a:", "`", "[a]:")),
    *((lambda t: text_key(t, {}), u) for u in ("[[", "[^1", "`", "{{stub")),
    *((words, u) for u in ("東", "ท\u0e35", "](", "`")),
    *((lambda t: leaks("", t), u) for u in ("<", "conv:", "[^")),
    *((decode, u) for u in ("&#46;", "\\.", "%2e")),
]


@pytest.mark.slow  # real timing against input size
@pytest.mark.parametrize(("fn", "unit"), CASES)
def test_link_scanning_and_measuring_run_in_linear_time(
    fn: Callable[[str], object], unit: str
) -> None:
    # Sizes past the CPU caches, where linear time shows as an 8x ratio and quadratic as 64x.
    small = unit * (32_000 // len(unit))
    ratio = best_seconds(fn, small * 8) / max(best_seconds(fn, small), 1e-6)
    assert ratio < 24, f"8x the input took {ratio:.1f}x the time"
