"""The gate's HTML allow-list: an article's HTML may use only the tags and attributes
the article grammar and harmless inline formatting need, and its URLs only http, https,
mailto and in-vault names."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreaming.article.document import LEAD
from dreaming.article.gate import check
from dreaming.article.htmlcheck import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, refused_html
from tests.support import best_seconds, draws

BEFORE = """\
# Foo Bar

Foo Bar is a small thing that people use for many purposes every day.

## History

It was first made in a shed by two friends who liked tools and wood.
"""


def _with(snippet: str) -> str:
    return BEFORE.replace("every day.", f"every day.\n\n{snippet}\n\nAnd")


@pytest.mark.parametrize(
    "snippet",
    [
        '<object data="file:///etc/passwd"></object>',
        '<meta http-equiv=refresh content="0;url=file:///etc/passwd">',
        '<span style="background:url(file:///etc/passwd)">x</span>',
        "<style>p { background: url(file:///etc/passwd) }</style>",
        '<iframe src="https://example.com"></iframe>',
        '<embed src="https://example.com/x.swf">',
        '<link rel="stylesheet" href="https://example.com/x.css">',
        '<base href="file:///etc/">',
        '<svg><image href="file:///etc/passwd"/></svg>',
        '<a href="https://example.com" onclick="steal()">x</a>',
        '<img src="https://example.com/a.png" onerror="steal()">',
        '<b title="x" STYLE="color:red">x</b>',
        "<script>steal()</script>",
        "</script>",
        '<?xml-stylesheet href="file:///etc/x.css"?>',
        "<!DOCTYPE html>",
        "<![CDATA[x]]>",
        '<b title="unclosed>x</b>',
    ],
)
def test_html_outside_the_allow_list_is_refused(snippet: str) -> None:
    assert "html_refused" in check(BEFORE, _with(snippet), touched=[LEAD]).codes


@pytest.mark.parametrize(
    "snippet",
    [
        "E = mc<sup>2</sup> and H<sub>2</sub>O",
        "press <kbd>Ctrl</kbd>+<kbd>C</kbd><br>then <br/> again",
        '<abbr title="HyperText Markup Language">HTML</abbr>',
        "<b>bold</b>, <i>it</i>, <em>em</em>, <strong>s</strong>, <mark>m</mark>, <u>u</u>",
        '<a href="https://example.com/page">a page</a>',
        '<img src="https://example.com/a.png" alt="a picture" width="20">',
        "<!-- a note for whoever edits this -->",
        "<https://example.com> and <someone@example.com>",
        "`<object data='file:///etc/passwd'>` is how it is done",
        "a < b and b > c",
        "[the notes](<Garden Notes.md>) and [r]\n\n[r]: <Other Notes.md>",
    ],
)
def test_the_allowed_html_passes(snippet: str) -> None:
    assert check(BEFORE, _with(snippet), touched=[LEAD]).ok


@pytest.mark.parametrize(
    "snippet",
    ['<a href="file:///etc/passwd">x</a>', '<img src="/etc/passwd">', '<a href="../x.md">x</a>'],
)
def test_an_allowed_tag_with_a_url_out_of_the_vault_is_a_path_escape(snippet: str) -> None:
    assert check(BEFORE, _with(snippet), touched=[LEAD]).codes == ("path_escape",)


def test_html_a_person_already_had_is_tolerated() -> None:
    before = _with('<span style="color: red">mine</span>')
    assert check(before, before.replace("wood", "timber"), touched=[LEAD, "History"]).ok


def test_the_refusal_names_the_tag_or_attribute() -> None:
    assert refused_html('<b style="x">y</b>') == {"attribute 'style' on <b>"}
    assert refused_html("<object>") == {"tag <object>"}


NAMES = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:_."),
    min_size=1,
    max_size=12,
).filter(lambda n: n[0].isalpha())
KNOWN_TAGS = st.sampled_from(sorted(ALLOWED_TAGS | {"object", "meta", "style", "iframe", "svg"}))
KNOWN_ATTRIBUTES = st.sampled_from(
    sorted(
        {a for attrs in ALLOWED_ATTRIBUTES.values() for a in attrs}
        | {"style", "data", "content", "http-equiv", "onclick", "srcdoc", "formaction"}
    )
)


@settings(max_examples=draws(500), deadline=None)
@given(
    tag=st.one_of(KNOWN_TAGS, NAMES),
    attribute=st.one_of(KNOWN_ATTRIBUTES, NAMES),
    upper=st.booleans(),
    quote=st.sampled_from(['"', "'", ""]),
)
def test_no_tag_or_attribute_outside_the_allow_list_passes(
    tag: str, attribute: str, upper: bool, quote: str
) -> None:
    written_tag, written_attribute = (tag.upper(), attribute.upper()) if upper else (tag, attribute)
    snippet = f"<{written_tag} {written_attribute}={quote}x{quote}>y</{written_tag}>"
    allowed = (
        attribute.lower() in ALLOWED_ATTRIBUTES.get(tag.lower(), set()) | ALLOWED_ATTRIBUTES["*"]
    )
    if tag.lower() in ALLOWED_TAGS and allowed:
        assert check(BEFORE, _with(snippet), touched=[LEAD]).ok, snippet
    else:
        assert "html_refused" in check(BEFORE, _with(snippet), touched=[LEAD]).codes, snippet


@pytest.mark.slow  # real timing against input size
@pytest.mark.parametrize(
    "unit", ["<b", "<b ", "<b title=", '<b title="', "<b a a", "< ", "<!", "<?", "<a x='1' "]
)
def test_the_html_scan_runs_in_linear_time(unit: str) -> None:
    # Sizes past the CPU caches, where linear time shows as an 8x ratio and quadratic as 64x.
    small = unit * (32_000 // len(unit))
    ratio = best_seconds(refused_html, small * 8) / max(best_seconds(refused_html, small), 1e-6)
    assert ratio < 24, f"8x the input took {ratio:.1f}x the time"
